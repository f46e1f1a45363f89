package library

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// minimumBuiltins are the modules the builtin library must have in both
// zh-CN and en-US: what the assembler, the tools and the aux jobs name.
var minimumBuiltins = []string{
	"base.identity", "base.behavior", "base.caution", "base.tools", "base.style",
	"env.runtime", "env.knowledge", "env.pure-agent", "env.selected-docs", "env.skills", "env.web-search",
	"task.doc-minutes", "task.summarize", "task.translate", "task.code-review", "task.data-analysis",
	"agent.sub.general", "agent.sub.explore", "agent.sub.plan", "agent.sub.verify", "agent.docs-wizard",
	"agent.memory-extractor", "tool.knowledge_search", "tool.web_search", "tool.read_skill",
	"aux.title-gen", "aux.session-compact", "aux.session-memory", "aux.command-explain", "aux.polish",
	"aux.injection", "aux.context-note", "aux.planner-board", "style.explanatory", "style.learning",
}

func builtin(t *testing.T) *Snapshot {
	t.Helper()
	snap, err := Builtin()
	if err != nil {
		t.Fatalf("the builtin library does not load:\n%v", err)
	}
	return snap
}

func TestBuiltinHasMinimumModulesInBothLocales(t *testing.T) {
	snap := builtin(t)
	for _, id := range minimumBuiltins {
		for _, loc := range []string{"zh-CN", "en-US"} {
			m, ok := snap.Module(id, loc)
			if !ok {
				t.Errorf("%s missing in %s", id, loc)
				continue
			}
			if strings.TrimSpace(m.Body) == "" {
				t.Errorf("%s (%s) has an empty body", id, loc)
			}
		}
	}
	for _, loc := range []string{"zh-CN", "en-US"} {
		if _, ok := snap.Labels(loc); !ok {
			t.Errorf("labels missing for %s", loc)
		}
	}
}

func TestBuiltinIDsMatchFileNames(t *testing.T) {
	snap := builtin(t)
	for _, id := range snap.IDs() {
		for _, loc := range snap.ModuleLocales(id) {
			m, _ := snap.Module(id, loc)
			if got := path.Base(m.File); got != FileName(id) {
				t.Errorf("%s is in file %s, want %s", id, got, FileName(id))
			}
			if path.Base(path.Dir(m.File)) != loc {
				t.Errorf("%s (%s) is in folder %s", id, loc, path.Dir(m.File))
			}
		}
	}
}

// Every placeholder in the builtin library is declared, a known
// environment value or a module id, and env-only values are used in
// env modules only. Load enforces both; this checks it independently.
func TestBuiltinPlaceholdersKnown(t *testing.T) {
	snap := builtin(t)
	for _, id := range snap.IDs() {
		for _, loc := range snap.ModuleLocales(id) {
			m, _ := snap.Module(id, loc)
			for _, p := range Placeholders(m.Body) {
				_, declared := m.Variable(p.Name)
				env, isEnv := LookupEnv(p.Name)
				if !declared && !isEnv && !snap.Has(p.Name) {
					t.Errorf("%s (%s) line %d: unknown placeholder {{%s}}", id, loc, p.Line, p.Name)
				}
				if isEnv && env.EnvOnly && m.Layer != LayerEnv {
					t.Errorf("%s (%s): {{%s}} outside an env module", id, loc, p.Name)
				}
			}
		}
	}
}

// The modules that enter a default assembly declare no variables: the
// scenarios supply none.
func TestBuiltinDefaultModulesNeedNoVariables(t *testing.T) {
	snap := builtin(t)
	for _, id := range snap.IDs() {
		m, _ := snap.Any(id)
		if (m.Layer == LayerBase || m.Layer == LayerEnv || m.Layer == LayerTask) && len(m.Variables) > 0 {
			t.Errorf("%s declares variables %v", id, m.Variables)
		}
	}
}

func TestLoadDirReportsEveryBrokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(p, text string) {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("modules/en-US/base-a.md", head+"---\nuses {{nope}}\n")
	write("modules/en-US/base-b.md", strings.Replace(head, "base.a", "base.c", 1)+"---\nB\n")
	write("modules/en-US/base-d.md", strings.Replace(head, "base.a", "base.d", 1)+"triggers: [unclosed\n---\nB\n")
	_, err := LoadDir(dir)
	fes, ok := err.(FileErrors)
	if !ok {
		t.Fatalf("got %v, want FileErrors", err)
	}
	want := map[string]*regexp.Regexp{
		"base-a.md": regexp.MustCompile(`base-a\.md:8: field body: unknown placeholder \{\{nope\}\}`),
		"base-b.md": regexp.MustCompile(`base-b\.md:2: field id: id "base.c" does not match the file name`),
		"base-d.md": regexp.MustCompile(`base-d\.md:7: field triggers: frontmatter is not valid YAML: the list opened with "\[" on this line is never closed`),
	}
	if len(fes) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%v", len(fes), len(want), err)
	}
	for _, fe := range fes {
		re := want[path.Base(fe.File)]
		if re == nil || !re.MatchString(fe.Error()) {
			t.Errorf("unexpected error %q", fe.Error())
		}
	}
}

func TestLoadDirReportsIncludeCycles(t *testing.T) {
	dir := t.TempDir()
	for p, text := range map[string]string{
		"modules/en-US/base-a.md": head + "---\nA {{base.b}}\n",
		"modules/en-US/base-b.md": strings.Replace(head, "base.a", "base.b", 1) + "---\nB {{base.a}}\n",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadDir(dir)
	if err == nil || !strings.Contains(err.Error(), "base-a.md:8: field body: {{base.b}} makes an include cycle: base.a → base.b → base.a") {
		t.Fatalf("got %v, want the cycle base.a → base.b → base.a at line 8", err)
	}
}

// A module that includes itself is one error, at the placeholder's line:
// the modules including it are not reported too.
func TestLoadDirSelfIncludeIsOneError(t *testing.T) {
	dir := t.TempDir()
	for p, text := range map[string]string{
		"modules/en-US/base-a.md": head + "---\nA\n{{base.a}}\n",
		"modules/en-US/base-b.md": strings.Replace(head, "base.a", "base.b", 1) + "---\nB {{base.a}}\n",
		"modules/en-US/base-c.md": strings.Replace(head, "base.a", "base.c", 1) + "---\nC {{base.b}}\n",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadDir(dir)
	var errs FileErrors
	if !errors.As(err, &errs) || len(errs) != 1 {
		t.Fatalf("got %v, want one error", err)
	}
	if e := errs[0]; filepath.Base(e.File) != "base-a.md" || e.Line != 9 || e.Msg != "{{base.a}} includes the module in itself: a module cannot include its own text" {
		t.Errorf("got %s:%d %q", e.File, e.Line, e.Msg)
	}
}

// A module file whose name is not <layer>-<name>.md with a known layer
// and a valid name is refused for its name, saying what is allowed,
// rather than for an id that would have to contain a space.
func TestLoadDirRefusesInvalidFileNames(t *testing.T) {
	dir := t.TempDir()
	rule := "a module file is named <layer>-<name>.md, where <layer> is one of base, env, task, agent, tool, aux, style and <name> uses only lowercase [a-z0-9._-]"
	want := map[string]string{
		"aux-spaced name.md": `invalid file name "aux-spaced name.md": the name "spaced name" has characters other than lowercase [a-z0-9._-]; ` + rule,
		"aux-Upper.md":       `invalid file name "aux-Upper.md": the name "Upper" has characters other than lowercase [a-z0-9._-]; ` + rule,
		"core-notes.md":      `invalid file name "core-notes.md": "core" is not a layer; ` + rule,
		"notes.md":           `invalid file name "notes.md": no <layer>- prefix; ` + rule,
		"aux-.md":            `invalid file name "aux-.md": the name after the "aux-" prefix is empty; ` + rule,
		"aux-caps.MD":        `invalid file name "aux-caps.MD": a module file name ends in lower-case .md; ` + rule,
	}
	for name := range want {
		full := filepath.Join(dir, "modules", "en-US", name)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(strings.Replace(head, "base.a", "aux.spaced name", 1)+"---\nB\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadDir(dir)
	fes, ok := err.(FileErrors)
	if !ok || len(fes) != len(want) {
		t.Fatalf("got %v, want %d errors", err, len(want))
	}
	for _, fe := range fes {
		if w := want[path.Base(fe.File)]; fe.Msg != w || fe.Line != 0 || fe.Field != "" {
			t.Errorf("%s: line %d, field %q, %q\nwant line 0, no field, %q", fe.File, fe.Line, fe.Field, fe.Msg, w)
		}
	}
}

// A library folder's label files are optional: a locale without one has
// the embedded library's labels of that locale, one with its own keeps
// them, and a locale the embedded library has no labels for has none
// (the assembler then takes the fallback locale's).
func TestLoadDirTakesEmbeddedLabelsForLocalesWithoutLabelFile(t *testing.T) {
	builtin, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(p, text string) {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("modules/en-US/base-a.md", head+"---\nA\n")
	write("modules/ja-JP/base-a.md", head+"---\nA\n")
	snap, err := LoadDir(dir)
	if err != nil {
		t.Fatalf("a folder without label files: %v", err)
	}
	for _, loc := range []string{"en-US", "zh-CN"} {
		got, ok := snap.Labels(loc)
		want, _ := builtin.Labels(loc)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: labels %t, want the embedded ones", loc, ok)
		}
	}
	if _, ok := snap.Labels("ja-JP"); ok {
		t.Error("ja-JP has labels; the embedded library has none")
	}
	if got := snap.LabelLocales(); !reflect.DeepEqual(got, []string{"en-US", "zh-CN"}) {
		t.Errorf("label locales %v", got)
	}

	enUS, err := fs.ReadFile(BuiltinFS(), "labels/en-US.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write("labels/en-US.yaml", strings.Replace(string(enUS), `output_contract.heading: "#### Output contract"`, `output_contract.heading: "## What to return"`, 1))
	if snap, err = LoadDir(dir); err != nil {
		t.Fatal(err)
	}
	if l, _ := snap.Labels("en-US"); l["output_contract.heading"] != "## What to return" {
		t.Errorf("the folder's own en-US labels do not serve: %q", l["output_contract.heading"])
	}
	if l, _ := snap.Labels("zh-CN"); l["output_contract.heading"] != "#### 输出约定" {
		t.Errorf("zh-CN: %q, want the embedded heading", l["output_contract.heading"])
	}
}

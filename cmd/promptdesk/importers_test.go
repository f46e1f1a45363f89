package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/importer"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// fixtures are library/importer's own small source folders.
const fixtures = "../../library/importer/testdata"

// fixture is the absolute path of one fixture folder, as the CLI (kong's
// existingdir) reports it.
func fixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// converted is what library/importer makes of a fixture, to compare the
// CLI's files and drafts with.
func converted(t *testing.T, format importer.Format, dir string) map[string]string {
	t.Helper()
	res, err := importer.Import(format, os.DirFS(dir), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, m := range res.Modules {
		texts[m.ID+" "+m.Locale] = m.Text
	}
	return texts
}

func TestImportSkillsToFolder(t *testing.T) {
	src := fixture(t, "skills")
	out := t.TempDir()
	stdout, err := cliRun(t, "import", "--from", "skills", src, "--out", out)
	// Two source items did not come in: the exit status says so (the
	// attached resource file is no failure).
	if err == nil || err.Error() != "import: 2 of 7 source items not imported" || exitStatus(err) != 1 {
		t.Fatalf("err %v, want 2 of 7 not imported\n%s", err, stdout)
	}
	for _, line := range []string{
		"imported     " + filepath.Join(src, "meeting-notes/SKILL.md") + " → modules/en-US/task-meeting-notes.md\n",
		"       note: line 7: field license: \"Fixture licence, see the project README\" has no place in the module format; not kept\n",
		"not imported " + filepath.Join(src, "broken/SKILL.md") + ":",
		"attached     " + filepath.Join(src, "meeting-notes/templates/agenda.txt") + ": a resource of the skill in meeting-notes",
		"skipped      " + filepath.Join(src, "README.md") + ": not in an Agent Skills folder",
		"   finding: line 3: description is 1,038 characters: the Agent Skills specification allows at most 1,024\n",
		"skills: imported 3, not imported 2, attached 1, used 0, skipped 1 of 7 source items from " + src + "; 3 module files converted; 9 findings\n",
		"wrote 3 module files to " + filepath.Join(out, "modules") + "\n",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("output lacks %q:\n%s", line, stdout)
		}
	}
	want := converted(t, importer.FormatSkills, src)
	snap, err := library.LoadDir(out)
	if err != nil {
		t.Fatalf("the written folder does not load: %v", err)
	}
	for key, text := range want {
		id, loc, _ := strings.Cut(key, " ")
		m, ok := snap.Module(id, loc)
		if !ok || m.Text != text {
			t.Errorf("%s: written text differs from the converter's", key)
		}
	}

	// A second import into the same folder refuses to overwrite…
	p := filepath.Join(out, "modules", "en-US", "task-meeting-notes.md")
	writeFile(t, p, "edited by hand\n")
	_, err = cliRun(t, "import", "--from", "skills", src, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), p) {
		t.Fatalf("err %v, want a refusal naming %s and --force", err, p)
	}
	if data, _ := os.ReadFile(p); string(data) != "edited by hand\n" {
		t.Errorf("a refused import changed %s", p)
	}
	// …unless --force.
	if _, err := cliRun(t, "import", "--from", "skills", src, "--out", out, "--force"); err == nil || !strings.Contains(err.Error(), "not imported") {
		t.Fatalf("import --force: err %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != want["task.meeting-notes en-US"] {
		t.Errorf("--force did not overwrite %s", p)
	}
}

// A source whose items all come in exits 0, or 2 when it breaks rules of
// its own format (findings): the modules are written either way.
func TestImportExitStatusForFindings(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "weekly-status", "SKILL.md"), "---\nname: "+strings.Repeat("status-", 10)+"report\ndescription: Writes the weekly status report.\n---\nWrite the report.\n")
	out := t.TempDir()
	stdout, err := cliRun(t, "import", "--from", "skills", src, "--out", out)
	if exitStatus(err) != 2 || err.Error() != "import: everything came in, but the source breaks 2 rule(s) of its own format (the finding: lines)" {
		t.Fatalf("err %v (exit %d), want exit 2 for 2 findings\n%s", err, exitStatus(err), stdout)
	}
	for _, line := range []string{
		"   finding: line 2: name is 76 characters: the Agent Skills specification allows at most 64\n",
		"   finding: line 2: name \"status-status-status-status-status-status-status-status-status-status-report\" differs from its folder's name \"weekly-status\"",
		"skills: imported 1, not imported 0, attached 0, used 0, skipped 0 of 1 source items from " + src + "; 1 module files converted; 2 findings\n",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("output lacks %q:\n%s", line, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "modules", "en-US", "task-"+strings.Repeat("status-", 10)+"report.md")); err != nil {
		t.Errorf("the skill was not written: %v", err)
	}

	clean := t.TempDir()
	writeFile(t, filepath.Join(clean, "weekly-status", "SKILL.md"), "---\nname: weekly-status\ndescription: Writes the weekly status report.\n---\nWrite the report.\n")
	if stdout, err := cliRun(t, "import", "--from", "skills", clean, "--out", t.TempDir()); err != nil || !strings.Contains(stdout, "; 0 findings\n") {
		t.Errorf("a clean source: err %v, want exit 0\n%s", err, stdout)
	}
}

func TestImportJinjaIntoDB(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	st := openStore(t, dbURL)
	t.Setenv("DATABASE_URL", dbURL)
	src := fixture(t, "jinja-index")
	stdout, err := cliRun(t, "import", "--from", "jinja-index", src, "--into", "db")
	if err == nil || err.Error() != "import: 3 of 7 source items not imported" {
		t.Fatalf("err %v\n%s", err, stdout)
	}
	for _, line := range []string{
		"imported     " + filepath.Join(src, "greeting.md") + " (template greeting) → modules/en-US/aux-greeting.md\n",
		"       note: modules/en-US/aux-greeting.md: aux.greeting (en-US) saved as draft revision 1 (not served until published)\n",
		"not imported " + filepath.Join(src, "index.json") + ":11 (templates.farewell): the template file farewell.md is missing\n",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("output lacks %q:\n%s", line, stdout)
		}
	}
	want := converted(t, importer.FormatJinjaIndex, src)
	got := draftTexts(t, st)
	if len(got) != 2 || len(want) != 2 {
		t.Fatalf("drafts %v, want %d", got, len(want))
	}
	for key, text := range want {
		if got[key] != text {
			t.Errorf("%s: draft %q, want the converted module %q", key, got[key], text)
		}
	}
	if served := overrideTexts(t, st); len(served) != 0 {
		t.Errorf("the import published %v, want drafts only", served)
	}

	// The same import again stores nothing new.
	stdout, _ = cliRun(t, "import", "--from", "jinja-index", src, "--into", "db")
	if !strings.Contains(stdout, "identical to the override of aux.greeting (en-US) at revision 1; nothing stored") {
		t.Errorf("second import:\n%s", stdout)
	}
}

// A MaiBot prompt that includes another imported prompt imports as a
// draft like the rest: a draft may include a stored user module. What is
// served stays whole, because a publish checks the draft again against
// what is served (state.Overrides.Publish).
func TestImportMaiBotIntoDBKeepsIncludesOfUserModules(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	st := openStore(t, dbURL)
	t.Setenv("DATABASE_URL", dbURL)
	src := fixture(t, "maibot")
	stdout, err := cliRun(t, "import", "--from", "maibot", src, "--into", "db")
	if err == nil || err.Error() != "import: 3 of 14 source items not imported" {
		t.Fatalf("err %v\n%s", err, stdout)
	}
	line := "imported     " + filepath.Join(src, "prompts/en-US/greet.prompt") + " → modules/en-US/aux-greet.md"
	if !strings.Contains(stdout, line) {
		t.Errorf("output lacks %q:\n%s", line, stdout)
	}
	drafts := draftTexts(t, st)
	for _, key := range []string{"aux.signature en-US", "aux.signature zh-CN", "aux.no_meta en-US", "aux.uses_date en-US", "aux.greet en-US", "aux.greet zh-CN", "aux.note_line en-US", "aux.wrapper en-US"} {
		if drafts[key] == "" {
			t.Errorf("no draft %s; have %d drafts", key, len(drafts))
		}
	}
	if len(drafts) != 8 {
		t.Errorf("%d drafts, want 8", len(drafts))
	}
	if !strings.Contains(drafts["aux.greet en-US"], "{{aux.signature}}") {
		t.Errorf("the greet draft lost its include:\n%s", drafts["aux.greet en-US"])
	}
}

func TestImportFlags(t *testing.T) {
	dir := filepath.Join(fixtures, "skills")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "langchain", dir, "--out", t.TempDir()}, `--from "langchain": unknown format (known: promptdesk, skills, maibot, weknora, jinja-index, claude-code)`},
		{[]string{"--from", "skills", dir}, "say where the modules go: --out DIR"},
		{[]string{"--from", "skills", dir, "--out", t.TempDir(), "--into", "db"}, "choose one"},
		{[]string{"--from", "skills", dir, "--into", "files"}, `--into "files": the only target is "db"`},
		{[]string{"--from", "promptdesk", dir, "--out", t.TempDir()}, "in the library layout already"},
		{[]string{"--from", "promptdesk", dir, "--layer", "aux"}, "--layer, --locale, --hidden and --maibot-locale apply to the converted formats"},
		{[]string{"--from", "skills", dir, "--into", "db", "--force"}, "--force applies to --out only"},
		{[]string{"--from", "skills", dir, "--out", t.TempDir(), "--layer", "notes"}, `layer "notes": unknown layer`},
		{[]string{"--from", "maibot", filepath.Join(fixtures, "maibot"), "--out", t.TempDir(), "--locale", "en-US"}, "--locale does not apply to MaiBot"},
		{[]string{"--from", "jinja-index", dir, "--out", t.TempDir()}, "no index.json"},
	} {
		_, err := cliRun(t, append([]string{"import"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("import %v: err %v, want %q", c.args, err, c.want)
		}
	}
}

// A skill with scripts exits 0 (its files are attached, no failure);
// --hidden reads .claude/skills.
func TestImportSkillsAttachedAndHidden(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, ".claude", "skills", "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Fills PDF forms.\n---\nRun scripts/fill.py.\n")
	writeFile(t, filepath.Join(src, ".claude", "skills", "pdf", "scripts", "fill.py"), "print(1)\n")
	stdout, err := cliRun(t, "import", "--from", "skills", src, "--out", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no Agent Skills folder") {
		t.Fatalf("without --hidden the .claude folder is not read: err %v\n%s", err, stdout)
	}
	stdout, err = cliRun(t, "import", "--from", "skills", "--hidden", src, "--out", t.TempDir())
	if err != nil {
		t.Fatalf("err %v, want exit 0\n%s", err, stdout)
	}
	for _, line := range []string{
		"attached     " + filepath.Join(src, ".claude/skills/pdf/scripts/fill.py") + ": a resource of the skill in .claude/skills/pdf",
		"skills: imported 1, not imported 0, attached 1, used 0, skipped 0 of 2 source items",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("output lacks %q:\n%s", line, stdout)
		}
	}
}

// MaiBot fills an include from its default locale (--maibot-locale,
// zh-CN); with promptdesk's fallback locale the same, the prompt comes in.
func TestImportMaiBotLocales(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "prompts", "zh-CN", "inner.prompt"), "Inner.\n")
	writeFile(t, filepath.Join(src, "prompts", "en-US", "outer.prompt"), "Outer {inner}.\n")
	stdout, err := cliRun(t, "import", "--from", "maibot", src, "--out", t.TempDir())
	if exitStatus(err) != 1 || !strings.Contains(stdout, "import and serve with --fallback-locale zh-CN") {
		t.Errorf("err %v, want exit 1 naming the include\n%s", err, stdout)
	}
	for _, args := range [][]string{
		{"--fallback-locale", "zh-CN"},
		{"--maibot-locale", "en-US"},
	} {
		out := t.TempDir()
		stdout, err := cliRun(t, append([]string{"import", "--from", "maibot", src, "--out", out}, args...)...)
		if args[0] == "--maibot-locale" {
			// MaiBot set to en-US has no inner there: it cannot fill it.
			if exitStatus(err) != 1 || !strings.Contains(stdout, "none in MaiBot's default locale en-US") {
				t.Errorf("%v: err %v\n%s", args, err, stdout)
			}
			continue
		}
		if err != nil || !strings.Contains(stdout, "→ modules/en-US/aux-outer.md") {
			t.Errorf("%v: err %v\n%s", args, err, stdout)
		}
	}
}

// The claude-code catalogue: every file one line, exit status 1 while a
// fragment is not imported; the modules go to a folder that loads, or in
// as drafts; the upstream key survives an export and an import.
func TestImportClaudeCode(t *testing.T) {
	src := fixture(t, "claude-code")
	out := t.TempDir()
	stdout, err := cliRun(t, "import", "--from", "claude-code", src, "--out", out)
	if err == nil || err.Error() != "import: 11 of 26 source items not imported" || exitStatus(err) != 1 {
		t.Fatalf("err %v, want 11 of 26 not imported\n%s", err, stdout)
	}
	for _, line := range []string{
		"imported     " + filepath.Join(src, "system-prompts/tool-description-bash.md") + " → modules/en-US/tool-tool-description-bash.md\n",
		"not imported " + filepath.Join(src, "system-prompts/system-prompt-ternary.md") + `: line 10: the JavaScript ternary ${IS_TERSE ? "Be brief." : "Explain your steps."} uses the declared variable IS_TERSE`,
		"not imported " + filepath.Join(src, "system-prompts/data-collision.md") + ": line 7: variables FOO_BAR (line 6) and foo_bar both become the placeholder {{foo_bar}}\n",
		"skipped      " + filepath.Join(src, "README.md") + ": not in the catalogue folder system-prompts/\n",
		"   finding: line 1: the header gives no description\n",
		"claude-code: imported 13, not imported 11, attached 0, used 0, skipped 2 of 26 source items from " + src + "; 13 module files converted; 3 findings\n",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("output lacks %q:\n%s", line, stdout)
		}
	}
	want := converted(t, importer.FormatClaudeCode, src)
	snap, err := library.LoadDir(out)
	if err != nil {
		t.Fatalf("the written folder does not load: %v", err)
	}
	for key, text := range want {
		id, loc, _ := strings.Cut(key, " ")
		if m, ok := snap.Module(id, loc); !ok || m.Text != text {
			t.Errorf("%s: written text differs from the converter's", key)
		}
	}

	dbURL := storetest.NewDatabase(t)
	st := openStore(t, dbURL)
	t.Setenv("DATABASE_URL", dbURL)
	if stdout, err := cliRun(t, "import", "--from", "claude-code", src, "--into", "db"); exitStatus(err) != 1 ||
		!strings.Contains(stdout, "       note: modules/en-US/tool-tool-description-bash.md: tool.tool-description-bash (en-US) saved as draft revision 1 (not served until published)\n") {
		t.Fatalf("--into db: err %v\n%s", err, stdout)
	}
	drafts := draftTexts(t, st)
	if len(drafts) != len(want) {
		t.Errorf("%d drafts, want %d", len(drafts), len(want))
	}
	for key, text := range want {
		if drafts[key] != text {
			t.Errorf("%s: draft %q, want the converted module", key, drafts[key])
		}
	}

	// Published, exported and imported again, the text keeps its upstream key.
	bash := want["tool.tool-description-bash en-US"]
	if _, err := st.SaveOverride(domain.WithActor(context.Background(), "test"), domain.Override{ModuleID: "tool.tool-description-bash", Locale: "en-US",
		Text: bash, Title: "Tool Description: Bash", Version: 1, Author: "test", Publish: true}, 1); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if stdout, err := cliRun(t, "export", "--out", dir); err != nil {
		t.Fatalf("export: %v\n%s", err, stdout)
	}
	file := filepath.Join(dir, "modules", "en-US", "tool-tool-description-bash.md")
	data, err := os.ReadFile(file)
	if err != nil || string(data) != bash {
		t.Fatalf("exported %s: %v\n%s", file, err, data)
	}
	other := storetest.NewDatabase(t)
	t.Setenv("DATABASE_URL", other)
	if stdout, err := cliRun(t, "import", "--from", "promptdesk", dir); err != nil {
		t.Fatalf("import --from promptdesk: %v\n%s", err, stdout)
	}
	m, err := library.Parse(file, []byte(draftTexts(t, openStore(t, other))["tool.tool-description-bash en-US"]))
	if err != nil || m.Upstream == nil || *m.Upstream != (library.Upstream{Source: "claude-code", Name: "Tool Description: Bash", Version: "2.1.240"}) {
		t.Errorf("re-imported upstream %+v (%v)", m, err)
	}
}

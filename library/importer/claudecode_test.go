package importer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/promptdesk/promptdesk/library"
)

const ccFixture = "testdata/claude-code"

// Every file of the fixture is one report line, with the status, the
// reason and the line the rules give it.
func TestClaudeCodeFixture(t *testing.T) {
	res := run(t, FormatClaudeCode, ccFixture, Options{})
	files := 0
	if err := filepath.WalkDir(ccFixture, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var rep strings.Builder
	res.Report(&rep, ccFixture)
	lines := 0
	for _, l := range strings.Split(rep.String(), "\n") {
		for _, s := range []Status{StatusImported, StatusNotImported, StatusSkipped} {
			if strings.HasPrefix(l, fmt.Sprintf("%-12s %s/", s, ccFixture)) {
				lines++
			}
		}
	}
	if len(res.Outcomes) != files || lines != files {
		t.Errorf("%d outcomes and %d report lines for %d files\n%s", len(res.Outcomes), lines, files, rep.String())
	}
	wantCounts(t, res, 13, 11, 0, 2)

	sp := "system-prompts/"
	for _, c := range []struct {
		file   string
		status Status
		line   int
		parts  []string
	}{
		{"README.md", StatusSkipped, 0, []string{"not in the catalogue folder system-prompts/"}},
		{sp + "notes.txt", StatusSkipped, 0, []string{"not a fragment"}},
		{sp + "system-prompt-ternary.md", StatusNotImported, 10, []string{`the JavaScript ternary ${IS_TERSE ? "Be brief." : "Explain your steps."} uses the declared variable IS_TERSE`}},
		{sp + "system-reminder-call.md", StatusNotImported, 8, []string{`the JavaScript call ${FORMAT_PATH("notes.md")} uses the declared variable FORMAT_PATH`}},
		{sp + "data-member.md", StatusNotImported, 9, []string{"the JavaScript member access ${CONFIG.path} uses the declared variable CONFIG"}},
		{sp + "agent-prompt-timeout.md", StatusNotImported, 9, []string{"the JavaScript arithmetic ${MAX_TIMEOUT / 60000} uses the declared variable MAX_TIMEOUT"}},
		{sp + "data-nested-template.md", StatusNotImported, 10, []string{"the JavaScript call ${WRAP(`first line ${INNER} second line`)} uses the declared variables WRAP, INNER"}},
		{sp + "system-prompt-computed.md", StatusNotImported, 7, []string{"the JavaScript call ${new Date().getFullYear()} stands outside code"}},
		{sp + "data-collision.md", StatusNotImported, 7, []string{"variables FOO_BAR (line 6) and foo_bar both become the placeholder {{foo_bar}}"}},
		{sp + "changelog-entry.md", StatusNotImported, 0, []string{"unknown fragment kind"}},
		{sp + "data-unclosed.md", StatusNotImported, 1, []string{"the header <!-- is never closed by a line -->"}},
		{sp + "data-bad-yaml.md", StatusNotImported, 2, []string{"header: not valid YAML"}},
		{sp + "system-reminder-empty.md", StatusNotImported, 0, []string{"the text is empty"}},
		{sp + "agent-prompt-explore.md", StatusImported, 5, []string{"header field agentMetadata agentType: 'Explore' model: 'haiku' has no place in the module format; not kept"}},
		{sp + "data-unknown-keys.md", StatusImported, 5, []string{"header field shadows"}},
		{sp + "data-windows.md", StatusImported, 0, []string{"the file's line endings are CR-LF: read as LF"}},
		{sp + "system-prompt-main.md", StatusImported, 9, []string{`variable "model" renamed "model_value"`}},
		{sp + "system-prompt-main.md", StatusImported, 12, []string{"{{USER_NAME}} is not declared in the header; declared as the variable user_name"}},
		{sp + "system-prompt-main.md", StatusImported, 0, []string{`1 literal {{name}} sequence(s) written \{{name}}`}},
		{sp + "tool-description-bash.md", StatusImported, 0, []string{"5 ${…} kept as literal text"}},
		{sp + "data-shell-only.md", StatusImported, 0, []string{"5 ${…} kept as literal text"}},
		{sp + "skill-review.md", StatusImported, 0, []string{"description derived from the first line of prose"}},
		{sp + "notes-misc.md", StatusImported, 0, nil},
		{sp + "tool-description-long-name-" + strings.Repeat("x", 130) + ".md", StatusImported, 0, []string{"shortened to", "a module id has at most 128 bytes"}},
	} {
		o := outcome(t, res, c.file, "")
		if o.Status != c.status {
			t.Errorf("%s: %s, want %s: %v", c.file, o.Status, c.status, o.Reasons)
		}
		if c.parts != nil {
			wantNote(t, o, c.line, c.parts...)
		}
		if c.status == StatusNotImported && len(o.Reasons) != 1 {
			t.Errorf("%s: reasons %v, want one", c.file, o.Reasons)
		}
	}
	wantFindings(t, outcome(t, res, sp+"skill-review.md", ""), "line 1: the header gives no description")
	wantFindings(t, outcome(t, res, sp+"skill-no-name.md", ""), "line 1: the header gives no name")
	wantFindings(t, outcome(t, res, sp+"system-reminder-plain.md", ""), "line 1: no header: a fragment starts with an <!-- … --> comment holding its name, description and ccVersion")

	want := "---\nid: tool.tool-description-bash\nlayer: tool\nversion: 1\ntitle: \"Tool Description: Bash\"\ndescription: \"Describes the Bash tool and its limits\"\n" +
		"variables: [\"bash_tool_name\", \"max_timeout_ms\"]\n" +
		"upstream: {source: claude-code, name: \"Tool Description: Bash\", version: \"2.1.240\"}\n---\n" +
		"Use {{bash_tool_name}} to run shell commands; a command stops after {{max_timeout_ms}} ms.\n\n" +
		"Your home folder is `${HOME}`, and ${UNDECLARED} is text.\n\n```sh\ncd \"${HOME}/src\" && echo \"${PATH:-/usr/bin}\" ${#ARGS[@]}\n```\n"
	if got := moduleText(t, res, "modules/en-US/tool-tool-description-bash.md"); got != want {
		t.Errorf("tool.tool-description-bash:\n%s\nwant\n%s", got, want)
	}
	for p, layer := range map[string]string{
		"agent-agent-prompt-explore.md": "agent", "base-system-prompt-main.md": "base", "aux-system-reminder-plain.md": "aux",
		"aux-data-windows.md": "aux", "task-skill-review.md": "task", "tool-tool-parameter-command.md": "tool", "tool-notes-misc.md": "tool",
	} {
		m, err := library.Parse(p, []byte(moduleText(t, res, "modules/en-US/"+p)))
		if err != nil || string(m.Layer) != layer {
			t.Errorf("%s: layer %v, want %s (%v)", p, m, layer, err)
			continue
		}
		if m.Upstream == nil || m.Upstream.Source != ClaudeCodeSource {
			t.Errorf("%s: upstream %+v", p, m.Upstream)
		}
		if layer == "task" && (len(m.Triggers) != 1 || m.Triggers[0].Kind != library.TriggerManual) {
			t.Errorf("%s: triggers %v, want one manual trigger", p, m.Triggers)
		}
	}
	if m, _ := library.Parse("x.md", []byte(moduleText(t, res, "modules/en-US/aux-system-reminder-plain.md"))); m.Upstream.String() != "claude-code · system-reminder-plain" {
		t.Errorf("a fragment without a header: upstream %q, want the source and the file stem", m.Upstream.String())
	}
	wantRendersUpstream(t, ccFixture, res)
}

// wantRendersUpstream renders every imported module with its variables
// filled and compares it with the fragment's upstream text in which each
// ${NAME} of a declared variable and each {{NAME}} is replaced by the
// value (the module's text is trimmed, so the upstream text is too).
func wantRendersUpstream(t *testing.T, src string, res *Result) {
	t.Helper()
	_, entries, err := ReadClaudeCodeCatalogue(src)
	if err != nil {
		t.Fatal(err)
	}
	rendered := loadAndRender(t, res)
	compared := 0
	for _, e := range entries {
		if e.ModuleID == "" {
			continue
		}
		m, err := library.Parse("x.md", []byte(moduleText(t, res, "modules/en-US/"+library.FileName(e.ModuleID))))
		if err != nil {
			t.Fatal(err)
		}
		want := e.Text
		header := readVariables(t, filepath.Join(src, e.Path))
		for _, raw := range header {
			want = replaceUnescaped(want, "${"+raw+"}", value(placeholderFor(raw)))
		}
		want = regexp.MustCompile(`\{\{([A-Z][A-Z0-9_]*)\}\}`).ReplaceAllStringFunc(want, func(s string) string {
			return value(placeholderFor(s[2 : len(s)-2]))
		})
		if got := rendered["modules/en-US/"+library.FileName(e.ModuleID)]; got != strings.TrimSpace(want) {
			t.Errorf("%s renders\n%q\nwant the upstream text\n%q", e.Path, got, strings.TrimSpace(want))
		}
		if len(m.Variables) != len(uniq(header, m)) {
			t.Errorf("%s: variables %v for the header's %v", e.Path, m.Variables, header)
		}
		compared++
	}
	if compared != len(res.Modules) || compared == 0 {
		t.Errorf("compared %d renders for %d modules", compared, len(res.Modules))
	}
}

// uniq is the header's variables plus the {{NAME}} placeholders the
// module adds, once each.
func uniq(header []string, m *library.Module) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range header {
		if !seen[placeholderFor(v)] {
			seen[placeholderFor(v)] = true
			out = append(out, v)
		}
	}
	for _, p := range m.Placeholders {
		if !seen[p.Name] {
			seen[p.Name] = true
			out = append(out, p.Name)
		}
	}
	return out
}

// placeholderFor is the placeholder a catalogue variable becomes,
// written out for the test: lower-cased, an environment value's name
// with _value after it.
func placeholderFor(raw string) string {
	name := strings.ToLower(raw)
	if _, env := library.LookupEnv(name); env {
		name += "_value"
	}
	return name
}

// readVariables reads the `  - NAME` lines of a fragment's header.
func readVariables(t *testing.T, p string) []string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	head, _, ok := strings.Cut(text, "\n-->")
	if !ok || !strings.HasPrefix(text, "<!--\n") {
		return nil
	}
	_, list, ok := strings.Cut(head, "\nvariables:\n")
	if !ok {
		return nil
	}
	var out []string
	for _, l := range strings.Split(list, "\n") {
		name, ok := strings.CutPrefix(l, "  - ")
		if !ok {
			break
		}
		out = append(out, name)
	}
	return out
}

// replaceUnescaped replaces old by repl where no backslash precedes it.
func replaceUnescaped(s, old, repl string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if i > 0 && s[i-1] == '\\' {
			b.WriteString(old)
		} else {
			b.WriteString(repl)
		}
		s = s[i+len(old):]
	}
}

// A catalogue at real size: a body of 180 KB (the largest upstream bodies
// are 175 KB) comes in whole and renders as upstream wrote it; one over
// the module size limit is not imported, saying so. Fragments of every
// kind are generated around them, with declared variables, shell syntax
// in code and {{NAME}} placeholders.
func TestClaudeCodeAtRealSize(t *testing.T) {
	fsys := fstest.MapFS{}
	var long strings.Builder
	for i := 0; long.Len() < 180_000; i++ {
		fmt.Fprintf(&long, "## Step %d\n\nRun ${TOOL_NAME} on the file, then check {{CHECK_NAME}}.\n\n```sh\nfor f in \"${FILES[@]}\"; do echo \"${f%%.*}\" \"${HOME}\"; done\n```\n\n", i)
	}
	header := "<!--\nname: 'Data: Long'\ndescription: A long reference text\nccVersion: 2.1.240\nvariables:\n  - TOOL_NAME\n-->\n"
	fsys["system-prompts/data-long.md"] = &fstest.MapFile{Data: []byte(header + long.String())}
	huge := strings.Repeat("A line of reference text that goes on.\n", 7000)
	fsys["system-prompts/data-huge.md"] = &fstest.MapFile{Data: []byte(strings.Replace(header, "Long", "Huge", 1) + huge)}
	for i, k := range ccKinds {
		for j := range 4 {
			body := fmt.Sprintf("Fragment %d of %s uses ${VAR_%d} and `${HOME}` and {{UPPER_%d}}.\n", j, k.prefix, j, j)
			fsys[fmt.Sprintf("system-prompts/%s-generated-%d-%d.md", k.prefix, i, j)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
				"<!--\nname: '%s: Generated %d'\ndescription: Generated fragment\nccVersion: 2.1.%d\nvariables:\n  - VAR_%d\n-->\n%s", k.title, j, 200+j, j, body))}
		}
	}
	res, err := Import(FormatClaudeCode, fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outcomes) != len(fsys) {
		t.Errorf("%d outcomes for %d files", len(res.Outcomes), len(fsys))
	}
	wantCounts(t, res, len(fsys)-1, 1, 0, 0)
	wantNote(t, outcome(t, res, "system-prompts/data-huge.md", ""), 0, "bytes; the limit is 262144 bytes")
	long0 := moduleText(t, res, "modules/en-US/aux-data-long.md")
	if len(long0) < 180_000 {
		t.Errorf("the long module has %d bytes", len(long0))
	}
	dir := t.TempDir()
	for p, f := range fsys {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantRendersUpstream(t, dir, res)
}

func TestReadClaudeCodeCatalogue(t *testing.T) {
	source, entries, err := ReadClaudeCodeCatalogue(ccFixture)
	if err != nil {
		t.Fatal(err)
	}
	if source != ClaudeCodeSource {
		t.Errorf("source %q", source)
	}
	files, err := filepath.Glob(ccFixture + "/system-prompts/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(files) {
		t.Fatalf("%d entries for %d fragment files", len(entries), len(files))
	}
	byPath := map[string]CatalogueEntry{}
	for _, e := range entries {
		byPath[e.Path] = e
	}
	bash, _ := os.ReadFile(ccFixture + "/system-prompts/tool-description-bash.md")
	_, bashText, _ := strings.Cut(string(bash), "-->\n")
	for p, w := range map[string]CatalogueEntry{
		"system-prompts/tool-description-bash.md": {Name: "Tool Description: Bash", Kind: "tool-description", Version: "2.1.240",
			ModuleID: "tool.tool-description-bash", Text: bashText},
		"system-prompts/system-prompt-ternary.md": {Name: "System Prompt: Tone", Kind: "system-prompt", Version: "2.1.240",
			Text: "Answer questions.\n\n${IS_TERSE ? \"Be brief.\" : \"Explain your steps.\"}\n"},
		"system-prompts/skill-no-name.md":          {Name: "skill-no-name", Kind: "skill", Version: "2.1.240", ModuleID: "task.skill-no-name", Text: "Summarise the thread in three bullet points.\n"},
		"system-prompts/notes-misc.md":             {Name: "Tool Description: Grep", Kind: "tool-description", Version: "2.1.240", ModuleID: "tool.notes-misc", Text: "Search file contents with a regular expression.\n"},
		"system-prompts/changelog-entry.md":        {Name: "Changelog", Version: "2.1.240", Text: "Nothing to see.\n"},
		"system-prompts/system-reminder-plain.md":  {Name: "system-reminder-plain", Kind: "system-reminder", ModuleID: "aux.system-reminder-plain", Text: "Remember: ${NOT_A_VARIABLE} stays as written.\n"},
		"system-prompts/data-windows.md":           {Name: "Data: Windows notes", Kind: "data", Version: "2.1.240", ModuleID: "aux.data-windows", Text: "Run commands in ${SHELL_NAME}.\nPaths use backslashes.\n"},
		"system-prompts/agent-prompt-timeout.md":   {Name: "Agent Prompt: Timeout", Kind: "agent-prompt", Version: "2.1.240", Text: "Each step may take up to\n${MAX_TIMEOUT / 60000} minutes.\n"},
		"system-prompts/system-reminder-empty.md":  {Name: "System Reminder: Empty", Kind: "system-reminder", Version: "2.1.240"},
		"system-prompts/tool-parameter-command.md": {Name: "Tool Parameter: command", Kind: "tool-parameter", Version: "2.1.239", ModuleID: "tool.tool-parameter-command", Text: "The command to execute, as one line.\n"},
	} {
		w.Path = p
		if got := byPath[p]; got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", p, got, w)
		}
	}
	if _, _, err := ReadClaudeCodeCatalogue(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no fragment files") {
		t.Errorf("an empty folder: %v", err)
	}
}

// No text makes the conversion panic or scan without end, and every
// placeholder of what it accepts is a declared variable.
func FuzzConvertFragment(f *testing.F) {
	for _, s := range []string{"${A} ${B ? `x${A}` : 'y'} {{C}}", "```\n${HOME:-/x} ${`\n```\n${", "\\${A} {{a}} \\{{C}} ${A}${A}", strings.Repeat("${`", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, problems := convertFragment(s, 1, []ccVar{{raw: "A", line: 1}, {raw: "B", line: 1}})
		if len(problems) > 0 {
			return
		}
		for _, p := range library.Placeholders(c.body) {
			if !slices.Contains(c.variables, p.Name) {
				t.Errorf("placeholder {{%s}} is not among the variables %v", p.Name, c.variables)
			}
		}
	})
}

// A text made of unclosed ${ inside code is refused after maxUnclosed of
// them, not scanned to the end for each.
func TestUnclosedInterpolationsAreBounded(t *testing.T) {
	text := "```\n" + strings.Repeat("${`", 90_000) + "\n```\n"
	_, problems := convertFragment(text, 1, nil)
	if len(problems) != 1 || !strings.Contains(problems[0].Msg, "more than 100 ${ are never closed") {
		t.Errorf("problems %v", problems)
	}
}

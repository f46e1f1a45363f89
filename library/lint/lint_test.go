package lint

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/promptdesk/promptdesk/library"
)

// want is one expected finding of a fixture file: rule, line, severity.
type want struct {
	rule string
	line int
	sev  library.Severity
}

func warning(rule string, line int) want { return want{rule, line, library.SeverityWarning} }

// fixtures maps every file under testdata/library (relative to modules/,
// or the locale folder for a notice) to exactly the findings it must
// produce. Each fixture is a module that follows the checklist except for
// the one item its name says it misses; the *-good, base-rules,
// env-plain and tool-lookup files follow all of it.
var fixtures = map[string][]want{
	"en-US/agent-sub.open.md":       {warning("1", 8)}, // no boundary in the opening
	"en-US/agent-sub.readonly.md":   {warning("2", 5)}, // title says read-only, body does not
	"en-US/agent-sub.verdict.md":    {warning("4", 7)}, // a verdict without a fixed line
	"en-US/aux-good.md":             nil,
	"en-US/aux-json-no-contract.md": {warning("3", 18)}, // asks for JSON, no outputContract
	"en-US/aux-json-shape.md":       {warning("4", 7)},  // JSON without an example object
	"en-US/aux-vague.md":            {warning("4", 7)},  // aux output with no fixed format
	"en-US/base-identity.md":        {warning("1", 8)},  // names a role, not what it answers for
	"en-US/base-rules.md":           nil,                // rule 1 is base.identity's only
	"en-US/env-plain.md":            nil,                // env modules are facts
	"en-US/env-sources.md":          {warning("6", 8)},  // a source without "not found"
	"en-US/task-braces.md":          {warning(library.RulePlaceholder, 11), warning(library.RulePlaceholder, 12), warning(library.RulePlaceholder, 12), warning(library.RulePlaceholder, 13)},
	"en-US/task-code-braces.md":     {warning(library.RulePlaceholder, 21)}, // brace text in code is not flagged
	"en-US/task-broken.md":          {{library.RuleFormat, 4, library.SeverityError}},
	"en-US/task-fence.md":           {warning("3", 21)}, // a JSON block, no outputContract
	"en-US/task-good.md":            nil,
	"en-US/task-json.md":            {warning("3", 19)},
	"en-US/task-no-detail.md":       {warning("7", 9)},
	"en-US/task-no-forbidden.md":    {warning("2", 9)},
	"en-US/task-no-leak.md":         {warning("8", 9)},
	"en-US/task-no-missing.md":      {warning("6", 9)},
	"en-US/task-no-mistakes.md":     {warning("5", 9)},
	"en-US/task-no-role.md":         {warning("1", 9)},
	"en-US/task-short-role.md":      {warning("1", 9)},
	"en-US/tool-lookup.md":          nil,
	"en-US/tool-no_fail.md":         {warning(library.RuleTool, 8)},
	"en-US/tool-no_when.md":         {warning(library.RuleTool, 8)},
	"en-US/tool-params.md":          {warning(library.RuleTool, 19)}, // parameter list with types
	"en-US/tool-schema.md":          {warning(library.RuleTool, 18)}, // JSON Schema code block
	"en-US/tool-scope.md":           {warning("6", 14)},              // searches, names no scope
	"zh-CN/task-good.md":            nil,
	"zh-CN/task-no-mistakes.md":     {warning("5", 9)},
	"zh-CN/task-short-role.md":      {warning("1", 9)},
	"ja-JP":                         {{library.RuleCues, 0, library.SeverityNotice}},
	"ja-JP/task-good.md":            nil,
	"ja-JP/tool-schema.md":          {warning(library.RuleTool, 18)}, // structural: runs without cues
}

func TestLintDirFixtures(t *testing.T) {
	r, err := LintDir("testdata/library")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]want{}
	for _, f := range r.Findings {
		key := strings.TrimPrefix(f.File, "testdata/library/modules/")
		got[key] = append(got[key], want{f.Rule, f.Line, f.Severity})
	}
	for file, w := range fixtures {
		if !slices.Equal(got[file], w) {
			t.Errorf("%s: findings %v, want %v", file, got[file], w)
		}
	}
	for file := range got {
		if _, ok := fixtures[file]; !ok {
			t.Errorf("unexpected findings for %s: %v", file, got[file])
		}
	}
	for _, f := range r.Findings {
		if f.Message == "" {
			t.Errorf("%s: empty message", f)
		}
	}
	// Every file but the broken one is checked; one broken file hides nothing.
	if r.Modules != len(fixtures)-2 {
		t.Errorf("checked %d modules, want %d", r.Modules, len(fixtures)-2)
	}
	if r.Counts != (Counts{Errors: 1, Warnings: 30, Notices: 1}) {
		t.Errorf("counts %+v", r.Counts)
	}
}

// Brace text that is no placeholder is named in its warning with what to
// write instead; a placeholder, an escaped one, JSON braces and brace text
// in fenced code blocks (``` and ~~~) and inline code spans are not.
func TestBraceWarnings(t *testing.T) {
	r, err := LintDir("testdata/library")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		if f.Rule == library.RulePlaceholder {
			got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.Field, f.Message))
		}
	}
	want := []string{
		"11 body {{ user_name }} has spaces inside the braces, so it is no placeholder and the model would read it as written: write {{user_name}}",
		"12 body {{#each items}} is template syntax this format does not have (no sections or loops, only {{name}} placeholders): the model would read it as written",
		"12 body {{/each}} is template syntax this format does not have (no sections or loops, only {{name}} placeholders): the model would read it as written",
		"13 body {{note as it is.: the {{ is not closed by }} on its line, so it is no placeholder and the model would read it as written: write {{name}}",
		// task-code-braces.md: only the line outside code blocks and spans.
		"21 body {{ user_name }} has spaces inside the braces, so it is no placeholder and the model would read it as written: write {{user_name}}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("brace warnings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The messages name what is missing, and the format error keeps the
// loader's file, line and field.
func TestLintDirMessages(t *testing.T) {
	r, err := LintDir("testdata/library")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, f := range r.Findings {
		lines[strings.TrimPrefix(f.File, "testdata/library/modules/")+" "+f.Rule] = f.String()
	}
	for key, sub := range map[string]string{
		"en-US/task-broken.md format":     "testdata/library/modules/en-US/task-broken.md:4: error [format] version: must be an integer",
		"en-US/task-short-role.md 1":      `task-short-role.md:9: warning [rule 1] body: the first sentence names a role but not what it answers for: "You are Quill."`,
		"en-US/agent-sub.open.md 1":       "states no boundary for this role",
		"en-US/agent-sub.readonly.md 2":   "agent-sub.readonly.md:5: warning [rule 2] title: the title says the role is read-only but the body never does",
		"en-US/aux-json-no-contract.md 3": `asks for structured output ("return json")`,
		"en-US/agent-sub.verdict.md 4":    "VERDICT: PASS|FAIL|PARTIAL",
		"en-US/aux-json-shape.md 4":       "shows no example object",
		"en-US/task-no-mistakes.md 5":     "warning [rule 5] body: the body names no common mistakes",
		"en-US/tool-scope.md 6":           "name the scope searched",
		"en-US/tool-no_when.md tool":      "when and why to use the tool",
		"ja-JP cues":                      "testdata/library/modules/ja-JP: notice [cues] no lint cue words for ja-JP (cue files exist for en-US, zh-CN): the wording checks of rules 1, 2 and 4–8 and of the tool rule were skipped for its 2 modules",
		"en-US/tool-params.md tool":       "does not list the parameters with their types",
		"en-US/env-sources.md 6":          "does not say what to answer when information is missing",
		"en-US/task-fence.md 3":           "shows a data block",
		"en-US/task-no-leak.md 8":         "process instructions",
		"en-US/task-no-detail.md 7":       "level of detail",
		"en-US/task-no-forbidden.md 2":    "forbidden action",
		"en-US/aux-vague.md 4":            "fixes no format",
		"en-US/tool-no_fail.md tool":      "how the tool fails",
		"en-US/base-identity.md 1":        "not what it answers for",
		"en-US/task-no-role.md 1":         "does not say who the model is",
		"en-US/task-no-missing.md 6":      "when information is missing",
		"zh-CN/task-short-role.md 1":      `the first sentence names a role but not what it answers for: "你是小助手。"`,
	} {
		if !strings.Contains(lines[key], sub) {
			t.Errorf("%s: %q does not contain %q", key, lines[key], sub)
		}
	}
}

func TestLintOneModule(t *testing.T) {
	parse := func(locale, text string) *library.Module {
		m, err := library.Parse("m.md", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		m.Locale = locale
		return m
	}
	const short = "---\nid: task.x\nlayer: task\nversion: 1\ntitle: X\ndescription: X\n---\nYou are X.\n"
	// en-GB has no cue file of its own: English cues apply (same
	// language and script), so every wording rule fires.
	var rules []string
	for _, f := range Lint(parse("en-GB", short)) {
		if f.Severity != library.SeverityWarning {
			t.Errorf("en-GB: %s", f)
		}
		rules = append(rules, f.Rule)
	}
	if want := []string{"1", "2", "5", "6", "7", "8"}; !slices.Equal(rules, want) {
		t.Errorf("en-GB: rules %v, want %v", rules, want)
	}
	// zh-TW is written in traditional characters: the zh-CN cues do not
	// apply, and the module gets one notice instead of warnings.
	got := Lint(parse("zh-TW", short))
	if len(got) != 1 || got[0].Severity != library.SeverityNotice || got[0].Rule != library.RuleCues || !strings.Contains(got[0].Message, "for this module") {
		t.Errorf("zh-TW: %v", got)
	}
}

func TestCueFilesAreChecked(t *testing.T) {
	good, err := cueFS.ReadFile("cues/en-US.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ text, msg string }{
		"missing list":  {strings.Replace(string(good), "\nmistakes:", "\nunused_mistakes:", 1), "unused_mistakes"},
		"empty list":    {strings.Replace(string(good), "\ndetail: [", "\ndetail: [] #", 1), "list detail is missing or empty"},
		"blank cue":     {strings.Replace(string(good), `leak: ["output only"`, `leak: [" "`, 1), "leak[0] is blank"},
		"bad min":       {strings.Replace(string(good), "roleMinLength: 30", "roleMinLength: 0", 1), "roleMinLength must be 1 or more"},
		"not a mapping": {"- a\n- b\n", "cues/en-US.yaml"},
	} {
		_, err := readCues(fstest.MapFS{"cues/en-US.yaml": {Data: []byte(c.text)}}, "cues")
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "cues/en-US.yaml") {
			t.Errorf("%s: error %v, want one naming cues/en-US.yaml and %q", name, err, c.msg)
		}
	}
	if _, err := readCues(fstest.MapFS{"cues/xx_YY!.yaml": {Data: good}}, "cues"); err == nil || !strings.Contains(err.Error(), "not a BCP 47") {
		t.Errorf("bad locale: %v", err)
	}
	locales, err := CueLocales()
	if err != nil || !slices.Equal(locales, []string{"en-US", "zh-CN"}) {
		t.Errorf("cue locales %v, %v", locales, err)
	}
}

func TestLintDirErrors(t *testing.T) {
	if _, err := LintDir("testdata/nowhere"); err == nil {
		t.Error("a missing folder is not an error")
	}
	if _, err := LintDir("lint.go"); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a file: %v", err)
	}
	r, err := LintDir("cues") // a folder without modules/
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts.Errors != 1 || !strings.Contains(r.Findings[0].Message, "no modules folder") {
		t.Errorf("folder without modules: %+v", r)
	}
}

// The frontmatter rules of library.Parse reach lint as format errors with
// the parser's file, line, field and message: a value a comment would cut
// short, and an integer not written in plain decimal.
func TestLintFrontmatterValueRules(t *testing.T) {
	const module = "---\nid: task.%s\nlayer: task\nversion: 1\ntitle: T\n%s\n---\nYou are T.\n"
	fsys := fstest.MapFS{
		"modules/en-US/task-cut.md":   {Data: []byte(fmt.Sprintf(module, "cut", "description: Follow-ups for ticket #12 and #13"))},
		"modules/en-US/task-octal.md": {Data: []byte(fmt.Sprintf(module, "octal", "description: D\npriority: 017"))},
	}
	r, err := LintFS(fsys, "lib")
	if err != nil {
		t.Fatal(err)
	}
	want := []library.Finding{
		{File: "lib/modules/en-US/task-cut.md", Line: 6, Field: "description", Rule: library.RuleFormat, Severity: library.SeverityError,
			Message: `a # after a blank starts a YAML comment, so this value would load as "Follow-ups for ticket" without "#12 and #13"; quote the value if the # belongs to it (description: "Follow-ups for ticket #12 and #13"), or put the comment on a line of its own`},
		{File: "lib/modules/en-US/task-octal.md", Line: 7, Field: "priority", Rule: library.RuleFormat, Severity: library.SeverityError,
			Message: `must be written in plain decimal digits, got "017", which YAML reads as 15; write the number without a leading zero, "+", "_" or a 0x, 0o or 0b prefix`},
	}
	if !slices.Equal(r.Findings, want) || r.Modules != 0 {
		t.Errorf("findings %v, %d modules checked; want %v and none checked", r.Findings, r.Modules, want)
	}
}

// A file with several format errors gets one finding for each, so a
// fixer sees them all in one run.
func TestLintReportsEveryErrorOfAFile(t *testing.T) {
	fsys := fstest.MapFS{
		"modules/en-US/task-three.md": {Data: []byte("---\nid: task.three\nlayer: task\nversion: 1.5\ntitle: T\ndescription: D\npriority: 017\ntriggers:\n  - kind: sometimes\n---\nYou are T.\n")},
	}
	r, err := LintFS(fsys, "lib")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.Field, f.Rule))
	}
	want := []string{"4 version " + library.RuleFormat, "7 priority " + library.RuleFormat, "9 triggers[0].kind " + library.RuleFormat}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q\n%v", got, want, r.Findings)
	}
}

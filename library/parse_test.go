package library

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

func mustParse(t *testing.T, file, text string) *Module {
	t.Helper()
	m, err := Parse(file, []byte(text))
	if err != nil {
		t.Fatalf("Parse(%s): %v", file, err)
	}
	return m
}

func parseErr(t *testing.T, text string) *FileError {
	t.Helper()
	_, err := Parse("x.md", []byte(text))
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("Parse: got %v, want a *FileError", err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("a FileError must match ErrInvalid")
	}
	return fe
}

// A Windows file (BOM, CRLF) parses exactly like its LF, no-BOM twin.
func TestParseWindowsFile(t *testing.T) {
	crlf := "\uFEFF---\r\nid: base.greet\r\nlayer: base\r\nversion: 1\r\ntitle: Greeting\r\ndescription: d\r\nvariables: [name]\r\n---\r\nHello {{name}}\r\n"
	lf := strings.ReplaceAll(strings.TrimPrefix(crlf, "\uFEFF"), "\r\n", "\n")
	a, b := mustParse(t, "base-greet.md", crlf), mustParse(t, "base-greet.md", lf)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("CRLF+BOM and LF parse differently:\n%+v\n%+v", a, b)
	}
	if a.Body != "Hello {{name}}\n" || a.Title != "Greeting" {
		t.Fatalf("body %q title %q", a.Body, a.Title)
	}
	if strings.ContainsAny(a.Title+a.ID+a.Body, "\r\uFEFF") {
		t.Fatal("a \\r or BOM survived")
	}
	if got := a.Placeholders; len(got) != 1 || got[0].Name != "name" {
		t.Fatalf("placeholders %+v, want only name", got)
	}
}

const head = "---\nid: base.a\nlayer: base\nversion: 1\ntitle: T\ndescription: D\n"

// Frontmatter fences: a body's own `---` line, an unclosed block, an
// empty one, and lines that only look like a fence.
func TestParseFences(t *testing.T) {
	m := mustParse(t, "base-a.md", head+"---\nintro\n---\nafter the break\n")
	if m.Body != "intro\n---\nafter the break\n" {
		t.Fatalf("body %q", m.Body)
	}
	if fe := parseErr(t, "---\nid: base.a\nbody\n"); fe.Line != 1 || !strings.Contains(fe.Msg, "frontmatter not closed") {
		t.Fatalf("got %v", fe)
	}
	if fe := parseErr(t, "---\n---\nBody\n"); fe.Field != "id" || !strings.Contains(fe.Msg, "missing required field id") {
		t.Fatalf("got %v", fe)
	}
	if fe := parseErr(t, head+"----\nBody\n"); !strings.Contains(fe.Msg, "frontmatter not closed") {
		t.Fatalf("---- must not close: %v", fe)
	}
	if fe := parseErr(t, head+"---x\nBody\n"); !strings.Contains(fe.Msg, "frontmatter not closed") {
		t.Fatalf("---x must not close: %v", fe)
	}
	m = mustParse(t, "base-a.md", strings.Replace(head, "---\n", "---  \n", 1)+"--- \r\nB\n")
	if m.Body != "B\n" {
		t.Fatalf("trailing blanks on fences: body %q", m.Body)
	}
}

// YAML typing: versions are integers, strings stay strings, booleans are
// only true/false.
func TestParseTyping(t *testing.T) {
	fe := parseErr(t, strings.Replace(head, "version: 1", "version: 1.10", 1)+"---\nB\n")
	if fe.Field != "version" || fe.Line != 4 {
		t.Fatalf("version 1.10: %v", fe)
	}
	m := mustParse(t, "base-a.md", strings.Replace(head, "title: T", "title: on", 1)+"---\nB\n")
	if m.Title != "on" {
		t.Fatalf("title %q, want on", m.Title)
	}
	task := "---\nid: task.a\nlayer: task\nversion: 1\ntitle: T\ndescription: D\ntriggers:\n- kind: intent\n  keywords: no, off, yes\n---\nB\n"
	m = mustParse(t, "task-a.md", task)
	if want := []string{"no", "off", "yes"}; !reflect.DeepEqual(m.Triggers[0].Keywords, want) {
		t.Fatalf("keywords %q, want %q", m.Triggers[0].Keywords, want)
	}
	fe = parseErr(t, head+"requiresAttachments: no\n---\nB\n")
	if fe.Field != "requiresAttachments" || fe.Line != 7 {
		t.Fatalf("requiresAttachments: no: %v", fe)
	}
}

func TestParseRules(t *testing.T) {
	cases := []struct {
		name, text, field string
		line              int
	}{
		{"unknown key", head + "colour: red\n---\nB\n", "colour", 7},
		{"bad layer", strings.Replace(head, "layer: base", "layer: core", 1) + "---\nB\n", "layer", 3},
		{"layer mismatch", strings.Replace(head, "layer: base", "layer: env", 1) + "---\nB\n", "layer", 3},
		{"uppercase id", strings.Replace(head, "base.a", "base.A", 1) + "---\nB\n", "id", 2},
		{"id too long for a file name", strings.Replace(head, "base.a", "base."+strings.Repeat("a", MaxIDLength), 1) + "---\nB\n", "id", 2},
		{"triggers outside task", head + "triggers:\n- kind: manual\n---\nB\n", "triggers", 7},
		{"bad trigger kind", strings.Replace(head, "base", "task", 2) + "triggers:\n- kind: regex\n---\nB\n", "triggers[0].kind", 8},
		{"command without slash", strings.Replace(head, "base", "task", 2) + "triggers:\n- kind: command\n  command: minutes\n---\nB\n", "triggers[0].command", 8},
		{"bad escape", head + "variables: [{name: x, escape: html}]\n---\n{{x}}\n", "variables[0].escape", 7},
		{"env value as variable", head + "variables: [date]\n---\nB\n", "variables[0].name", 7},
		{"duplicate field", head + "title: again\n---\nB\n", "title", 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fe := parseErr(t, c.text)
			if fe.Field != c.field || fe.Line != c.line || fe.File != "x.md" {
				t.Fatalf("got %v (field %q line %d), want field %q line %d", fe, fe.Field, fe.Line, c.field, c.line)
			}
		})
	}
}

func TestParseEnvOnlyPlaceholders(t *testing.T) {
	fe := parseErr(t, head+"---\nline one\ntoday is {{date}}\n")
	if fe.Line != 9 || !strings.Contains(fe.Msg, "{{date}}") {
		t.Fatalf("got %v, want line 9 naming {{date}}", fe)
	}
	env := strings.Replace(strings.Replace(head, "base", "env", 2), "base", "env", 1)
	if _, err := Parse("env-a.md", []byte(env+"---\ntoday is {{date}}\n")); err != nil {
		t.Fatalf("env module may use date: %v", err)
	}
}

func TestParseTooLarge(t *testing.T) {
	fe := parseErr(t, head+"---\n"+strings.Repeat("x", MaxModuleBytes))
	if !strings.Contains(fe.Msg, "256 KiB") {
		t.Fatalf("got %v", fe)
	}
}

func TestParseEmptyBodyAndInvalidUTF8(t *testing.T) {
	if fe := parseErr(t, head+"---\n  \n"); fe.Field != "body" || fe.Line != 8 {
		t.Fatalf("empty body: got %v, want field body line 8", fe)
	}
	if fe := parseErr(t, head+"---\nfine\nbad \xff\xfe here\n"); fe.Line != 9 || !strings.Contains(fe.Msg, "UTF-8") {
		t.Fatalf("invalid UTF-8: got %v, want line 9 naming UTF-8", fe)
	}
}

// Deeply nested YAML makes the parser's memory grow with the square of the
// depth; such frontmatter is refused before parsing.
func TestParseRefusesDeepFrontmatter(t *testing.T) {
	deep := head + "x: " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n---\nB\n"
	if fe := parseErr(t, deep); !strings.Contains(fe.Msg, "nests deeper than 32") {
		t.Fatalf("got %v", fe)
	}
	big := head + "description2: " + strings.Repeat("x", MaxFrontmatterBytes) + "\n---\nB\n"
	if fe := parseErr(t, big); !strings.Contains(fe.Msg, "32 KiB") {
		t.Fatalf("got %v", fe)
	}
}

// A line ending "\r\r\n" normalises to the same text however often it is
// normalised (found by FuzzParse).
func TestNormalizeIdempotent(t *testing.T) {
	once := Normalize([]byte("a\r\r\nb\r\n"))
	if once != "a\nb\n" || Normalize([]byte(once)) != once {
		t.Fatalf("Normalize = %q", once)
	}
}

func TestParseRefusesControlCharactersAndEmptyFiles(t *testing.T) {
	if fe := parseErr(t, head+"---\nok\nnul \x00 here\n"); fe.Line != 9 || !strings.Contains(fe.Msg, "U+0000") {
		t.Fatalf("NUL: got %v, want line 9 naming U+0000", fe)
	}
	if fe := parseErr(t, " \n\n"); fe.Line != 1 || !strings.Contains(fe.Msg, "the file is empty") {
		t.Fatalf("empty file: got %v", fe)
	}
}

// A YAML error names the line that causes it and the top-level field it
// belongs to: for a list or mapping left open, the line where its "[" or
// "{" opened, not the next key where the YAML parser gave up.
func TestParseYAMLErrorLineAndField(t *testing.T) {
	const start = "---\nid: task.a\nlayer: task\n"
	const rest = "version: 1\ntitle: T\ndescription: D\n"
	cases := []struct {
		name, text, field, msg string
		line                   int
	}{
		{"unclosed list, then more keys", start + "triggers: [unclosed\n" + rest + "---\nB\n", "triggers", `the list opened with "[" on this line is never closed with "]"`, 4},
		{"unclosed list, last key", start + rest + "triggers: [unclosed\n---\nB\n", "triggers", `the list opened with "[" on this line is never closed with "]"`, 7},
		{"unclosed list over two lines", start + "triggers: [a,\n  b\n" + rest + "---\nB\n", "triggers", `the list opened with "[" on this line`, 4},
		{"unclosed mapping", start + "triggers: {kind: manual\n" + rest + "---\nB\n", "triggers", `the mapping opened with "{" on this line is never closed with "}"`, 4},
		{"unclosed mapping in a list item", start + "variables:\n  - {name: x\n  - y\n" + rest + "---\nB\n", "variables", `the mapping opened with "{"`, 5},
		{"unclosed list in a nested item", start + rest + "triggers:\n- kind: intent\n  keywords: [a, b\n- kind: manual\n---\nB\n", "triggers", `the list opened with "["`, 9},
		{"unclosed quote", start + "title: \"open\n" + "version: 1\ndescription: D\n---\nB\n", "title", "double-quoted", 4},
		{"colon in a plain value", start + "title: a: b\n" + "version: 1\ndescription: D\n---\nB\n", "title", "not valid YAML", 4},
		{"a line that is no key", start + "version 1\ntitle: T\ndescription: D\n---\nB\n", "", "not valid YAML", 4},
		{"a closing bracket too many", start + "triggers: [a]]\n" + rest + "---\nB\n", "triggers", "not valid YAML", 4},
		{"an empty body does not hide the frontmatter's error", start + "triggers: [x\n---\n", "triggers", `the list opened with "["`, 4},
		{"a key indented with a tab", start + "version: 1\n\ttitle: T\ndescription: D\n---\nB\n", "title", "this line starts with a tab", 5},
		{"a value on a tab-indented line", start + "version: 1\ntitle:\n\tT\ndescription: D\n---\nB\n", "title", "this line starts with a tab", 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fe := parseErr(t, c.text)
			if fe.Line != c.line || fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) || !strings.HasPrefix(fe.Msg, "frontmatter is not valid YAML: ") {
				t.Fatalf("got %v (line %d, field %q), want line %d, field %q, message with %q", fe, fe.Line, fe.Field, c.line, c.field, c.msg)
			}
		})
	}
	// Brackets in a plain value of block context, in quotes, comments and
	// block scalars open nothing.
	text := start + "version: 1 # [c\ntitle: it's [x\ndescription: D\noutputContract: |\n  [ and {\npriority: '4 [b'\nx: a: b\n---\nB\n"
	if fe := parseErr(t, text); fe.Field != "x" || fe.Line != 10 || !strings.Contains(fe.Msg, "mapping value is not allowed") {
		t.Fatalf("brackets in a plain value, a comment, a block scalar and quotes: got %v, want line 10, field x", fe)
	}
}

// A label file's YAML errors are located the same way.
func TestParseLabelsYAMLErrorLineAndField(t *testing.T) {
	_, err := ParseLabels("en-US.yaml", []byte("list.separator: \", \"\nkb.heading: [open\nkb.empty: none\n"))
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 2 || fe.Field != "kb.heading" || !strings.Contains(fe.Msg, `opened with "["`) {
		t.Fatalf("got %v, want line 2, field kb.heading, the open list", err)
	}
}

// A label file missing keys is a whole-file error (no field): it says how
// many are missing and names the first few, not a list of all of them.
func TestParseLabelsMissingKeys(t *testing.T) {
	_, err := ParseLabels("en-US.yaml", []byte("list.separator: \", \"\n"))
	var fe *FileError
	n := len(LabelKeys) - 1
	want := fmt.Sprintf("%d of the %d labels are missing: attachments.none, kb.col.answer, kb.col.chunk, kb.col.created, kb.col.question and %d more (", n, n+1, n-5)
	if !errors.As(err, &fe) || fe.Field != "" || fe.Line != 0 || !strings.HasPrefix(fe.Msg, want) {
		t.Fatalf("got %#v, want no field, no line, message starting %q", err, want)
	}
	_, err = ParseLabels("en-US.yaml", []byte(strings.Replace(labelFile(t, "en-US"), "kb.empty:", "# kb.empty:", 1)))
	if !errors.As(err, &fe) || fe.Field != "" || fe.Msg != fmt.Sprintf("1 of the %d labels is missing: kb.empty (every label key is required)", n+1) {
		t.Fatalf("one key missing: got %v", err)
	}
}

func labelFile(t *testing.T, locale string) string {
	t.Helper()
	data, err := builtinFS.ReadFile("labels/" + locale + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// version and priority are plain decimal: YAML's other spellings of an
// integer (017 is 15, not 17) and quoted numbers are refused.
func TestParseIntegers(t *testing.T) {
	const task = "---\nid: task.a\nlayer: task\nversion: 2\ntitle: T\ndescription: D\npriority: 5\n---\nB\n"
	version := func(v string) string { return strings.Replace(task, "version: 2", "version: "+v, 1) }
	priority := func(v string) string { return strings.Replace(task, "priority: 5", "priority: "+v, 1) }
	for _, c := range []struct {
		text              string
		version, priority int
	}{
		{version("1"), 1, 5},
		{version("10"), 10, 5},
		{version("2147483647"), 2147483647, 5},
		{priority("0"), 2, 0},
		{priority("-0"), 2, 0},
		{priority("-15"), 2, -15},
		{priority("100"), 2, 100},
		{priority("!!int 7"), 2, 7},
		{priority("&p 8"), 2, 8},
	} {
		m := mustParse(t, "task-a.md", c.text)
		if m.Version != c.version || m.Priority != c.priority {
			t.Errorf("%q: version %d priority %d, want %d and %d", c.text, m.Version, m.Priority, c.version, c.priority)
		}
	}
	const how = `; write the number without a leading zero, "+", "_" or a 0x, 0o or 0b prefix`
	for _, c := range []struct{ text, want string }{
		{version("007"), `x.md:4: field version: must be written in plain decimal digits, got "007", which YAML reads as 7` + how},
		{version("2_0"), `x.md:4: field version: must be written in plain decimal digits, got "2_0", which YAML reads as 20` + how},
		{version("+3"), `x.md:4: field version: must be written in plain decimal digits, got "+3", which YAML reads as 3` + how},
		{version("00"), `x.md:4: field version: must be written in plain decimal digits, got "00", which YAML reads as 0` + how},
		{version("1e3"), `x.md:4: field version: must be an integer, got "1e3"`},
		{version("1.10"), `x.md:4: field version: must be an integer, got "1.10"`},
		{version(`"3"`), `x.md:4: field version: must be an integer, got the quoted string "3"; write the number without quotes`},
		{version("'3'"), `x.md:4: field version: must be an integer, got the quoted string "3"; write the number without quotes`},
		{version("!!str 3"), `x.md:4: field version: must be an integer, got a value tagged !!str`},
		{version("0"), `x.md:4: field version: version must be 1 or more`},
		{version("-3"), `x.md:4: field version: version must be 1 or more`},
		{version("2147483648"), `x.md:4: field version: integer out of range`},
		{priority("0x1F"), `x.md:7: field priority: must be written in plain decimal digits, got "0x1F", which YAML reads as 31` + how},
		{priority("0o17"), `x.md:7: field priority: must be written in plain decimal digits, got "0o17", which YAML reads as 15` + how},
		{priority("0b11"), `x.md:7: field priority: must be written in plain decimal digits, got "0b11", which YAML reads as 3` + how},
		{priority("017"), `x.md:7: field priority: must be written in plain decimal digits, got "017", which YAML reads as 15` + how},
		{priority("-017"), `x.md:7: field priority: must be written in plain decimal digits, got "-017", which YAML reads as -15` + how},
		{priority("1_000"), `x.md:7: field priority: must be written in plain decimal digits, got "1_000", which YAML reads as 1000` + how},
		{priority("0.5"), `x.md:7: field priority: must be an integer, got "0.5"`},
	} {
		if fe := parseErr(t, c.text); fe.Error() != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.text, fe, c.want)
		}
	}
}

// A # after a blank starts a YAML comment. After a plain text value on the
// same line it would cut the value short without a word, so it is an
// error; after a name or keyword (id, layer, a variable's name, a
// trigger's kind), which cannot hold a #, and everywhere else it is an
// ordinary comment, and a # that is no comment stays part of the value.
func TestParseCommentAfterPlainValue(t *testing.T) {
	const task = "---\nid: task.a\nlayer: task\nversion: 2\ntitle: T\ndescription: D\n"
	cut := `; quote the value if the # belongs to it (`
	own := `), or put the comment on a line of its own`
	// want is the error, or for a module that loads its description.
	for _, c := range []struct{ name, text, want string }{
		{"no comment", task + "---\nB\n", "D"},
		{"a comment at the key's indentation after a value over two lines", strings.Replace(task, "description: D", "description: Follow-ups for\n  tickets\n# note", 1) + "---\nB\n", "Follow-ups for tickets"},
		{"an indented comment line that reads as more of the value", strings.Replace(task, "description: D", "description: Translate text for ticket\n  #12 and #13", 1) + "---\nB\n",
			`x.md:7: field description: the line "#12 and #13" is indented like more of this value, but YAML reads a line starting with # as a comment, so the value would load as "Translate text for ticket" without it; quote the whole value if the line belongs to it, or indent the comment no deeper than the line the value starts on`},
		{"the reported case", strings.Replace(task, "description: D", "description: Follow-ups for ticket #12 and #13", 1) + "---\nB\n",
			`x.md:6: field description: a # after a blank starts a YAML comment, so this value would load as "Follow-ups for ticket" without "#12 and #13"` + cut + `description: "Follow-ups for ticket #12 and #13"` + own},
		{"a blank and a tab before #", strings.Replace(task, "title: T", "title: Release \t#3", 1) + "---\nB\n",
			`x.md:5: field title: a # after a blank starts a YAML comment, so this value would load as "Release" without "#3"` + cut + `title: "Release \t#3"` + own},
		{"a word YAML reads as a number", strings.Replace(task, "title: T", "title: 3 # of 5", 1) + "---\nB\n",
			`x.md:5: field title: a # after a blank starts a YAML comment, so this value would load as "3" without "# of 5"` + cut + `title: "3 # of 5"` + own},
		{"the last line of a value over two lines", strings.Replace(task, "description: D", "description: Follow-ups for\n  ticket #12", 1) + "---\nB\n",
			`x.md:7: field description: a # after a blank starts a YAML comment, so this value would load as "Follow-ups for ticket" without "#12"` + cut + `description: "Follow-ups for ticket #12"` + own},
		{"a comma list of keywords", task + "triggers:\n- kind: intent\n  keywords: bug, ticket #12\n---\nB\n",
			`x.md:9: field triggers[0].keywords: a # after a blank starts a YAML comment, so this value would load as "bug, ticket" without "#12"` + cut + `keywords: "bug, ticket #12"` + own},
		{"an item of a block list", task + "triggers:\n- kind: intent\n  keywords:\n  - bug\n  - ticket #12\n---\nB\n",
			`x.md:11: field triggers[0].keywords[1]: a # after a blank starts a YAML comment, so this value would load as "ticket" without "#12"` + cut + `"ticket #12"` + own},
		{"a key of a variable", task + "variables:\n- name: a\n  description: the #1 input\n---\n{{a}}\n",
			`x.md:9: field variables[0].description: a # after a blank starts a YAML comment, so this value would load as "the" without "#1 input"` + cut + `description: "the #1 input"` + own},
		{"quotes in the suggestion are escaped", strings.Replace(task, "title: T", `title: say "hi" #now`, 1) + "---\nB\n",
			`x.md:5: field title: a # after a blank starts a YAML comment, so this value would load as "say \"hi\"" without "#now"` + cut + `title: "say \"hi\" #now"` + own},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.HasPrefix(c.want, "x.md:") {
				if m := mustParse(t, "task-a.md", c.text); m.Description != c.want {
					t.Fatalf("description %q, want %q", m.Description, c.want)
				}
				return
			}
			if fe := parseErr(t, c.text); fe.Error() != c.want {
				t.Fatalf("\n got %s\nwant %s", fe, c.want)
			}
		})
	}
	// None of these cuts a value short: they load, with the values shown.
	text := "---\n" +
		"# a comment on a line of its own\n" +
		"id: task.a # <layer>.<name>: a name cannot hold a #\n" +
		"layer: task # nor can a layer\n" +
		"version: 2 # +1 on every wording change\n" +
		"title: \"Tickets #12 and #13\" # after a quoted value\n" +
		"description: 'C# and F#, a#b' # after a single-quoted value\n" +
		"priority: -5 # the larger wins\n" +
		"requiresAttachments: true # a number or true/false cannot hold a #\n" +
		"variables: [name, topic] # after a flow list\n" +
		"outputContract: | # after a block indicator\n" +
		"  # kept: inside a block scalar this is text\n" +
		"  line two\n" +
		"  # an indented comment line\n" +
		"triggers: # after a key with no value on its line\n" +
		"  # between items\n" +
		"- kind: intent # a kind is a keyword\n" +
		"  keywords: C#, F#, issue#7\n" +
		"- kind: command\n" +
		"  command: \"/ticket\" # quoted\n" +
		"---\n{{name}} {{topic}}\n"
	m := mustParse(t, "task-a.md", text)
	want := Frontmatter{
		ID: "task.a", Layer: LayerTask, Version: 2, Title: "Tickets #12 and #13", Description: "C# and F#, a#b",
		Priority: -5, RequiresAttachments: true, Variables: []Variable{{Name: "name"}, {Name: "topic"}},
		OutputContract: "# kept: inside a block scalar this is text\nline two\n# an indented comment line\n",
		Triggers:       []Trigger{{Kind: TriggerIntent, Keywords: []string{"C#", "F#", "issue#7"}}, {Kind: TriggerCommand, Command: "/ticket"}},
	}
	if !reflect.DeepEqual(m.Frontmatter, want) {
		t.Fatalf("got  %+v\nwant %+v", m.Frontmatter, want)
	}
}

// Values written as they are in the frontmatter are held as part of Text,
// not as second copies; a value the YAML decoder changes (folded over
// lines, an escape in quotes) keeps its decoded text.
func TestParseValuesShareText(t *testing.T) {
	m := mustParse(t, "task-x.md", "---\nid: task.x\nlayer: task\nversion: 1\ntitle: \"Summarise minutes\"\n"+
		"description: Turns a meeting transcript into minutes with decisions and owners.\n"+
		"outputContract: \"Line one\\nline two\"\n---\nBody.\n")
	in := func(s string) bool {
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(m.Text)))
		return p >= start && p+uintptr(len(s)) <= start+uintptr(len(m.Text))
	}
	if m.Title != "Summarise minutes" || !in(m.Title) {
		t.Errorf("title %q: not a substring of Text", m.Title)
	}
	if m.Description != "Turns a meeting transcript into minutes with decisions and owners." || !in(m.Description) {
		t.Errorf("description %q: not a substring of Text", m.Description)
	}
	if m.ID != "task.x" || !in(m.ID) {
		t.Errorf("id %q: not a substring of Text", m.ID)
	}
	if m.OutputContract != "Line one\nline two" || in(m.OutputContract) {
		t.Errorf("outputContract %q: want the decoded escape, a string of its own", m.OutputContract)
	}
}

// Conflict markers shown in a fenced code block are an example (how to
// resolve a merge), not an unresolved merge; outside a block they are.
func TestParseConflictMarkersInCode(t *testing.T) {
	head := "---\nid: task.merge\nlayer: task\nversion: 1\ntitle: Merge\ndescription: d\n---\n"
	shown := "Resolve:\n```\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> feature\n```\n"
	if m := mustParse(t, "x.md", head+shown); !strings.Contains(m.Body, "<<<<<<< HEAD") {
		t.Errorf("body lost the example: %q", m.Body)
	}
	fe := parseErr(t, head+shown+"<<<<<<< HEAD\nc\n=======\nd\n>>>>>>> feature\n")
	if fe.Line != 16 || !strings.Contains(fe.Msg, "lines 16, 18 and 20") {
		t.Errorf("markers outside the block: line %d %q, want line 16 naming lines 16, 18 and 20", fe.Line, fe.Msg)
	}
	// promptdesk's own merge markers in a block are a conflict of two
	// edits of that block, not an example.
	fe = parseErr(t, head+"```json\n<<<<<<< yours\n{\"a\": 1}\n=======\n{\"a\": 2}\n>>>>>>> theirs\n```\n")
	if fe.Line != 9 || !strings.Contains(fe.Msg, "lines 9 and 13") {
		t.Errorf("own markers in a block: line %d %q, want line 9 naming lines 9 and 13", fe.Line, fe.Msg)
	}
}

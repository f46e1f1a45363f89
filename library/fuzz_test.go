package library_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

// fuzzHead is a valid frontmatter without the closing fence.
const fuzzHead = "---\nid: base.a\nlayer: base\nversion: 1\ntitle: T\ndescription: D\n"

// fuzzParseSeeds are hand-written edge cases of the module format and its
// placeholders, added to the
// builtin module files.
func fuzzParseSeeds() []string {
	task := "---\nid: task.a\nlayer: task\nversion: 2\ntitle: T\ndescription: D\npriority: 5\nrequiresAttachments: true\n"
	return []string{
		"",
		"---",
		"---\n",
		"---\n---\n",
		"---\n---\nBody\n",
		fuzzHead + "---\nBody\n",
		// BOM and CRLF.
		"\uFEFF" + strings.ReplaceAll(fuzzHead+"variables: [name]\n---\nHello {{name}}\n", "\n", "\r\n"),
		"\uFEFF\uFEFF" + fuzzHead + "---\nB\n",
		fuzzHead + "---\r\nB\rC\r\n",
		// Fences.
		fuzzHead + "Body without a closing fence\n",
		fuzzHead + "----\nB\n",
		fuzzHead + "---x\nB\n",
		fuzzHead + "--- \t\r\nB\n",
		fuzzHead + "---\n---\nafter a rule\n---\n",
		fuzzHead + "---",
		fuzzHead + "---\n",
		fuzzHead + "---\n  \n",
		// YAML typing.
		strings.Replace(fuzzHead, "version: 1", "version: 1.10", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "version: 1", "version: \"1\"", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "version: 1", "version: 0x10", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "version: 1", "version: 99999999999999999999999", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "version: 1", "version: -1", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "title: T", "title: no", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "title: T", "title: ~", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "title: T", "title: .inf", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "title: T", "title: !!binary aGVsbG8=", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "title: T", "title: !!str 12", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "title: T", "title: |\n  multi\n  line", 1) + "---\nB\n",
		fuzzHead + "requiresAttachments: no\n---\nB\n",
		// Anchors, aliases and merge keys.
		strings.Replace(fuzzHead, "title: T\ndescription: D", "title: &t Hello\ndescription: *t", 1) + "---\nB\n",
		"---\nbase: &b {id: base.a, layer: base}\n<<: *b\nversion: 1\ntitle: T\ndescription: D\n---\nB\n",
		task + "triggers: &tr\n- kind: manual\n---\nB\n",
		task + "triggers:\n- &k {kind: intent, keywords: a}\n- *k\n---\nB\n",
		task + "triggers:\n- kind: intent\n  keywords: &kw [a, b]\n- kind: attachment\n  keywords: *kw\n---\nB\n",
		"---\na: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\n---\nB\n",
		strings.Replace(fuzzHead, "title: T", "title: *undefined", 1) + "---\nB\n",
		// Huge and odd keys.
		fuzzHead + strings.Repeat("k", 20000) + ": v\n---\nB\n",
		fuzzHead + "? complex\n: key\n---\nB\n",
		fuzzHead + "? [a, b]\n: v\n---\nB\n",
		fuzzHead + "\"quoted\\u0000key\": v\n---\nB\n",
		fuzzHead + "title: again\n---\nB\n",
		fuzzHead + "colour: red\n---\nB\n",
		"---\n{id: base.a, layer: base, version: 1, title: T, description: D}\n---\nB\n",
		"---\n[id, layer]\n---\nB\n",
		"---\n- a\n- b\n---\nB\n",
		"---\njust a scalar\n---\nB\n",
		"---\n# only a comment\n---\nB\n",
		"---\nid: base.a\n...\n---\nB\n",
		"---\nid: base.a\n--- \nlayer: base\n---\nB\n",
		"---\n\tid: base.a\n---\nB\n",
		"---\nid: [" + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "]\n---\nB\n",
		"---\nid: " + strings.Repeat("{a: ", 100) + "x" + strings.Repeat("}", 100) + "\n---\nB\n",
		"---\nid: \"unterminated\n---\nB\n",
		"---\nid: 'a''b'\n---\nB\n",
		"---\nid: base.a\x00\n---\nB\n",
		// Variables, triggers and placeholders.
		fuzzHead + "variables: [a, {name: b, escape: xml}, {name: c, description: see}]\n---\n{{a}} {{b}} \\{{c}} {{ c }} {{1}} {\"a\": 1} {{c}}\n",
		fuzzHead + "variables: [{name: x, escape: html}]\n---\n{{x}}\n",
		fuzzHead + "variables: [date]\n---\nB\n",
		fuzzHead + "variables: [a, a]\n---\n{{a}}\n",
		fuzzHead + "variables: [A]\n---\nB\n",
		fuzzHead + "variables: a\n---\nB\n",
		fuzzHead + "variables: [{name: a, extra: 1}]\n---\nB\n",
		fuzzHead + "---\ntoday is {{date}}\n",
		"---\nid: env.a\nlayer: env\nversion: 1\ntitle: T\ndescription: D\n---\n{{date}} {{weekday}} {{current_time}} {{model}} {{attachments}}\n",
		fuzzHead + "---\n{{knowledge_bases}}{{skills}}{{task.doc-minutes}}{{a.b-c_d}}\n",
		task + "triggers:\n- kind: intent\n  keywords: 纪要，会议记录、notes\n- kind: command\n  command: /minutes\n- kind: attachment\n- kind: manual\n---\nB\n",
		task + "triggers:\n- kind: command\n  command: minutes\n---\nB\n",
		task + "triggers:\n- kind: command\n  command: /a b\n---\nB\n",
		task + "triggers:\n- kind: regex\n---\nB\n",
		task + "triggers:\n- {}\n---\nB\n",
		task + "triggers: [manual]\n---\nB\n",
		task + "triggers:\n- kind: intent\n  keywords: [[a]]\n---\nB\n",
		fuzzHead + "triggers:\n- kind: manual\n---\nB\n",
		fuzzHead + "priority: 3\n---\nB\n",
		fuzzHead + "description: \"two\\nlines\"\n---\nB\n",
		strings.Replace(fuzzHead, "base.a", "base.A", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "layer: base", "layer: env", 1) + "---\nB\n",
		strings.Replace(fuzzHead, "layer: base", "layer: core", 1) + "---\nB\n",
		fuzzHead + "---\nfine\nbad \xff\xfe here\n",
		fuzzHead + "---\n" + strings.Repeat("x", library.MaxModuleBytes),
	}
}

// FuzzParse checks the module parser: it never panics; an error is a
// *library.FileError naming the file, with a line ≥ 0, matching
// library.ErrInvalid; a module that parses parses again from its own
// normalised text to an equal module, and its placeholders have valid
// names.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("modules", "*", "*.md"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no builtin module files under modules/*/*.md (err %v)", err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range fuzzParseSeeds() {
		f.Add([]byte(s))
	}

	const file = "modules/en-US/fuzz.md"
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := library.Parse(file, data)
		if err != nil {
			var fe *library.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not a *library.FileError", err, err)
			}
			if fe.File != file {
				t.Fatalf("error %v names file %q, want %q", err, fe.File, file)
			}
			if fe.Line < 0 {
				t.Fatalf("error %v has line %d < 0", err, fe.Line)
			}
			if fe.Msg == "" {
				t.Fatalf("error %v has no message", err)
			}
			if !errors.Is(err, library.ErrInvalid) {
				t.Fatalf("error %v does not match library.ErrInvalid", err)
			}
			return
		}
		if m == nil {
			t.Fatal("Parse returned neither a module nor an error")
		}
		for _, p := range m.Placeholders {
			if !library.ValidPlaceholderName(p.Name) {
				t.Fatalf("placeholder %q is not a valid name", p.Name)
			}
			if p.Line < 1 {
				t.Fatalf("placeholder %q at line %d < 1", p.Name, p.Line)
			}
		}
		for _, v := range m.Variables {
			if !library.ValidPlaceholderName(v.Name) {
				t.Fatalf("variable %q is not a valid name", v.Name)
			}
		}
		again, err := library.Parse(file, []byte(m.Text))
		if err != nil {
			t.Fatalf("the module parses from the input but not from its own text m.Text:\ninput  %q\nm.Text %q\nerror  %v", data, m.Text, err)
		}
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("round trip through m.Text changes the module:\ninput %q\n%s", data, moduleDiff(m, again))
		}
	})
}

// moduleDiff lists the exported fields that differ between two modules.
func moduleDiff(a, b *library.Module) string {
	var out strings.Builder
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := 0; i < va.NumField(); i++ {
		f := va.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		x, y := va.Field(i).Interface(), vb.Field(i).Interface()
		if !reflect.DeepEqual(x, y) {
			fmt.Fprintf(&out, "%s: %#v\n  then %#v\n", f.Name, x, y)
		}
	}
	if out.Len() == 0 {
		return "(only unexported fields differ)"
	}
	return out.String()
}

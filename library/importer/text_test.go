package importer

import (
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

// rendered is what library.Scan makes of a text with no placeholders.
func literalOf(pieces []library.Piece) (string, bool) {
	var b strings.Builder
	for _, p := range pieces {
		if p.Name != "" {
			return "", false
		}
		b.WriteString(p.Literal)
	}
	return b.String(), true
}

// escapeLiteral's output scans back to exactly its input, as literal text.
func FuzzEscapeLiteral(f *testing.F) {
	for _, s := range []string{
		"plain", "{{name}}", `\{{name}}`, `\\{{name}}`, "{{{name}}}", "{{{{name}}}}", "{{ name }}", "{{Name}}",
		`{"a": {"b": 1}}`, "{{a}}{{b}}", "{{a.b-c_d}}", "{{1}}", "{{", "}}", `end\`, "{{a}", "x{{_}}y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := 0
		out := escapeLiteral(s, &n)
		got, ok := literalOf(library.Scan(out))
		if !ok || got != s {
			t.Errorf("escapeLiteral(%q) = %q scans as %q (literal only: %v)", s, out, got, ok)
		}
	})
}

func TestBodyRefusesBackslashBeforePlaceholder(t *testing.T) {
	var w body
	w.text(`path C:\`)
	if w.placeholder("dir") {
		t.Errorf("a placeholder after a backslash was accepted: %q", w.String())
	}
	var ok body
	ok.text("say {{hi}} to ")
	if !ok.placeholder("name") || ok.String() != `say \{{hi}} to {{name}}` || ok.escaped != 1 {
		t.Errorf("got %q, %d escaped", ok.String(), ok.escaped)
	}
}

// TestParsePyFormat checks the MaiBot reading of a template against what
// MaiBot's engine (brace swap, then str.format) does with it: the
// expectations were taken from MaiBot's rendering code run on each text.
func TestParsePyFormat(t *testing.T) {
	const fails, noEquivalent = "MaiBot's own engine fails on it", "MaiBot renders it, but the module format has no equivalent"
	for _, c := range []struct {
		text string
		want string // the pieces (L:literal, F:field), or the problem
		line int    // of the problem
		// engineFails: the problem is text MaiBot's engine fails on, not
		// a field without an equivalent.
		engineFails bool
	}{
		{"a {{b}} {c}\n{{{{d}}}} }}{{", "L:a {b} |F:c|L:\n{{d}} }{", 0, false},
		{"{x}\uFDE9\uFDEA", "F:x|L:{}", 0, false},
		{"A {{{name}}} B", `field {{{name}}}: MaiBot turns {{ and }} into literal braces before it reads fields, so this field's name, "name}", holds a brace: ` + fails, 1, true},
		{"x\n{name}}}", `field {name}}}: MaiBot turns {{ and }} into literal braces before it reads fields, so this field's name, "name}", holds a brace: ` + fails, 2, true},
		{"{{{{{x}}}}}", `field {{{x}}}}}: MaiBot turns {{ and }} into literal braces before it reads fields, so this field's name, "x}}", holds a brace: ` + fails, 1, true},
		{"a } b", "a single }: " + fails + " (str.format stops at a single }; }} is a literal brace)", 1, true},
		{"{{}", "a single }: " + fails, 1, true},
		{"}}}", "a single }: " + fails, 1, true},
		{"{a}}", "a { that is never closed: " + fails + " ({{ is a literal brace)", 1, true},
		{"ok\n{never closed", "a { that is never closed: " + fails, 2, true},
		{"{a:{b}}", "a { that is never closed: " + fails, 1, true},
		{"{a{b}}", "a { that is never closed: " + fails, 1, true},
		{"{}", "field {}: an unnamed field: " + fails + " (it refuses to load a template that has one)", 1, true},
		{"{0}", "field {0}: a positional field: " + fails + " (it passes values by name only)", 1, true},
		{"{:>4}", "field {:>4}: a positional field: " + fails, 1, true},
		{"{a.b}", "field {a.b}: attribute or index access: " + fails + " (it looks the whole field up as one name)", 1, true},
		{"{a[0]}", "field {a[0]}: attribute or index access: " + fails, 1, true},
		{"{a{b} }", "field {a{b} }: a { inside the field's name: " + fails, 1, true},
		{"{a!x}", "field {a!x}: the conversion !x is not one of !r, !s, !a: " + fails, 1, true},
		{"{a!}", "field {a!}: the conversion ! is not one of !r, !s, !a: " + fails, 1, true},
		{"{a!rr}", "field {a!rr}: the conversion !rr is not one of !r, !s, !a: " + fails, 1, true},
		{"{a!r}", "field {a!r}: a conversion (!r, !s, !a): " + noEquivalent, 1, false},
		{"{a!r:>4}", "field {a!r:>4}: a conversion (!r, !s, !a): " + noEquivalent, 1, false},
		{"{a:>4}", "field {a:>4}: a format spec: " + noEquivalent, 1, false},
		{"{Name}", "field {Name}: not a placeholder name ([a-z_][a-z0-9_.-]*): " + noEquivalent, 1, false},
	} {
		pieces, failed, noEq := parsePyFormat(c.text)
		problems := noEq
		if c.engineFails {
			problems = failed
		}
		if c.line == 0 {
			var parts []string
			for _, p := range pieces {
				if p.field != "" {
					parts = append(parts, "F:"+p.field)
				} else {
					parts = append(parts, "L:"+p.lit)
				}
			}
			if got := strings.Join(parts, "|"); got != c.want || len(failed)+len(noEq) > 0 {
				t.Errorf("%q: pieces %q, problems %v %v; want %q", c.text, got, failed, noEq, c.want)
			}
			continue
		}
		if len(problems) != 1 || len(failed)+len(noEq) != 1 || problems[0].Line != c.line || !strings.HasPrefix(problems[0].Msg, c.want) {
			t.Errorf("%q: engine fails %v, no equivalent %v; want one %s on line %d: %q", c.text, failed, noEq, map[bool]string{true: "engine failure", false: "without an equivalent"}[c.engineFails], c.line, c.want)
		}
	}
}

func TestDetectLocale(t *testing.T) {
	for text, want := range map[string]string{
		"Summarise the thread for the team.":                                                           "en-US",
		"请用三句话总结这段对话，并列出待办事项。":                                                                         "zh-CN",
		"このスレッドを三文で要約してください。":                                                                          "ja-JP",
		"이 대화를 세 문장으로 요약하세요.":                                                                          "ko-KR",
		"Rewrite the question so that it stands alone, keeping every name and term. Examples: 你好, 谢谢.": "en-US",
		"调用 search_memory 与 fetch_history 两个工具，交叉验证后给出结论。":                                             "zh-CN",
		"": "en-US",
	} {
		if got := detectLocale(text); got != want {
			t.Errorf("detectLocale(%q) = %s, want %s", text, got, want)
		}
	}
}

func TestModuleNameAndVariable(t *testing.T) {
	for raw, want := range map[string]string{"release-writer": "release-writer", "Release Writer": "release-writer", "Sub_Agent": "sub_agent", "--x--": "x",
		"Ünï côde": "uni-code", "a -- b": "a-b", "Café Menu": "cafe-menu", "Ærø": "aero", "日本 notes": "ri-ben-notes", "v1.2 beta": "v1.2-beta"} {
		if got, ok := moduleName(raw); !ok || got != want {
			t.Errorf("moduleName(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	if _, ok := moduleName("!!! ???"); ok {
		t.Errorf("a name without letters or digits was accepted")
	}
	if v, note, ok := variable("model"); !ok || v != "model_value" || !strings.Contains(note, "environment value") {
		t.Errorf("variable(model) = %q, %q, %v", v, note, ok)
	}
	if _, _, ok := variable("Name"); ok {
		t.Errorf("an uppercase variable was accepted")
	}
}

func TestFirstLine(t *testing.T) {
	for text, want := range map[string]string{
		"ROLE\n=====\n\nYou plan the work.":             "You plan the work.",
		"<note id=\"{{id}}\">\nKeep it short.\n</note>": "Keep it short.",
		"## Role\nYou review code.":                     "You review code.",
		"为以下意图生成标题：":                                    "为以下意图生成标题：",
		"ONE\nTWO":                                      "",
	} {
		if got := firstLine(text); got != want {
			t.Errorf("firstLine(%q) = %q, want %q", text, got, want)
		}
	}
}

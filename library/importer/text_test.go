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

func TestParsePyFormat(t *testing.T) {
	pieces, problems := parsePyFormat("a {{b}} {c}\n{{{{d}}}} }}{{")
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	var got []string
	for _, p := range pieces {
		if p.field != "" {
			got = append(got, "F:"+p.field)
		} else {
			got = append(got, "L:"+p.lit)
		}
	}
	if want := []string{"L:a {b} ", "F:c", "L:\n{{d}} }{"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pieces %q, want %q", got, want)
	}
	if pieces[1].line != 1 {
		t.Errorf("line %d", pieces[1].line)
	}
	_, problems = parsePyFormat("ok\n{never closed")
	if len(problems) != 1 || problems[0].Line != 2 || !strings.Contains(problems[0].Msg, "never closed") {
		t.Errorf("problems %v", problems)
	}
	_, problems = parsePyFormat("{Name} {}")
	if len(problems) != 2 || !strings.Contains(problems[0].Msg, "not a placeholder name") || !strings.Contains(problems[1].Msg, "positional") {
		t.Errorf("problems %v", problems)
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

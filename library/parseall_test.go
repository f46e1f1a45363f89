package library

import (
	"fmt"
	"strings"
	"testing"
)

// ParseAll reports every field, item and body error of a text at once,
// each with its line and field, in the order Parse meets them; the
// fields that parsed are kept.
func TestParseAllReportsEveryError(t *testing.T) {
	text := strings.Join([]string{
		"---",                              // 1
		"id: task.a",                       // 2
		"layer: task",                      // 3
		"version: 1.10",                    // 4
		"title: T",                         // 5
		"colour: red",                      // 6
		"variables:",                       // 7
		"- topic",                          // 8
		"- {name: x, escape: html}",        // 9
		"- date",                           // 10
		"triggers:",                        // 11
		"- kind: regex",                    // 12
		"- kind: command",                  // 13
		"  command: minutes",               // 14
		"- kind: manual",                   // 15
		"---",                              // 16
		"Write about {{topic}}.",           // 17
		"Today is {{date}}, on {{model}}.", // 18
		"",
	}, "\n")
	m, errs := ParseAll("x.md", []byte(text))
	if m == nil {
		t.Fatalf("no module: %v", errs)
	}
	want := []string{
		"4 version must be an integer, got \"1.10\"",
		"6 colour unknown field",
		"9 variables[1].escape unknown escape \"html\"",
		"10 variables[2].name \"date\" is an environment value",
		"12 triggers[0].kind unknown trigger kind \"regex\"",
		"13 triggers[1].command a command trigger needs a command like /minutes",
		"1 description missing required field description",
		"18  placeholder {{date}} may be used only in env modules",
		"18  placeholder {{model}} may be used only in env modules",
	}
	if len(errs) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(errs), len(want), errs)
	}
	for i, e := range errs {
		got := fmt.Sprintf("%d %s %s", e.Line, e.Field, e.Msg)
		if !strings.HasPrefix(got, want[i]) {
			t.Errorf("error %d: %q, want it to start with %q", i, got, want[i])
		}
	}
	// What parsed is kept: the good variable and the good trigger.
	if len(m.Variables) != 1 || m.Variables[0].Name != "topic" || len(m.Triggers) != 1 || m.Triggers[0].Kind != TriggerManual || m.ID != "task.a" || m.Layer != LayerTask {
		t.Errorf("module kept %+v %+v %q %q", m.Variables, m.Triggers, m.ID, m.Layer)
	}
	// Parse reports the first of them, as it always did.
	if _, err := Parse("x.md", []byte(text)); err == nil || err.Error() != errs[0].Error() {
		t.Errorf("Parse: %v, want %v", err, errs[0])
	}
	if !errs.Has("variables") || !errs.Has("triggers") || errs.Has("title") || errs.Has("var") {
		t.Error("FileErrors.Has matches the wrong fields")
	}
}

// A rule joining fields is not applied to a field that failed or is
// missing, so a broken field does not bring a second, made-up error; the
// rules of the fields that parsed still run.
func TestParseAllSkipsRulesOfBrokenFields(t *testing.T) {
	text := "---\nid: base.a\nlayer: [base]\nversion: 0\ntitle: T\ndescription: D\npriority: 3\n---\nB {{date}}\n"
	_, errs := ParseAll("x.md", []byte(text))
	var got []string
	for _, e := range errs {
		got = append(got, fmt.Sprintf("%d %s", e.Line, e.Field))
	}
	// layer is not a string; version < 1 is still found; neither the
	// id/layer rule, the priority rule nor the env-only rule can judge
	// without a layer.
	if want := []string{"3 layer", "4 version"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("errors %v, want %v: %v", got, want, errs)
	}
	// A text that cannot be read as a module gives no module and one error.
	if m, errs := ParseAll("x.md", []byte("---\nid: [\n---\nB\n")); m != nil || len(errs) != 1 || errs[0].Line != 2 {
		t.Errorf("broken YAML: module %v, errors %v", m != nil, errs)
	}
	if m, errs := ParseAll("x.md", []byte(head+"---\nB\n")); m == nil || len(errs) != 0 {
		t.Errorf("a good text: %v", errs)
	}
}

// The keys and kinds the editor completes are the ones the parser takes:
// a module using every one parses, and a key outside them does not.
func TestFieldDocsMatchTheParser(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\n")
	values := map[string]string{"id": "task.a", "layer": "task", "version": "1", "title": "T", "description": "D", "priority": "1",
		"requiresAttachments": "true", "outputContract": "O", "variables": "", "triggers": "",
		"upstream": "{source: claude-code, name: 'Tool Description: Bash', version: 2.1.240}"}
	for _, f := range Fields {
		v, ok := values[f.Name]
		if !ok {
			t.Fatalf("no test value for field %s", f.Name)
		}
		fmt.Fprintf(&b, "%s: %s\n", f.Name, v)
		if f.Name == "variables" {
			b.WriteString("- ")
			for i, vf := range VariableFields {
				val := map[string]string{"name": "x", "escape": "xml", "description": "d"}[vf.Name]
				if i > 0 {
					b.WriteString("  ")
				}
				fmt.Fprintf(&b, "%s: %s\n", vf.Name, val)
			}
		}
		if f.Name == "triggers" {
			for _, k := range TriggerKinds {
				fmt.Fprintf(&b, "- kind: %s\n", k.Name)
				switch TriggerKind(k.Name) {
				case TriggerIntent, TriggerAttachment:
					b.WriteString("  keywords: a, b\n")
				case TriggerCommand:
					b.WriteString("  command: /a\n")
				}
			}
		}
	}
	b.WriteString("---\nUse {{x}}.\n")
	m, errs := ParseAll("task-a.md", []byte(b.String()))
	if len(errs) > 0 {
		t.Fatalf("%v\n%s", errs, b.String())
	}
	if len(m.Triggers) != len(TriggerKinds) || len(m.Variables) != 1 || m.Variables[0].Escape != "xml" {
		t.Errorf("triggers %v, variables %v", m.Triggers, m.Variables)
	}
	var keys, fields, kinds []string
	for _, f := range Fields {
		keys = append(keys, f.Name)
	}
	for _, f := range TriggerFields {
		fields = append(fields, f.Name)
	}
	for _, f := range TriggerKinds {
		kinds = append(kinds, f.Name)
	}
	// The parser's messages list the allowed names; the docs name the same.
	if _, errs := ParseAll("x.md", []byte(head+"colour: red\n---\nB\n")); len(errs) != 1 || !strings.Contains(errs[0].Msg, "allowed: "+strings.Join(keys, ", ")) {
		t.Errorf("unknown field: %v, want allowed: %v", errs, keys)
	}
	task := strings.Replace(head, "base", "task", 2)
	if _, errs := ParseAll("x.md", []byte(task+"triggers:\n- kind: regex\n  colour: red\n---\nB\n")); len(errs) != 1 || !strings.Contains(errs[0].Msg, "allowed: "+strings.Join(fields, ", ")) {
		t.Errorf("unknown trigger field: %v, want allowed: %v", errs, fields)
	}
	if _, errs := ParseAll("x.md", []byte(task+"triggers:\n- kind: regex\n---\nB\n")); len(errs) != 1 || !strings.Contains(errs[0].Msg, "allowed: "+strings.Join(kinds, ", ")) {
		t.Errorf("unknown trigger kind: %v, want allowed: %v", errs, kinds)
	}
}

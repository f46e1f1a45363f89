package state_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/state"
)

// Check reports every error of a text at once, each with its line: the
// fields that do not parse, the unknown placeholders and the id, so the
// editor shows them all before a save.
func TestCheckReportsEveryErrorAtOnce(t *testing.T) {
	t.Parallel()
	s := newService(t)
	m, _ := s.lib.Module("task.doc-minutes", "en-US")
	text := strings.Replace(m.Text, "version: 1\n", "version: one\n", 1)
	text = strings.Replace(text, "priority: 70\n", "priority: 70\ncolour: red\n", 1)
	text = strings.Replace(text, "  command: /minutes\n", "  command: minutes\n", 1)
	body := strings.Count(text[:strings.Index(text, "\n---\n")+5], "\n") + 1 // the body's first line
	text = strings.Replace(text, "\n---\nYou are", "\n---\nSee {{nope}}.\nYou are", 1) + "\nAnd {{aux.missing}} too.\n"
	last := strings.Count(text, "\n")

	out := s.Check("task.doc-minutes", "en-US", text)
	if out.Kind != state.OutcomeInvalid || out.Module != nil {
		t.Fatalf("kind %q", out.Kind)
	}
	var got []string
	for _, e := range out.Errors {
		got = append(got, fmt.Sprintf("%d %s", e.Line, e.Field))
	}
	want := []string{"4 version", "8 colour", "25 triggers[1].command", fmt.Sprintf("%d body", body), fmt.Sprintf("%d body", last)}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("errors at %v, want %v:\n%v", got, want, out.Errors)
	}
	if !strings.Contains(out.Errors[3].Msg, "unknown placeholder {{nope}}") || !strings.Contains(out.Errors[4].Msg, "{{aux.missing}}") {
		t.Errorf("placeholder errors %q, %q", out.Errors[3].Msg, out.Errors[4].Msg)
	}
	if len(out.Warnings) != 0 {
		t.Errorf("a text whose fields do not parse has no checklist run, got %v", out.Warnings)
	}

	// Every field parses: the id and a placeholder are wrong, and the
	// checklist runs on the text (its first sentence lost its role).
	text = strings.Replace(m.Text, "id: task.doc-minutes\n", "id: task.doc-minutes-2\n", 1)
	text = strings.Replace(text, "You are the minutes writer for this workspace: you turn", "Turn {{nope}} and", 1)
	out = s.Check("task.doc-minutes", "en-US", text)
	got = nil
	for _, e := range out.Errors {
		got = append(got, fmt.Sprintf("%d %s", e.Line, e.Field))
	}
	if want := []string{"2 id", "27 body"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("errors at %v, want %v:\n%v", got, want, out.Errors)
	}
	if len(out.Warnings) == 0 || out.Warnings[0].Rule != "1" {
		t.Errorf("checklist warnings %v, want rule 1 first", out.Warnings)
	}
	if _, err := s.st.GetOverride(s.ctx, "task.doc-minutes", "en-US"); err == nil {
		t.Error("Check stored an override")
	}
}

// Conflict markers left in a text, in the frontmatter, the body or
// around the closing fence, are one error at the first marker line naming
// them all, not the YAML or placeholder errors they would cause.
func TestCheckConflictMarkersAreOneError(t *testing.T) {
	t.Parallel()
	s := newService(t)
	m, _ := s.lib.Module("task.doc-minutes", "en-US")
	for _, c := range []struct {
		name, text string
		line       int
		lines      string
	}{
		{"frontmatter", strings.Replace(m.Text, "version: 1\n", "<<<<<<< mine\nversion: 2\n=======\nversion: 3\n>>>>>>> theirs\n", 1), 4, "lines 4, 6 and 8"},
		{"body", strings.Replace(m.Text, "## Source\n", "<<<<<<< yours\n## Source {{nope}}\n=======\n## Sources\n>>>>>>> theirs\n", 1), 29, "lines 29, 31 and 33"},
		{"fence", strings.Replace(m.Text, "\n---\nYou", "\n<<<<<<< a\n---\n=======\npriority: 3\n---\n>>>>>>> b\nYou", 1), 26, "lines 26, 28 and 31"},
	} {
		out := s.Check("task.doc-minutes", "en-US", c.text)
		if out.Kind != state.OutcomeInvalid || len(out.Errors) != 1 {
			t.Fatalf("%s: %s with %d errors, want one: %+v", c.name, out.Kind, len(out.Errors), out.Errors)
		}
		e := out.Errors[0]
		want := "unresolved merge: conflict markers (<<<<<<<, =======, >>>>>>>) at " + c.lines + "; keep the text you want and remove the marker lines"
		if e.Line != c.line || e.Msg != want {
			t.Errorf("%s: line %d %q, want line %d %q", c.name, e.Line, e.Msg, c.line, want)
		}
	}
}

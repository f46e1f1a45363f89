package assembler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// TestMessagesAreTheText: for every example request, the messages form is
// byte for byte the text form: one system message is the text, and the
// per-segment messages are the segments, joined with a blank line the
// text; the rest of the answer does not change.
func TestMessagesAreTheText(t *testing.T) {
	snap, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatal(err)
	}
	a := assembler.New(assembler.Config{})
	now := time.Date(2026, 11, 29, 15, 45, 0, 0, time.UTC)
	for _, ex := range examples {
		req, err := assembler.DecodeRequest(ex.Request)
		if err != nil {
			t.Fatalf("%s: %v", ex.ID, err)
		}
		text, err := a.Assemble(snap, nil, req, now)
		if err != nil {
			t.Fatalf("%s: %v", ex.ID, err)
		}
		req.Format = assembler.FormatMessages
		one, err := a.Assemble(snap, nil, req, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(one.Messages) != 1 || one.Messages[0] != (assembler.Message{Role: "system", Content: text.Text}) || one.Text != text.Text {
			t.Errorf("%s: one system message %.80v, want the text", ex.ID, one.Messages)
		}
		req.SystemMessages = assembler.SystemMessagesPerSegment
		per, err := a.Assemble(snap, nil, req, now)
		if err != nil {
			t.Fatal(err)
		}
		var contents []string
		for i, m := range per.Messages {
			if m.Role != assembler.RoleSystem || m.Content != text.Segments[i].Text {
				t.Errorf("%s: message %d is not segment %s", ex.ID, i, text.Segments[i].Layer)
			}
			contents = append(contents, m.Content)
		}
		if len(per.Messages) != len(text.Segments) || strings.Join(contents, "\n\n") != text.Text {
			t.Errorf("%s: %d per-segment messages for %d segments, joined equal to the text: %v", ex.ID, len(per.Messages), len(text.Segments), strings.Join(contents, "\n\n") == text.Text)
		}
	}
}

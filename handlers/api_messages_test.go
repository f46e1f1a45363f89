package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
)

// TestAPIMessages: "format": "messages" adds the chat messages, byte for
// byte the text: one system message, or one per segment that joined with
// a blank line are the text.
func TestAPIMessages(t *testing.T) {
	t.Parallel()
	a := setup(t)
	req := `{"message":"/minutes please","locale":"zh-CN","skills":[{"name":"pdf","description":"reads PDFs"}],"knowledgeBases":[{"id":"kb1","name":"Docs","type":"document","docCount":1}]`
	plain := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", req+`}`))
	if len(plain.Messages) != 0 || len(plain.Segments) < 2 {
		t.Fatalf("text form: %d messages, %d segments; want none and several", len(plain.Messages), len(plain.Segments))
	}

	one := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", req+`,"format":"messages"}`))
	if len(one.Messages) != 1 || one.Messages[0].Role != "system" || one.Messages[0].Content != plain.Text || one.Text != plain.Text {
		t.Errorf("one system message: %+v, want the text %.80q", one.Messages, plain.Text)
	}
	per := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", req+`,"format":"messages","systemMessages":"per-segment"}`))
	if len(per.Messages) != len(plain.Segments) {
		t.Fatalf("per-segment: %d messages for %d segments", len(per.Messages), len(plain.Segments))
	}
	contents := make([]string, len(per.Messages))
	for i, m := range per.Messages {
		if m.Role != "system" || m.Content != plain.Segments[i].Text {
			t.Errorf("message %d: %s %.60q, want system and segment %s", i, m.Role, m.Content, plain.Segments[i].Layer)
		}
		contents[i] = m.Content
	}
	if joined := strings.Join(contents, "\n\n"); joined != plain.Text {
		t.Errorf("the per-segment messages joined with a blank line differ from the text:\n%q\n%q", joined, plain.Text)
	}

	r := decode[assembler.Rendered](t, a.api(http.MethodPost, "/api/v1/render", `{"module":"aux.title-gen","variables":{"conversation":"hi"},"format":"messages"}`))
	if len(r.Messages) != 1 || r.Messages[0].Role != "system" || r.Messages[0].Content != r.Text || r.Text == "" {
		t.Errorf("render messages: %+v, text %.60q", r.Messages, r.Text)
	}

	wantError(t, "bad format", a.api(http.MethodPost, "/api/v1/assemble", `{"format":"chat"}`), http.StatusUnprocessableEntity, "invalid_request", "format", "text or messages")
	wantError(t, "bad split", a.api(http.MethodPost, "/api/v1/assemble", `{"format":"messages","systemMessages":"two"}`), http.StatusUnprocessableEntity, "invalid_request", "systemMessages")
	wantError(t, "bad render format", a.api(http.MethodPost, "/api/v1/render", `{"module":"aux.title-gen","variables":{"conversation":"hi"},"format":"xml"}`), http.StatusUnprocessableEntity, "invalid_request", "format")
}

package assembler

import (
	"fmt"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// Answer formats of assemble and render (Request.Format).
const (
	// FormatText is the default: the text and segments only.
	FormatText = "text"
	// FormatMessages adds the chat messages a runtime sends to a model
	// (Result.Messages, Rendered.Messages).
	FormatMessages = "messages"
)

// How FormatMessages splits an assembly into system messages
// (Request.SystemMessages).
const (
	// SystemMessagesOne is the default: one system message holding the
	// whole text.
	SystemMessagesOne = "one"
	// SystemMessagesPerSegment is one system message per segment; joined
	// with a blank line ("\n\n") they are the text.
	SystemMessagesPerSegment = "per-segment"
)

// RoleSystem is the role of every message promptdesk answers.
const RoleSystem = "system"

// Message is one chat message: {"role":"system","content":…}, content
// byte for byte the text (or the segment's text) it stands for.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// messages returns the system messages of res as systemMessages asks.
func messages(res *Result, systemMessages string) []Message {
	if systemMessages != SystemMessagesPerSegment {
		return []Message{{Role: RoleSystem, Content: res.Text}}
	}
	out := make([]Message, 0, len(res.Segments))
	for _, s := range res.Segments {
		out = append(out, Message{Role: RoleSystem, Content: s.Text})
	}
	return out
}

// checkFormat checks the format fields of a request.
func checkFormat(format, systemMessages string) error {
	switch format {
	case "", FormatText, FormatMessages:
	default:
		return &library.Error{Code: library.CodeInvalidRequest, Field: "format", Msg: fmt.Sprintf("%q is not an answer format (text or messages)", format)}
	}
	switch systemMessages {
	case "", SystemMessagesOne, SystemMessagesPerSegment:
	default:
		return &library.Error{Code: library.CodeInvalidRequest, Field: "systemMessages", Msg: fmt.Sprintf("%q is not one or per-segment", systemMessages)}
	}
	return nil
}

// Pin is one entry of a request's "revisions": the override of ID in
// Locale (canonical BCP 47) served at Revision instead of the
// published one.
type Pin struct {
	ID, Locale string
	Revision   int
	// Field is the request field of the pin, "revisions.<key>", for
	// errors.
	Field string
}

// Pins parses a request's "revisions" map, keyed "<module id>@<locale>"
// ("task.doc-minutes@zh-CN"), values revision numbers from 1. Errors: a
// 422 invalid_request naming the field "revisions.<key>".
func Pins(revisions map[string]int) ([]Pin, error) {
	out := make([]Pin, 0, len(revisions))
	for key, n := range revisions {
		field := "revisions." + key
		id, loc, ok := strings.Cut(key, "@")
		if !ok || id == "" || loc == "" {
			return nil, &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: "a pin is keyed <module id>@<locale>, such as task.doc-minutes@zh-CN"}
		}
		canon, err := library.CanonicalLocale(loc)
		if err != nil {
			return nil, &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: library.LocaleProblem(loc)}
		}
		if n < 1 || n > domain.MaxRevision {
			return nil, &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: fmt.Sprintf("revision %d: revisions count from 1 to %d", n, domain.MaxRevision)}
		}
		out = append(out, Pin{ID: id, Locale: canon, Revision: n, Field: field})
	}
	return out, nil
}

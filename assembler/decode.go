package assembler

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/strictjson"
)

// Request limits, each refused with limit_exceeded naming it.
const (
	MaxRequestBytes   = 8 << 20
	MaxKnowledgeBases = 50
	MaxSkills         = 200
	// MaxModelLength and MaxAttachmentNameLength bound the model name and
	// an attachment's file name, both written into the prompt as they
	// are, in characters; MaxCommandLength bounds the slash command.
	MaxModelLength          = 200
	MaxAttachmentNameLength = 255
	MaxCommandLength        = 200
)

// DecodeRequest reads an assemble request from JSON with strictjson.Decode: unknown
// fields, wrong types, trailing data and values outside the request
// limits are *Error values naming the field (CodeInvalidRequest or
// CodeLimitExceeded).
func DecodeRequest(data []byte) (*Request, error) {
	if len(data) > MaxRequestBytes {
		return nil, &library.Error{Code: library.CodeLimitExceeded, Msg: fmt.Sprintf("request body is %d bytes; the limit is %d (%d MiB)", len(data), MaxRequestBytes, MaxRequestBytes>>20)}
	}
	var req Request
	if err := strictjson.Decode(data, &req); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return &req, nil
}

// Validate checks the request: known knowledge-base types,
// the limits, a BCP 47 locale and valid variable names. It puts the
// locale in its canonical form ("EN-us" → "en-US").
func (r *Request) Validate() error {
	bad := func(field, msg string) error {
		return &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: msg}
	}
	if r.Locale != "" {
		locale, err := library.CanonicalLocale(r.Locale)
		if err != nil {
			return bad("locale", library.LocaleProblem(r.Locale))
		}
		r.Locale = locale
	}
	if len(r.KnowledgeBases) > MaxKnowledgeBases {
		return &library.Error{Code: library.CodeLimitExceeded, Field: "knowledgeBases", Msg: fmt.Sprintf("%d knowledge bases; the limit is %d", len(r.KnowledgeBases), MaxKnowledgeBases)}
	}
	if len(r.Skills) > MaxSkills {
		return &library.Error{Code: library.CodeLimitExceeded, Field: "skills", Msg: fmt.Sprintf("%d skills; the limit is %d", len(r.Skills), MaxSkills)}
	}
	for i, kb := range r.KnowledgeBases {
		if kb.Type != KnowledgeDocument && kb.Type != KnowledgeFAQ {
			return bad(fmt.Sprintf("knowledgeBases[%d].type", i), fmt.Sprintf("%q is not a knowledge-base type (document or faq)", kb.Type))
		}
		if kb.DocCount < 0 {
			return bad(fmt.Sprintf("knowledgeBases[%d].docCount", i), "must not be negative")
		}
	}
	if err := oneLine("model", r.Model, MaxModelLength); err != nil {
		return err
	}
	if err := oneLine("command", r.Command, MaxCommandLength); err != nil {
		return err
	}
	for i, at := range r.Attachments {
		if err := oneLine(fmt.Sprintf("attachments[%d].name", i), at.Name, MaxAttachmentNameLength); err != nil {
			return err
		}
	}
	for i, s := range r.Skills {
		if strings.TrimSpace(s.Name) == "" {
			return bad(fmt.Sprintf("skills[%d].name", i), "a skill needs a name")
		}
	}
	for name := range r.Variables {
		if !library.ValidPlaceholderName(name) {
			return bad("variables."+name, "not a placeholder name [a-z_][a-z0-9_.-]*")
		}
	}
	if err := checkFormat(r.Format, r.SystemMessages); err != nil {
		return err
	}
	_, err := Pins(r.Revisions)
	return err
}

// oneLine refuses a value the assembly writes into the prompt as it is
// (the model name, an attachment's file name) when it is longer than max
// characters or holds a control character: a line break in a file name chosen
// by an end user would start a new line of the system prompt.
func oneLine(field, v string, max int) error {
	if n := utf8.RuneCountInString(v); n > max {
		return &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: fmt.Sprintf("%d characters; the limit is %d", n, max)}
	}
	for _, c := range v {
		if unicode.IsControl(c) || unicode.In(c, unicode.Zl, unicode.Zp) {
			return &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: fmt.Sprintf("contains the control or line-separator character %U: it must be one line of text", c)}
		}
	}
	return nil
}

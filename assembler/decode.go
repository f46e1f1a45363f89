package assembler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// Request limits, each refused with limit_exceeded naming it.
const (
	MaxRequestBytes   = 8 << 20
	MaxKnowledgeBases = 50
	MaxSkills         = 200
)

// DecodeRequest reads an assemble request from JSON, strictly: unknown
// fields, wrong types, trailing data and values outside the request
// limits are *Error values naming the field (CodeInvalidRequest or
// CodeLimitExceeded).
func DecodeRequest(data []byte) (*Request, error) {
	if len(data) > MaxRequestBytes {
		return nil, &Error{Code: CodeLimitExceeded, Msg: fmt.Sprintf("request body is %d bytes; the limit is %d (8 MiB)", len(data), MaxRequestBytes)}
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] != '{' {
		return nil, &Error{Code: CodeInvalidRequest, Msg: "the request must be one JSON object {…}"}
	}
	if err := CheckJSON(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var req Request
	if err := dec.Decode(&req); err != nil {
		return nil, jsonError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Error{Code: CodeInvalidRequest, Msg: "unexpected data after the request object"}
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
	bad := func(field, msg string) error { return &Error{Code: CodeInvalidRequest, Field: field, Msg: msg} }
	if r.Locale != "" {
		locale, err := library.CanonicalLocale(r.Locale)
		if err != nil {
			return bad("locale", fmt.Sprintf("%q is not a BCP 47 locale tag", r.Locale))
		}
		r.Locale = locale
	}
	if len(r.KnowledgeBases) > MaxKnowledgeBases {
		return &Error{Code: CodeLimitExceeded, Field: "knowledgeBases", Msg: fmt.Sprintf("%d knowledge bases; the limit is %d", len(r.KnowledgeBases), MaxKnowledgeBases)}
	}
	if len(r.Skills) > MaxSkills {
		return &Error{Code: CodeLimitExceeded, Field: "skills", Msg: fmt.Sprintf("%d skills; the limit is %d", len(r.Skills), MaxSkills)}
	}
	for i, kb := range r.KnowledgeBases {
		if kb.Type != KnowledgeDocument && kb.Type != KnowledgeFAQ {
			return bad(fmt.Sprintf("knowledgeBases[%d].type", i), fmt.Sprintf("%q is not a knowledge-base type (document or faq)", kb.Type))
		}
		if kb.DocCount < 0 {
			return bad(fmt.Sprintf("knowledgeBases[%d].docCount", i), "must not be negative")
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

// jsonError turns a decoding error into an *Error naming the field or the
// line and column.
func jsonError(data []byte, err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var pe *time.ParseError
	switch {
	case errors.As(err, &te):
		return &Error{Code: CodeInvalidRequest, Field: te.Field, Msg: fmt.Sprintf("expected %s, got JSON %s", te.Type, te.Value)}
	case errors.As(err, &se):
		line, col := position(data, se.Offset)
		return &Error{Code: CodeInvalidRequest, Msg: fmt.Sprintf("JSON syntax error at line %d, column %d: %s", line, col, se.Error())}
	case errors.Is(err, io.EOF):
		return &Error{Code: CodeInvalidRequest, Msg: "the request body is empty"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := position(data, int64(len(data)))
		return &Error{Code: CodeInvalidRequest, Msg: fmt.Sprintf("the JSON ends too early, at line %d, column %d (unclosed object, array or string)", line, col)}
	case errors.As(err, &pe):
		return TimeError(data, pe)
	}
	msg := err.Error()
	if field, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return &Error{Code: CodeInvalidRequest, Field: strings.Trim(field, `"`), Msg: "unknown field"}
	}
	return &Error{Code: CodeInvalidRequest, Msg: strings.TrimPrefix(msg, "json: ")}
}

func position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

package state

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FieldError is a refused field of a draft (a scenario's "id", "name",
// "request.<field of the request>"; a profile's "promptModules", …) with
// why.
type FieldError struct {
	Field, Msg string
}

// fieldErrorText is the one text of a list of refused fields:
// "<subject>: <field>: <why>; <field>: <why>".
func fieldErrorText(subject string, fields []FieldError) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Field + ": " + f.Msg
	}
	return subject + ": " + strings.Join(parts, "; ")
}

// lineProblem is what is wrong with a one-line text field of at most
// limit characters ("" when nothing): the one rule of names, models and
// the like in profiles and scenarios.
func lineProblem(val string, limit int) string {
	return textProblem(val, limit, func(r rune) bool { return unicode.IsControl(r) }, "one line without control characters")
}

// paragraphProblem is lineProblem for a text that may hold tabs and line
// breaks (a description, a system prompt).
func paragraphProblem(val string, limit int) string {
	return textProblem(val, limit, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' },
		"the text contains a control character; use only tabs and line breaks")
}

func textProblem(val string, limit int, refused func(rune) bool, why string) string {
	switch n := utf8.RuneCountInString(val); {
	case !utf8.ValidString(val):
		return "the text is not valid UTF-8"
	case n > limit:
		return fmt.Sprintf("at most %d characters (this one has %d)", limit, n)
	case strings.ContainsFunc(val, refused):
		return why
	}
	return ""
}

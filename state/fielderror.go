package state

import "strings"

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

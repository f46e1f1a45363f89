// Package tokenpage is the admins' API tokens page: the list of
// tokens, the create form, a new token's secret shown once, and revoke.
package tokenpage

import "slices"

// Row is one API token in the list; the times are formatted, LastUsed is
// "never" for an unused token and Revoked "" for an active one.
type Row struct {
	Name     string
	Prefix   string
	Scopes   string
	Created  string
	LastUsed string
	Revoked  string
}

// Form is the create form as submitted, with its errors next to the
// fields.
type Form struct {
	Name       string
	Scopes     []string
	NameError  string
	ScopeError string
}

// Checked reports whether the form has scope ticked.
func (f Form) Checked(scope string) bool { return slices.Contains(f.Scopes, scope) }

// Created is a token just created: its secret is shown on this page only.
type Created struct {
	Name   string
	Secret string
}

// Model is the tokens page.
type Model struct {
	Tokens  []Row
	Scopes  []string // every scope, for the checkboxes
	Form    Form
	Created *Created
	// Flash is a one-time message from the last action, if any.
	Flash string
}

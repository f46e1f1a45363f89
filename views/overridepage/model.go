// Package overridepage is the override editor: a full-file editor with
// errors and module checklist warnings (docs/lint.md) shown under the
// offending line, the stale-revision conflict view, the delete confirmation
// and the user-module form.
package overridepage

import "github.com/promptdesk/promptdesk/views/components"

// Editor is the override editor page.
type Editor struct {
	ID, Locale string
	// New is true on the user-module form, where id and locale are fields.
	New    bool
	Action string
	// Text is the textarea content, exactly as typed or prefilled.
	Text string
	// Revision is the revision the edit is based on; 0 creates.
	Revision int
	// Prefill says where the text came from.
	Prefill string
	// Lines is Text numbered with each error or checklist warning under
	// its line; set only when the text has errors or warnings.
	Lines []components.NumberedLine
	// Warnings is the number of module checklist warnings in Lines.
	Warnings int
	// Checklist are checklist notes that name no line, e.g. that the
	// locale has no lint cue words.
	Checklist []string
	// Errors are problems that name no line.
	Errors []string
	// FieldErrors are keyed by form field (id, locale, revision).
	FieldErrors map[string]string
	// Notice is a message that is not an error, e.g. nothing was stored.
	Notice string
	// Flash is the one-time message of the save that led here.
	Flash string
	// Builtin is the builtin text the override starts from, for reference;
	// empty for a user module.
	Builtin       string
	BuiltinSource string
	Conflict      *Conflict
	BackURL       string
}

// Conflict is the stored override that a stale save or delete ran into.
type Conflict struct {
	// Deleted is true when the override no longer exists.
	Deleted  bool
	Revision int
	Author   string
	Updated  string
	Text     string
}

// Delete is the delete confirmation page.
type Delete struct {
	ID, Locale string
	Action     string
	Revision   int
	Author     string
	Updated    string
	Text       string
	// Changed is set when a delete hit a newer revision than confirmed.
	Changed bool
	BackURL string
}

// Package overridepage is the override editor: a full-file editor with
// errors and module checklist warnings (docs/lint.md) shown under the
// offending line, the impact of the text on the saved scenarios, the
// three-way view of a stale save, the confirmation of publish, discard,
// delete and take builtin, and the user-module form.
package overridepage

import (
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/diffview"
)

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
	// ImpactURL is where Show impact posts the text ("" on the
	// user-module form); Impact is the panel when the page shows it.
	ImpactURL string
	Impact    *Impact
	// Merged is set while Text is a merge of a stale save (the conflict
	// view): the save refuses conflict markers left in it.
	Merged bool
}

// Conflict is the stored override that a stale save ran into (theirs:
// Revision, Author, Updated, Text), the refused text (Yours) and the text
// both started from (Common), with the diffs of both edits from it; the
// editor then holds the merge of both.
type Conflict struct {
	// Deleted is true when the override no longer exists.
	Deleted  bool
	Revision int
	Author   string
	Updated  string
	Text     string
	Yours    string
	// Common is the text of the revision the refused edit started from;
	// CommonFrom says which.
	Common     string
	CommonFrom string
	// YourDiff is Common → Yours, TheirDiff Common → Text.
	YourDiff, TheirDiff Diff
	// Conflicts are the regions both edits changed differently, marked
	// in the merge.
	Conflicts []MergeConflict
}

// Diff is a line diff with its counts.
type Diff struct {
	Lines       []diffview.Line
	Plus, Minus int
}

// MergeConflict is one conflict of the merge: the line of its opening
// marker and both sides.
type MergeConflict struct {
	N, Line       int
	Yours, Theirs string
}

// Package overridepage is the override editor: a full-file editor with
// errors and module checklist warnings (docs/lint.md) shown under the
// offending line, the impact of the text on the saved scenarios, the
// three-way view of a stale save, the confirmation of publish, discard,
// delete and take builtin, and the user-module form.
package overridepage

import (
	"encoding/json"

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
	// Assist is what the script editor (static/editor.min.js) reads from
	// the page; nil leaves the plain textarea.
	Assist *Assist
	// Diff is Text against Builtin, for the page without script; nil
	// when there is no builtin. DiffAdded and DiffRemoved count its lines.
	Diff                   []diffview.Line
	DiffAdded, DiffRemoved int
}

// Assist is the script editor's data, embedded in the page as JSON: the
// live check's URL ("" for none), what completion offers, and the texts
// the live diff compares against.
type Assist struct {
	// Check is the URL the text is posted to as it changes.
	Check string `json:"check"`
	// ID and Layer are the module's; ID is "" on the user-module form.
	ID    string `json:"id"`
	Layer string `json:"layer"`
	// Variables are the text's declared variables as the page loads; the
	// live check sends them anew.
	Variables []Completion `json:"variables"`
	Env       []Completion `json:"env"`
	// Modules are the ids a placeholder may include, with their titles.
	Modules        []Completion `json:"modules"`
	Keys           []Completion `json:"keys"`
	VariableKeys   []Completion `json:"variableKeys"`
	TriggerKeys    []Completion `json:"triggerKeys"`
	TriggerKinds   []Completion `json:"triggerKinds"`
	Layers         []string     `json:"layers"`
	Against        []DiffText   `json:"against"`
	DefaultAgainst string       `json:"defaultAgainst"`
	// Conflicts turns on the conflict blocks of a merged text: their
	// marks, "take mine" and "take builtin" on each, and the bar that
	// goes from one to the next (the drift review's rebase).
	Conflicts bool `json:"conflicts,omitempty"`
}

// JSON is a encoded for the page (the data-config attribute of
// #editor-config, which static/editor.min.js reads).
func (a *Assist) JSON() string {
	b, err := json.Marshal(a)
	if err != nil {
		panic(err) // strings, bools and slices of them always encode
	}
	return string(b)
}

// Completion is one name completion offers: Detail is a short kind or
// title, Info a longer description; EnvOnly and TaskOnly restrict it to
// env or task modules.
type Completion struct {
	Name     string `json:"name"`
	Detail   string `json:"detail,omitempty"`
	Info     string `json:"info,omitempty"`
	EnvOnly  bool   `json:"envOnly,omitempty"`
	TaskOnly bool   `json:"taskOnly,omitempty"`
}

// DiffText is a text the live diff can compare the editor's text with:
// Key "builtin" or "served", a Label saying which text it is.
type DiffText struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Text  string `json:"text"`
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

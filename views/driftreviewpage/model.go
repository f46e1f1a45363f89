// Package driftreviewpage is the review of one drifted override: the three
// texts, a three-way merge view, and the keep mine, take builtin and rebase
// actions, with the rebase editor for conflicts.
package driftreviewpage

import (
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/diffview"
)

// The values of the form field "action".
const (
	ActionKeepMine    = "keep-mine"
	ActionTakeBuiltin = "take-builtin"
	ActionRebase      = "rebase"
)

// Model is the drift review page.
type Model struct {
	ID, Locale string
	// Action is where the forms post.
	Action     string
	ListURL    string
	ModuleURL  string
	EditorURL  string
	HistoryURL string
	// Revision is the override's revision shown, the base of every action;
	// BuiltinHash identifies the builtin text shown, so that an action is
	// refused when the builtin changed meanwhile.
	Revision    int
	Author      string
	Updated     string
	BuiltinHash string
	// Drifted is false when the override is based on the builtin as it is
	// now: there is nothing to review.
	Drifted bool
	Reason  string
	// Pending is the revision of a draft not published yet on top of the
	// served override (0: none). The review acts on what is served, so it
	// offers no action until the draft is published or discarded.
	Pending int
	// PendingRebase is set when that draft is a rebase onto the builtin
	// now: publishing it ends the drift. PublishURL and DiscardURL are
	// the draft's confirmation pages.
	PendingRebase          bool
	PublishURL, DiscardURL string
	// TakeBuiltinURL is the confirmation page of take builtin.
	TakeBuiltinURL string
	// BuiltinRemoved is true when the library no longer has the builtin:
	// keep mine then makes the override a user module, and there is
	// nothing to rebase onto.
	BuiltinRemoved bool
	// BuiltinVersion is the builtin's version now.
	BuiltinVersion int
	// BaseUnknown is true when the builtin text the override was written
	// against was never recorded: without it there is no three-way
	// merge, so the page shows the builtin now against the override
	// (TwoWay) and offers no rebase.
	BaseUnknown bool
	// TwoWay is the diff builtin now → override: what the override
	// changes of the builtin as it is now.
	TwoWay Diff
	// BaseVersion names the builtin the override was based on ("v3").
	BaseVersion string
	// The three texts: what the override was based on, the builtin now,
	// and the override.
	Base, Builtin, Override Text
	// Upstream is the diff base → builtin now, Yours base → override.
	Upstream, Yours Diff
	// Merged is the preview of a rebase: the merged text with its
	// conflicts marked.
	Merged    []diffview.MergeLine
	Conflicts int
	// Rebase is the rebase editor, with the merged text or the text the
	// operator submitted; nil when there is nothing to rebase onto.
	Rebase *Rebase
	// EditorConfig is the script editor's data for the rebase (JSON, as
	// static/editor.min.js reads it); "" leaves the plain textarea.
	EditorConfig string
	Flash        string
	Notice       string
	// Alert and Errors explain a refused action; Lines is the submitted
	// text with errors under their lines.
	Alert  string
	Errors []string
	Lines  []components.NumberedLine
}

// Text is one of the three texts.
type Text struct {
	Title  string
	Detail string
	Text   string
}

// Diff is a line diff with its counts.
type Diff struct {
	Lines       []diffview.Line
	Plus, Minus int
}

// Rebase is the rebase editor: the merged text, editable, and the
// conflicts left in it. Nothing is saved until it is submitted.
type Rebase struct {
	Text      string
	Conflicts []Conflict
}

// Conflict is one conflict of a rebase: both versions of the region and
// the line of its opening marker in the merged text.
type Conflict struct {
	N, Line           int
	Override, Builtin string
}

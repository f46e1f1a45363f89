package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"time"
)

// MaxRevision is the largest revision number: revisions are stored as
// 4-byte integers, so a larger one names no revision and must be refused
// before it reaches a query.
const MaxRevision = math.MaxInt32

// Override is an operator's replacement for one module in one locale:
// the full module file plus what the drift view needs. It is the head of
// the override's revision history (ListRevisions).
type Override struct {
	ModuleID string
	Locale   string // as first saved; matched case-insensitively
	Text     string // the whole module file, frontmatter and body
	Title    string
	Version  int             // the override's own frontmatter version
	Fields   json.RawMessage // parsed frontmatter, stored as given (nil ↔ NULL)
	// BasedOnVersion is the builtin version the override was copied from;
	// 0 for a user module with no builtin.
	BasedOnVersion int
	BaseSnapshot   string // the builtin text at BasedOnVersion
	// BaseHash is the sha256 hex (TextHash) of the builtin text the
	// override was based on, stored as given; it tells a builtin text
	// changed without a version bump (a drift too). "" when unknown.
	BaseHash string
	Revision int // 1 when created, +1 on every change, a delete included
	// Author is who made the current revision: the actor of the change's
	// context (WithActor), else the Author given to SaveOverride, else
	// "unknown".
	Author string
	// Action is an input of SaveOverride: the revision action to record
	// (ActionCreate, ActionSave, ActionRestore, ActionRebase,
	// ActionKeepMine, ActionImport); "" records ActionCreate when there is
	// no live override, else ActionSave. Always "" when read.
	Action string
	// Publish is an input of SaveOverride: publish the saved revision in
	// the same transaction (save-and-publish, used by tests and seeds).
	// Without it a save is a draft. Always false when read.
	Publish   bool
	CreatedAt time.Time // of this life of the override: a save after a delete resets it
	UpdatedAt time.Time
	// PublishedRevision is the revision that is served; 0 when none
	// serves: none was ever published (the override is a draft only), or
	// the published revision is a removal (a delete publishes itself, and
	// the builtin serves after it).
	PublishedRevision int
	// Draft is true when the head is a revision not published yet
	// (Revision > PublishedRevision). In ListOverrides, whose rows are the
	// published revisions, it says a draft is pending on top.
	Draft bool
	// Note is the note of the revision read (the head's, or in
	// ListOverrides the published revision's): why it was made, "" when
	// none was given. SaveOverride records NoteFrom of its context.
	Note string
	// Published says who made PublishedRevision serve (a publish, or a
	// change published at once), when, and with which note; zero when
	// unknown or nothing serves.
	Published Publication
}

// Publication is who made a revision serve, when, and why.
type Publication struct {
	By   string
	At   time.Time
	Note string
}

// Revision actions (docs/overrides-lifecycle.md).
const (
	ActionCreate      = "create"
	ActionSave        = "save"
	ActionRestore     = "restore"
	ActionRebase      = "rebase"
	ActionKeepMine    = "keep-mine"
	ActionImport      = "import"
	ActionDelete      = "delete"
	ActionTakeBuiltin = "take-builtin"
	// ActionDiscard is the revision (and audit) of Discard: the published
	// text again, or empty text when nothing was ever published.
	ActionDiscard = "discard"
	// ActionPublish is an audit action only: publishing writes no revision.
	ActionPublish = "publish"
)

// Removal reports whether a revision with action and text removed the
// override rather than leaving text: a delete, a take-builtin, or a
// discard of a draft that was never published.
func Removal(action, text string) bool {
	return action == ActionDelete || action == ActionTakeBuiltin || action == ActionDiscard && text == ""
}

// Revision is one immutable change of an override: the full
// state the change left, who made it and how. A delete or take-builtin
// revision has an empty Text; the others hold the whole module file.
type Revision struct {
	ModuleID       string
	Locale         string // the override's stored spelling
	Revision       int
	Action         string // ActionCreate … ActionTakeBuiltin
	Text           string
	Title          string
	Version        int
	BasedOnVersion int
	BaseSnapshot   string
	BaseHash       string
	Author         string
	CreatedAt      time.Time
	Fields         json.RawMessage // parsed frontmatter as stored; nil for a delete
	Note           string          // why it was made; "" when none was given
	// Serving is true for the revision the override's head marks as
	// published now (a removal too); Published then says who published
	// it and when (zero when unknown).
	Serving   bool
	Published Publication
}

// TextHash returns the sha256 of text as lowercase hex: the BaseHash of an
// override based on the builtin text.
func TextHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// OperatorState is what the served view is built from: every published
// override, every pending draft and every profile.
type OperatorState struct {
	Overrides, Drafts []Override
	Profiles          []Profile
}

// OverrideKeyState is the part of the OperatorState of one override key
// (a module id in a locale): the published revision that serves, as
// ListOverrides lists it (nil when none serves), and the pending draft,
// as ListDrafts lists it (nil when there is none).
type OverrideKeyState struct {
	Published, Draft *Override
}

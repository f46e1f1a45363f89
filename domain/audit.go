package domain

import (
	"fmt"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// Subjects of audit entries and change notifications.
const (
	SubjectOverride = "override"
	SubjectProfile  = "profile"
	SubjectScenario = "scenario"
)

// Audit actions of profiles and scenarios; an override's audit action is
// its revision action (ActionCreate … ActionTakeBuiltin). ActionCreate and
// ActionDelete serve both.
const ActionUpdate = "update"

// AuditEntry is one row of the audit log: who did what to which
// subject, with the state before and after. For an override Before and
// After are its texts and Revision the revision the change made; for a
// profile or scenario they are its JSON (camelCase fields), Locale is ""
// and Revision 0. Before is "" for a create, After "" for a delete.
type AuditEntry struct {
	ID        int64 // increases with every entry
	At        time.Time
	Actor     string // ActorFrom of the change's context
	Action    string
	Subject   string // SubjectOverride, SubjectProfile or SubjectScenario
	SubjectID string // module id, profile id or scenario id
	Locale    string
	Revision  int
	Before    string
	After     string
	// Note is the note of an override's change (NoteFrom of its
	// context): why it was made; "" when none was given.
	Note string
}

// AuditFilter selects audit entries for ListAudit. Empty strings match
// anything; the others must match exactly.
type AuditFilter struct {
	Actor     string
	Action    string
	Subject   string
	SubjectID string
	// Limit is the most entries returned: 0 means DefaultAuditLimit, more
	// than MaxAuditLimit means MaxAuditLimit.
	Limit int
	// BeforeID, when > 0, returns only entries older than that id: pass the
	// last ID of a page to get the next one.
	BeforeID int64
	// Subjects, when not empty, keeps only entries of these subjects
	// (non-admins do not see user and token entries).
	Subjects []string
}

// Page sizes of ListAudit.
const (
	DefaultAuditLimit = 100
	MaxAuditLimit     = 1000
)

// AlreadyDeleted is the error of deleting what was deleted before (a
// repeated form post, the back button): What names it ("scenario
// minutes-zh"), By and At say who deleted it and when. It matches
// library.ErrNotFound.
type AlreadyDeleted struct {
	What string
	By   string
	At   time.Time
}

func (e *AlreadyDeleted) Error() string {
	return fmt.Sprintf("%s was already deleted (by %s, %s)", e.What, e.By, e.At.UTC().Format("2006-01-02 15:04 UTC"))
}

// Is makes an AlreadyDeleted match library.ErrNotFound.
func (e *AlreadyDeleted) Is(target error) bool { return target == library.ErrNotFound }

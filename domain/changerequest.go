package domain

import (
	"fmt"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// Audit actions and statuses of change requests (change review: a
// serving change waits for another editor's approval).
const (
	// ActionRequest is the audit action of asking for a serving change.
	ActionRequest = "request"
	// ActionApprove is the audit action of approving a change request;
	// the change itself is recorded too, as its own action.
	ActionApprove = "approve"
	// ActionReject is the audit action of rejecting a change request,
	// with the reason as its note.
	ActionReject = "reject"

	RequestOpen     = "open"
	RequestApproved = "approved"
	RequestRejected = "rejected"
)

// RequestActions are the serving changes that change review holds for
// approval: publish, delete, take builtin, keep mine.
var RequestActions = []string{ActionPublish, ActionDelete, ActionTakeBuiltin, ActionKeepMine}

// ChangeRequest is a serving change of an override waiting for approval,
// or decided. Revision is the head it acts on: approving it refuses
// when the head has moved since (a conflict). A keep-mine request
// carries the builtin the override is to be based on.
type ChangeRequest struct {
	ID       int64
	ModuleID string
	Locale   string
	Action   string // one of RequestActions
	Revision int
	// BuiltinVersion, BuiltinText and BuiltinHash are the new base of a
	// keep mine (zero for the other actions).
	BuiltinVersion int
	BuiltinText    string
	BuiltinHash    string
	Author         string // who asked: ActorFrom of the request's context
	Note           string // the author's note; the change records it when approved
	Status         string // RequestOpen, RequestApproved or RequestRejected
	DecidedBy      string
	// Reason is the approver's note, or why it was rejected (required).
	Reason    string
	CreatedAt time.Time
	DecidedAt time.Time // zero while open
}

// SelfApproval is the error of approving one's own change request: the
// point of review is a second pair of eyes. It matches
// library.ErrForbidden.
type SelfApproval struct {
	ID     int64
	Author string
}

func (e *SelfApproval) Error() string {
	return fmt.Sprintf("change request %d was made by %s: someone else, another editor or an admin, must approve it", e.ID, e.Author)
}

// Is makes a SelfApproval match library.ErrForbidden.
func (e *SelfApproval) Is(target error) bool { return target == library.ErrForbidden }

// Decided is the error of approving or rejecting a change request that
// is not open any more (a form posted twice, two reviewers at once). It
// matches library.ErrConflict.
type Decided struct {
	Request ChangeRequest
}

func (e *Decided) Error() string {
	r := e.Request
	return fmt.Sprintf("change request %d was %s already by %s (%s)", r.ID, r.Status, r.DecidedBy, r.DecidedAt.UTC().Format("2006-01-02 15:04 UTC"))
}

// Is makes a Decided match library.ErrConflict.
func (e *Decided) Is(target error) bool { return target == library.ErrConflict }

// OpenRequest is the error of asking for a change of an override that
// has an open change request already: one at a time, so an approval
// always acts on the change its reviewer saw. It matches
// library.ErrConflict.
type OpenRequest struct {
	Name    string // the override, "<module> (<locale>)"
	Request ChangeRequest
}

func (e *OpenRequest) Error() string {
	o := e.Request
	return fmt.Sprintf("%s has an open change request already: #%d, %s of revision %d by %s; approve or reject it first", e.Name, o.ID, o.Action, o.Revision, o.Author)
}

// Is makes an OpenRequest match library.ErrConflict.
func (e *OpenRequest) Is(target error) bool { return target == library.ErrConflict }

package state

import (
	"context"
	"fmt"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// ChangeRequestStore is what change review needs from the store.
type ChangeRequestStore interface {
	RequestChange(ctx context.Context, r domain.ChangeRequest) (domain.ChangeRequest, error)
	ApproveChangeRequest(ctx context.Context, id int64, note string) (domain.ChangeRequest, error)
	RejectChangeRequest(ctx context.Context, id int64, reason string) (domain.ChangeRequest, error)
	ListChangeRequests(ctx context.Context, status string) ([]domain.ChangeRequest, error)
	GetChangeRequest(ctx context.Context, id int64) (domain.ChangeRequest, error)
}

// ErrReviewRequired is the error of a publish, delete, take builtin or
// keep mine made directly while change review is on (Overrides.Review):
// it must be requested (Request) and approved by someone else. It
// matches library.ErrForbidden.
var ErrReviewRequired = fmt.Errorf("change review is on: a publish, delete, take builtin or keep mine serves only through a change request (made on the console's confirmation page, or by the API's publish and delete), once another editor or an admin approves it: %w", library.ErrForbidden)

// reviewed refuses a direct serving change while review is on.
func (s *Overrides) reviewed() error {
	if s.Review {
		return ErrReviewRequired
	}
	return nil
}

// ReviewOn reports whether serving changes need a change request.
func (s *Overrides) ReviewOn() bool { return s.Review }

// Request asks for the serving change r (Action, ModuleID, Locale,
// Revision: the head shown) as a change request of the context's actor
// with the context's note; the checks the change itself would make come
// first, so a request that could never be approved is refused now: a
// draft to publish must be servable, a removal must not leave an
// include without its module. A keep mine is based on the builtin now.
// Errors: library.ErrInvalid for those checks; the store's
// (library.ErrConflict for a moved head or an open request).
func (s *Overrides) Request(ctx context.Context, r domain.ChangeRequest) (domain.ChangeRequest, error) {
	if err := s.precheck(r); err != nil {
		return domain.ChangeRequest{}, err
	}
	if r.Action == domain.ActionKeepMine {
		r.BuiltinVersion, r.BuiltinText = 0, ""
		if b, ok := s.BuiltinBase(s.Served.Current(), r.ModuleID, r.Locale); ok {
			r.BuiltinVersion, r.BuiltinText = b.Version, b.Text
		}
		r.BuiltinHash = domain.TextHash(r.BuiltinText)
	}
	saved, err := s.Store.RequestChange(ctx, r)
	if err != nil {
		return domain.ChangeRequest{}, err
	}
	s.Log.Info("change requested", "request", saved.ID, "action", saved.Action, "module", saved.ModuleID, "locale", saved.Locale,
		"revision", saved.Revision, "author", saved.Author)
	s.wake()
	return saved, nil
}

// precheck applies the checks of the change r asks for against what
// serves now.
func (s *Overrides) precheck(r domain.ChangeRequest) error {
	switch r.Action {
	case domain.ActionPublish:
		return s.publishable(r.ModuleID, r.Locale, r.Revision)
	case domain.ActionDelete, domain.ActionTakeBuiltin:
		return s.includedBy(r.ModuleID, r.Locale)
	}
	return nil
}

// Approve makes change request id serve (the change is made by the
// context's actor, with the author's note; note is the approver's own).
// Errors: *domain.SelfApproval when the actor asked for it: refused here
// and by the store; *domain.Decided; the checks of the change
// (library.ErrInvalid); library.ErrConflict when the head moved since the
// request; library.ErrNotFound.
func (s *Overrides) Approve(ctx context.Context, id int64, note string) (domain.ChangeRequest, error) {
	r, err := s.Store.GetChangeRequest(ctx, id)
	if err != nil {
		return domain.ChangeRequest{}, err
	}
	if r.Status != domain.RequestOpen {
		return domain.ChangeRequest{}, &domain.Decided{Request: r}
	}
	if r.Author == domain.ActorFrom(ctx) {
		return domain.ChangeRequest{}, &domain.SelfApproval{ID: r.ID, Author: r.Author}
	}
	if err := s.precheck(r); err != nil {
		return domain.ChangeRequest{}, err
	}
	if err := s.keptBuiltinServes(r); err != nil {
		return domain.ChangeRequest{}, err
	}
	r, err = s.Store.ApproveChangeRequest(s.Served.own(ctx), id, note)
	if err != nil {
		return domain.ChangeRequest{}, err
	}
	s.Log.Info("change request approved", "request", r.ID, "action", r.Action, "module", r.ModuleID, "locale", r.Locale,
		"revision", r.Revision, "approver", r.DecidedBy)
	s.Served.refresh(ctx, "change request approved", overrideKey(r.ModuleID, r.Locale))
	s.wake()
	return r, nil
}

// keptBuiltinServes refuses the approval of a keep mine whose builtin
// moved on since it was requested: it would base the override on a text
// that no longer serves, and the drift would stay.
func (s *Overrides) keptBuiltinServes(r domain.ChangeRequest) error {
	if r.Action != domain.ActionKeepMine {
		return nil
	}
	b, ok := s.BuiltinBase(s.Served.Current(), r.ModuleID, r.Locale)
	if ok && domain.TextHash(b.Text) == r.BuiltinHash {
		return nil
	}
	now := "none"
	if ok {
		now = fmt.Sprintf("v%d", b.Version)
	}
	return fmt.Errorf("the builtin of %s (%s) moved on since keep mine was requested (v%d then, %s now), so approving it would not end the drift: reject it and review the drift again: %w",
		r.ModuleID, r.Locale, r.BuiltinVersion, now, library.ErrConflict)
}

// Reject closes change request id with reason (required); nothing
// serves differently. Errors: library.ErrInvalid without a reason;
// *domain.Decided; library.ErrNotFound.
func (s *Overrides) Reject(ctx context.Context, id int64, reason string) (domain.ChangeRequest, error) {
	r, err := s.Store.RejectChangeRequest(ctx, id, reason)
	if err != nil {
		return domain.ChangeRequest{}, err
	}
	s.Log.Info("change request rejected", "request", r.ID, "module", r.ModuleID, "locale", r.Locale, "by", r.DecidedBy)
	s.wake()
	return r, nil
}

// ChangeRequests lists the change requests with status ("" for all),
// newest first.
func (s *Overrides) ChangeRequests(ctx context.Context, status string) ([]domain.ChangeRequest, error) {
	return s.Store.ListChangeRequests(ctx, status)
}

// ChangeRequest returns change request id. Errors: library.ErrNotFound.
func (s *Overrides) ChangeRequest(ctx context.Context, id int64) (domain.ChangeRequest, error) {
	return s.Store.GetChangeRequest(ctx, id)
}

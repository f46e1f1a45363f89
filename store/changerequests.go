package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

const requestColumns = `id, module_id, locale, action, revision, builtin_version, builtin_text, builtin_hash,
	author, note, status, decided_by, reason, created_at, decided_at`

func scanRequest(row pgx.Row) (domain.ChangeRequest, error) {
	var r domain.ChangeRequest
	var decided *time.Time
	err := row.Scan(&r.ID, &r.ModuleID, &r.Locale, &r.Action, &r.Revision, &r.BuiltinVersion, &r.BuiltinText, &r.BuiltinHash,
		&r.Author, &r.Note, &r.Status, &r.DecidedBy, &r.Reason, &r.CreatedAt, &decided)
	if decided != nil {
		r.DecidedAt = *decided
	}
	return r, err
}

// RequestChange records r, a serving change of the override r.ModuleID
// in r.Locale at head r.Revision, as an open change request by the
// context's actor with the context's note (domain.NoteFrom), its audit
// entry (action request) and its webhook event, and returns it. Nothing
// serves differently until ApproveChangeRequest. Errors:
// library.ErrInvalid for an action that is not a request action, or a
// publish of a head that is no draft; library.ErrNotFound when there is
// no override; library.ErrConflict when the head is not at r.Revision;
// *domain.OpenRequest (matching library.ErrConflict) when the override
// has an open request already.
func (s *Store) RequestChange(ctx context.Context, r domain.ChangeRequest) (domain.ChangeRequest, error) {
	name := overrideName(r.ModuleID, r.Locale)
	if !slices.Contains(domain.RequestActions, r.Action) || r.Revision < 1 {
		return domain.ChangeRequest{}, fmt.Errorf("%s: a change request of %q at revision %d: want %s at a revision: %w",
			name, r.Action, r.Revision, strings.Join(domain.RequestActions, ", "), library.ErrInvalid)
	}
	var saved domain.ChangeRequest
	err := s.WithTx(ctx, func(tx *Store) error {
		h, err := tx.lockHead(ctx, r.ModuleID, r.Locale)
		if err != nil {
			return err
		}
		switch {
		case h.revision != r.Revision:
			return fmt.Errorf("%s is at revision %d, not %d: %w", name, h.revision, r.Revision, library.ErrConflict)
		case r.Action == domain.ActionPublish && h.published == h.revision:
			return fmt.Errorf("%s has no draft to publish: revision %d serves: %w", name, h.revision, library.ErrInvalid)
		}
		open, err := tx.listRequests(ctx, `WHERE module_id = $1 AND lower(locale) = lower($2) AND status = 'open'`, r.ModuleID, r.Locale)
		if err != nil {
			return err
		}
		if len(open) > 0 {
			return &domain.OpenRequest{Name: name, Request: open[0]}
		}
		saved, err = scanRequest(tx.db.QueryRow(ctx, `INSERT INTO change_requests (module_id, locale, action, revision,
				builtin_version, builtin_text, builtin_hash, author, note)
			SELECT module_id, locale, $3, $4, $5, $6, $7, $8, $9 FROM overrides
			WHERE module_id = $1 AND lower(locale) = lower($2)
			RETURNING `+requestColumns, r.ModuleID, r.Locale, r.Action, r.Revision, r.BuiltinVersion, r.BuiltinText, r.BuiltinHash,
			domain.ActorFrom(ctx), domain.NoteFrom(ctx)))
		if err != nil {
			return dbError(err, "change request of "+name)
		}
		return tx.requestChanged(ctx, saved, domain.ActionRequest, domain.EventChangeRequested, saved.Note)
	})
	return saved, err
}

// requestChanged writes the audit entry (note: the author's, the
// approver's or the reason) and the webhook event of a step of r.
func (s *Store) requestChanged(ctx context.Context, r domain.ChangeRequest, action, event, note string) error {
	actor := domain.ActorFrom(ctx)
	err := s.audit(ctx, domain.AuditEntry{Actor: actor, Action: action, Subject: domain.SubjectOverride,
		SubjectID: r.ModuleID, Locale: r.Locale, Revision: r.Revision, After: fmt.Sprintf("change request #%d: %s", r.ID, r.Action), Note: note})
	if err != nil {
		return err
	}
	_, _, err = s.insertEvent(ctx, domain.RequestEvent(event, r, actor, time.Now()))
	return err
}

// ListChangeRequests returns the change requests with status (every one
// when ""), newest first.
func (s *Store) ListChangeRequests(ctx context.Context, status string) ([]domain.ChangeRequest, error) {
	return s.listRequests(ctx, `WHERE ($1::text = '' OR status = $1)`, status)
}

func (s *Store) listRequests(ctx context.Context, where string, args ...any) ([]domain.ChangeRequest, error) {
	rows, err := s.db.Query(ctx, `SELECT `+requestColumns+` FROM change_requests `+where+` ORDER BY id DESC`, args...)
	if err != nil {
		return nil, dbError(err, "list change requests")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.ChangeRequest, error) { return scanRequest(r) })
	if err != nil {
		return nil, dbError(err, "list change requests")
	}
	return list, nil
}

// GetChangeRequest returns change request id. Errors: library.ErrNotFound.
func (s *Store) GetChangeRequest(ctx context.Context, id int64) (domain.ChangeRequest, error) {
	r, err := scanRequest(s.db.QueryRow(ctx, `SELECT `+requestColumns+` FROM change_requests WHERE id = $1`, id))
	if err != nil {
		return domain.ChangeRequest{}, dbError(err, fmt.Sprintf("change request %d", id))
	}
	return r, nil
}

// lockRequest locks and reads change request id, which must be open and,
// when approving, not the actor's own. Errors: library.ErrNotFound,
// *domain.Decided, *domain.SelfApproval.
func (s *Store) lockRequest(ctx context.Context, id int64, approving bool) (domain.ChangeRequest, error) {
	r, err := scanRequest(s.db.QueryRow(ctx, `SELECT `+requestColumns+` FROM change_requests WHERE id = $1 FOR UPDATE`, id))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return r, fmt.Errorf("change request %d does not exist: %w", id, library.ErrNotFound)
	case err != nil:
		return r, dbError(err, fmt.Sprintf("change request %d", id))
	case r.Status != domain.RequestOpen:
		return r, &domain.Decided{Request: r}
	case approving && r.Author == domain.ActorFrom(ctx):
		return r, &domain.SelfApproval{ID: r.ID, Author: r.Author}
	}
	return r, nil
}

// ApproveChangeRequest makes the change request id serve, in one
// transaction: the change itself (Publish, DeleteOverride, TakeBuiltin
// or KeepMine, made by the approver with the author's note), the request
// marked approved with note, its audit entry (action approve) and its
// webhook event. Errors: *domain.SelfApproval when the actor is the
// author; *domain.Decided when it is not open; library.ErrNotFound;
// else the change's own (library.ErrConflict when the head moved since
// the request: it stays open, to be rejected).
func (s *Store) ApproveChangeRequest(ctx context.Context, id int64, note string) (domain.ChangeRequest, error) {
	var r domain.ChangeRequest
	err := s.WithTx(ctx, func(tx *Store) error {
		var err error
		if r, err = tx.lockRequest(ctx, id, true); err != nil {
			return err
		}
		act := domain.WithNote(ctx, r.Note)
		switch r.Action {
		case domain.ActionPublish:
			_, err = tx.Publish(act, r.ModuleID, r.Locale, r.Revision)
		case domain.ActionDelete:
			err = tx.DeleteOverride(act, r.ModuleID, r.Locale, r.Revision)
		case domain.ActionTakeBuiltin:
			err = tx.TakeBuiltin(act, r.ModuleID, r.Locale, r.Revision)
		case domain.ActionKeepMine:
			_, err = tx.KeepMine(act, r.ModuleID, r.Locale, r.Revision, r.BuiltinVersion, r.BuiltinText, r.BuiltinHash)
		}
		if err != nil {
			return err
		}
		return tx.decide(ctx, &r, domain.RequestApproved, note)
	})
	return r, err
}

// RejectChangeRequest closes the open change request id without
// changing anything served, recording who rejected it and why (reason,
// required), its audit entry (action reject) and its webhook event.
// Errors: library.ErrInvalid without a reason; *domain.Decided;
// library.ErrNotFound.
func (s *Store) RejectChangeRequest(ctx context.Context, id int64, reason string) (domain.ChangeRequest, error) {
	if strings.TrimSpace(reason) == "" {
		return domain.ChangeRequest{}, &library.Error{Code: library.CodeInvalidRequest, Field: "reason", Msg: "say why the change is rejected"}
	}
	var r domain.ChangeRequest
	err := s.WithTx(ctx, func(tx *Store) error {
		var err error
		if r, err = tx.lockRequest(ctx, id, false); err != nil {
			return err
		}
		return tx.decide(ctx, &r, domain.RequestRejected, reason)
	})
	return r, err
}

// decide closes the locked request r with status and reason, and records it.
func (s *Store) decide(ctx context.Context, r *domain.ChangeRequest, status, reason string) error {
	d, err := scanRequest(s.db.QueryRow(ctx, `UPDATE change_requests SET status = $2, decided_by = $3, reason = $4, decided_at = now()
		WHERE id = $1 RETURNING `+requestColumns, r.ID, status, domain.ActorFrom(ctx), reason))
	if err != nil {
		return dbError(err, fmt.Sprintf("change request %d", r.ID))
	}
	*r = d
	action, event := domain.ActionApprove, domain.EventChangeApproved
	if status == domain.RequestRejected {
		action, event = domain.ActionReject, domain.EventChangeRejected
	}
	return s.requestChanged(ctx, d, action, event, reason)
}

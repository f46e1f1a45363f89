package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

const auditColumns = `id, at, actor, action, subject, subject_id, locale, revision, before, after, note`

// ListAudit returns the audit entries f selects, newest first (by ID).
// Errors: library.ErrInvalid for a negative Limit or BeforeID.
func (s *Store) ListAudit(ctx context.Context, f domain.AuditFilter) ([]domain.AuditEntry, error) {
	if f.Limit < 0 || f.BeforeID < 0 {
		return nil, fmt.Errorf("audit filter: limit %d, before id %d: %w", f.Limit, f.BeforeID, library.ErrInvalid)
	}
	limit := f.Limit
	switch {
	case limit == 0:
		limit = domain.DefaultAuditLimit
	case limit > domain.MaxAuditLimit:
		limit = domain.MaxAuditLimit
	}
	rows, err := s.db.Query(ctx, `SELECT `+auditColumns+` FROM audit_log
		WHERE ($1::text = '' OR actor = $1) AND ($2::text = '' OR action = $2)
			AND ($3::text = '' OR subject = $3) AND ($4::text = '' OR subject_id = $4)
			AND ($5::bigint = 0 OR id < $5)
			AND (coalesce(cardinality($7::text[]), 0) = 0 OR subject = ANY($7))
		ORDER BY id DESC
		LIMIT $6`, f.Actor, f.Action, f.Subject, f.SubjectID, f.BeforeID, limit, f.Subjects)
	if err != nil {
		return nil, dbError(err, "list audit")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.AuditEntry, error) {
		var e domain.AuditEntry
		err := r.Scan(&e.ID, &e.At, &e.Actor, &e.Action, &e.Subject, &e.SubjectID, &e.Locale, &e.Revision, &e.Before, &e.After, &e.Note)
		return e, err
	})
	if err != nil {
		return nil, dbError(err, "list audit")
	}
	return list, nil
}

// audit inserts e (ID and At are set by the database). Call it inside the
// transaction of the change it records.
func (s *Store) audit(ctx context.Context, e domain.AuditEntry) error {
	_, err := s.db.Exec(ctx, `INSERT INTO audit_log (actor, action, subject, subject_id, locale, revision, before, after, note)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		e.Actor, e.Action, e.Subject, e.SubjectID, e.Locale, e.Revision, e.Before, e.After, e.Note)
	if err != nil {
		return dbError(err, "audit "+e.Subject+" "+e.SubjectID)
	}
	return nil
}

// auditJSON is v as the Before or After of an audit entry.
func auditJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("audit: %w", err)
	}
	return string(b), nil
}

// ChangesChannel is the Postgres NOTIFY channel on which every committed
// change of an override, profile or API token is announced to every process, with a
// Change as its JSON payload.
const ChangesChannel = "promptdesk_changes"

// Change is the JSON payload of a notification on ChangesChannel:
// {"subject","id","locale","revision","at","origin"}. For an override Subject is
// SubjectOverride, ID the module id, Locale as stored and Revision the
// revision the change made (a delete too); for a profile Subject is
// SubjectProfile, ID the profile id, Locale "" and Revision 0; for an API
// token Subject is SubjectToken and ID its name. At is when the change was
// queued (just before its commit), so a receiver can tell the delay.
// Origin is domain.OriginOf the change's context, left out when empty: the
// process that made the change and already serves it skips its own
// notification by it.
type Change struct {
	Subject  string    `json:"subject"`
	ID       string    `json:"id"`
	Locale   string    `json:"locale"`
	Revision int       `json:"revision"`
	At       time.Time `json:"at,omitzero"`
	Origin   string    `json:"origin,omitempty"`
}

// notify queues ch on ChangesChannel; Postgres delivers it when the
// transaction commits, and never if it rolls back.
func (s *Store) notify(ctx context.Context, ch Change) error {
	ch.At, ch.Origin = time.Now(), domain.OriginOf(ctx)
	payload, err := json.Marshal(ch)
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	if _, err := s.db.Exec(ctx, `SELECT pg_notify($1, $2)`, ChangesChannel, string(payload)); err != nil {
		return dbError(err, "notify "+ch.Subject+" "+ch.ID)
	}
	return nil
}

// notFoundOrDeleted is the error of a change to subject id that found no
// row: AlreadyDeleted when the audit log's last entry for it is a
// delete, else notFound.
func (s *Store) notFoundOrDeleted(ctx context.Context, subject, id, what string, notFound error) error {
	var e domain.AuditEntry
	err := s.db.QueryRow(ctx, `SELECT action, actor, at FROM audit_log WHERE subject = $1 AND subject_id = $2
		ORDER BY id DESC LIMIT 1`, subject, id).Scan(&e.Action, &e.Actor, &e.At)
	if err != nil || e.Action != domain.ActionDelete {
		return notFound
	}
	return &domain.AlreadyDeleted{What: what, By: e.Actor, At: e.At}
}

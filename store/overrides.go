package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// removalSQL is Removal of the revision r in SQL.
const removalSQL = `(r.action IN ('delete', 'take-builtin') OR (r.action = 'discard' AND r.text = ''))`

const overrideColumns = `module_id, locale, text, title, version, fields,
	based_on_version, base_snapshot, base_hash, revision, author, created_at, updated_at,
	` + servingRevisionSQL + `, (NOT deleted AND revision > coalesce(published_revision, 0)),
	note, published_by, published_at, publish_note`

// servingRevisionSQL is the PublishedRevision of the head row overrides:
// its published revision, or 0 when the head is deleted or that revision
// is a removal, since a removal serves nothing (the builtin serves).
const servingRevisionSQL = `(CASE WHEN overrides.deleted OR EXISTS (SELECT 1 FROM override_revisions r
	WHERE r.module_id = overrides.module_id AND r.locale_key = lower(overrides.locale)
		AND r.revision = overrides.published_revision AND ` + removalSQL + `)
	THEN 0 ELSE coalesce(overrides.published_revision, 0) END)`

// publishedNow is the SET clause of a change published at once (a
// removal, a discard): its revision serves, made so now by the actor
// and with the note of the given query parameters ("$3").
func publishedNow(actor, note string) string {
	return `published_revision = revision + 1, published_by = ` + actor + `, published_at = now(), publish_note = ` + note
}

// servedColumns are overrideColumns of the published revision r of the
// head o.
const servedColumns = `o.module_id, o.locale, r.text, r.title, r.version, r.fields,
	r.based_on_version, r.base_snapshot, r.base_hash, r.revision, r.author, o.created_at, r.created_at,
	o.published_revision, (NOT o.deleted AND o.revision > o.published_revision),
	r.note, o.published_by, o.published_at, o.publish_note`

// scanOverride scans overrideColumns (or servedColumns) into an
// Override, then any columns after them into extra.
func scanOverride(row pgx.Row, extra ...any) (domain.Override, error) {
	var o domain.Override
	var at *time.Time
	err := row.Scan(append([]any{&o.ModuleID, &o.Locale, &o.Text, &o.Title, &o.Version, &o.Fields,
		&o.BasedOnVersion, &o.BaseSnapshot, &o.BaseHash, &o.Revision, &o.Author, &o.CreatedAt, &o.UpdatedAt,
		&o.PublishedRevision, &o.Draft, &o.Note, &o.Published.By, &at, &o.Published.Note}, extra...)...)
	if at != nil && o.PublishedRevision > 0 {
		o.Published.At = *at
	} else {
		o.Published = domain.Publication{}
	}
	return o, err
}

func overrideName(moduleID, locale string) string {
	return fmt.Sprintf("override %s (%s)", moduleID, locale)
}

// ListOverrides returns what is served: for every override with a
// published revision that is not a removal, that revision's text and
// fields (Revision is the published revision, UpdatedAt when it was
// made, Draft whether a draft is pending on top), ordered by module id,
// then locale (byte order, whatever the server's collation). Drafts are
// left out: see ListDrafts.
func (s *Store) ListOverrides(ctx context.Context) ([]domain.Override, error) {
	return s.listOverrides(ctx, `SELECT `+servedColumns+` FROM overrides o
		JOIN override_revisions r ON r.module_id = o.module_id AND r.locale_key = lower(o.locale)
			AND r.revision = o.published_revision
		WHERE NOT `+removalSQL+`
		ORDER BY o.module_id COLLATE "C", o.locale COLLATE "C"`)
}

// ListDrafts returns the heads not published yet (deleted ones left out),
// with the draft text, ordered like ListOverrides. Their
// PublishedRevision is 0 when nothing was ever published.
func (s *Store) ListDrafts(ctx context.Context) ([]domain.Override, error) {
	return s.listOverrides(ctx, `SELECT `+overrideColumns+` FROM overrides
		WHERE NOT deleted AND revision > coalesce(published_revision, 0)
		ORDER BY module_id COLLATE "C", locale COLLATE "C"`)
}

// ReadOverrideKey returns what ListOverrides and ListDrafts hold of the
// override of moduleID in locale (compared case-insensitively): its
// served published revision and its pending draft, each nil when there is
// none, read by one statement, so in one snapshot. Errors: a wrapped
// database error (domain.ErrUnavailable when unreachable); none for an
// override that does not exist, which is simply both nil.
func (s *Store) ReadOverrideKey(ctx context.Context, moduleID, locale string) (domain.OverrideKeyState, error) {
	name := overrideName(moduleID, locale)
	rows, err := s.db.Query(ctx, `SELECT `+servedColumns+`, false FROM overrides o
		JOIN override_revisions r ON r.module_id = o.module_id AND r.locale_key = lower(o.locale)
			AND r.revision = o.published_revision
		WHERE o.module_id = $1 AND lower(o.locale) = lower($2) AND NOT `+removalSQL+`
		UNION ALL
		SELECT `+overrideColumns+`, true FROM overrides
		WHERE module_id = $1 AND lower(locale) = lower($2)
			AND NOT deleted AND revision > coalesce(published_revision, 0)`, moduleID, locale)
	if err != nil {
		return domain.OverrideKeyState{}, dbError(err, "read "+name)
	}
	defer rows.Close()
	var out domain.OverrideKeyState
	for rows.Next() {
		var draft bool
		o, err := scanOverride(rows, &draft)
		if err != nil {
			return domain.OverrideKeyState{}, dbError(err, "read "+name)
		}
		if draft {
			out.Draft = &o
		} else {
			out.Published = &o
		}
	}
	if err := rows.Err(); err != nil {
		return domain.OverrideKeyState{}, dbError(err, "read "+name)
	}
	return out, nil
}

func (s *Store) listOverrides(ctx context.Context, query string) ([]domain.Override, error) {
	rows, err := s.db.Query(ctx, query)
	if err != nil {
		return nil, dbError(err, "list overrides")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Override, error) { return scanOverride(r) })
	if err != nil {
		return nil, dbError(err, "list overrides")
	}
	return list, nil
}

// GetOverride returns the head of the override of moduleID for locale,
// compared case-insensitively: the draft when there is one (Draft is
// true), else the published revision. Errors: library.ErrNotFound when there is none or it
// was deleted.
func (s *Store) GetOverride(ctx context.Context, moduleID, locale string) (domain.Override, error) {
	o, err := scanOverride(s.db.QueryRow(ctx, `SELECT `+overrideColumns+` FROM overrides
		WHERE module_id = $1 AND lower(locale) = lower($2) AND NOT deleted`, moduleID, locale))
	if err != nil {
		return domain.Override{}, dbError(err, overrideName(moduleID, locale))
	}
	return o, nil
}

// SaveOverride stores o as a new revision, a draft, and returns the saved
// head: what is served does not change until Publish, unless
// o.Publish asks to publish it in the same transaction.
// baseRevision is the revision the edit started from: 0 creates the
// override; otherwise the head is updated to baseRevision+1 only if it is
// still at baseRevision, checked by the UPDATE itself, so concurrent edits
// cannot lose each other. After a delete either 0 or the delete's
// revision re-creates the override, continuing the numbering. One
// transaction updates the head, adds the revision and the audit row and
// notifies ChangesChannel. The stored locale and CreatedAt of a live
// override are kept; o's Revision and timestamps are ignored. Errors:
// library.ErrConflict when creating one that exists or when the head has
// moved past baseRevision (the message gives its revision);
// library.ErrNotFound when updating one that never existed;
// library.ErrInvalid for a negative baseRevision, an unknown Action or a
// broken constraint.
func (s *Store) SaveOverride(ctx context.Context, o domain.Override, baseRevision int) (domain.Override, error) {
	name := overrideName(o.ModuleID, o.Locale)
	if baseRevision < 0 {
		return domain.Override{}, fmt.Errorf("%s: base revision %d: %w", name, baseRevision, library.ErrInvalid)
	}
	switch o.Action {
	case "", domain.ActionCreate, domain.ActionSave, domain.ActionRestore, domain.ActionRebase, domain.ActionKeepMine, domain.ActionImport:
	default:
		return domain.Override{}, fmt.Errorf("%s: action %q is not a save (DeleteOverride and TakeBuiltin delete): %w", name, o.Action, library.ErrInvalid)
	}
	var saved domain.Override
	err := s.WithTx(ctx, func(tx *Store) error {
		var err error
		saved, err = tx.writeOverride(ctx, o, baseRevision)
		if err != nil || !o.Publish {
			return err
		}
		saved, err = tx.publish(ctx, saved.ModuleID, saved.Locale, saved.Revision, false)
		return err
	})
	return saved, err
}

// author is who a change of ctx is recorded as: its actor, else given,
// else "unknown".
func author(ctx context.Context, given string) string {
	if _, ok := domain.ActorOf(ctx); ok || given == "" {
		return domain.ActorFrom(ctx)
	}
	return given
}

// writeOverride is SaveOverride inside its transaction. Nothing is
// locked before the revision-checked statement, so a refused save never
// holds the head's row lock and never delays the others.
func (s *Store) writeOverride(ctx context.Context, o domain.Override, baseRevision int) (domain.Override, error) {
	who := author(ctx, o.Author)
	var row pgx.Row
	if baseRevision == 0 {
		// A create: a new head, or a deleted head brought back to life.
		row = s.db.QueryRow(ctx, `INSERT INTO overrides (module_id, locale, text, title, version, fields,
			based_on_version, base_snapshot, base_hash, author, note)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (module_id, lower(locale)) DO UPDATE SET locale = EXCLUDED.locale, text = EXCLUDED.text,
				title = EXCLUDED.title, version = EXCLUDED.version, fields = EXCLUDED.fields,
				based_on_version = EXCLUDED.based_on_version, base_snapshot = EXCLUDED.base_snapshot,
				base_hash = EXCLUDED.base_hash, author = EXCLUDED.author, note = EXCLUDED.note, deleted = false,
				revision = overrides.revision + 1, created_at = now(), updated_at = now()
			WHERE overrides.deleted
			RETURNING `+overrideColumns,
			o.ModuleID, o.Locale, o.Text, o.Title, o.Version, o.Fields, o.BasedOnVersion, o.BaseSnapshot, o.BaseHash, who,
			domain.NoteFrom(ctx))
	} else {
		// The revision check: the head must still be where the edit began.
		// SET expressions see the row before the update.
		row = s.db.QueryRow(ctx, `UPDATE overrides SET text = $3, title = $4, version = $5, fields = $6,
			based_on_version = $7, base_snapshot = $8, base_hash = $9, author = $10, note = $12,
			revision = revision + 1, updated_at = now(), deleted = false,
			locale = CASE WHEN deleted THEN $2 ELSE locale END,
			created_at = CASE WHEN deleted THEN now() ELSE created_at END
			WHERE module_id = $1 AND lower(locale) = lower($2) AND revision = $11
			RETURNING `+overrideColumns,
			o.ModuleID, o.Locale, o.Text, o.Title, o.Version, o.Fields, o.BasedOnVersion, o.BaseSnapshot, o.BaseHash, who,
			baseRevision, domain.NoteFrom(ctx))
	}
	saved, err := scanOverride(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Override{}, s.refused(ctx, o.ModuleID, o.Locale, baseRevision, false)
	}
	if err != nil {
		return domain.Override{}, dbError(err, overrideName(o.ModuleID, o.Locale))
	}
	// A create replaces nothing; an update replaces the revision it was
	// based on, a delete's empty text included.
	action, before, live := o.Action, "", false
	if baseRevision > 0 {
		if before, live, err = s.replaced(ctx, o.ModuleID, o.Locale, baseRevision); err != nil {
			return domain.Override{}, err
		}
	}
	if action == "" {
		action = domain.ActionCreate
		if live {
			action = domain.ActionSave
		}
	}
	if err := s.record(ctx, saved, action, before); err != nil {
		return domain.Override{}, err
	}
	return saved, nil
}

// replaced returns the text of revision of an override, which a change
// has just replaced (the head row is locked), and whether that revision
// was a live override rather than a delete.
func (s *Store) replaced(ctx context.Context, moduleID, locale string, revision int) (text string, live bool, err error) {
	// A statement of its own: the revision may have committed after the
	// change's statement began, and only a new snapshot sees it.
	var action string
	err = s.db.QueryRow(ctx, `SELECT action, text FROM override_revisions
		WHERE module_id = $1 AND locale_key = lower($2) AND revision = $3`, moduleID, locale, revision).Scan(&action, &text)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		// A head with no revision row cannot be made through this store;
		// record the change all the same.
		return "", true, nil
	case err != nil:
		return "", false, dbError(err, fmt.Sprintf("%s revision %d", overrideName(moduleID, locale), revision))
	}
	return text, !domain.Removal(action, text), nil
}

// refused explains why the revision-checked statement of a change matched
// no row, from the head as it is now: not found when there is none (or,
// for a delete, when it is deleted), else a conflict naming its revision.
func (s *Store) refused(ctx context.Context, moduleID, locale string, baseRevision int, deleting bool) error {
	name := overrideName(moduleID, locale)
	var current int
	var deleted bool
	var by string
	var at time.Time
	err := s.db.QueryRow(ctx, `SELECT revision, deleted, author, updated_at FROM overrides
		WHERE module_id = $1 AND lower(locale) = lower($2)`, moduleID, locale).Scan(&current, &deleted, &by, &at)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("%s does not exist: %w", name, library.ErrNotFound)
	case err == nil && deleted && deleting:
		return &domain.AlreadyDeleted{What: name, By: by, At: at}
	case err != nil:
		return dbError(err, name)
	case deleted:
		return fmt.Errorf("%s was deleted at revision %d, not at %d: %w", name, current, baseRevision, library.ErrConflict)
	case baseRevision == 0:
		return fmt.Errorf("%s exists already at revision %d: %w", name, current, library.ErrConflict)
	}
	return fmt.Errorf("%s is at revision %d, not %d: %w", name, current, baseRevision, library.ErrConflict)
}

// overrideChanged writes the audit entry e of a change of an override
// and, when the change announces one (domain.OverrideEvent), its webhook
// event with a delivery to every endpoint there is now: in the change's
// transaction, so that a committed change always has its event and a
// change that does not commit has none. Call it inside that transaction.
func (s *Store) overrideChanged(ctx context.Context, e domain.AuditEntry) error {
	if err := s.audit(ctx, e); err != nil {
		return err
	}
	ev, ok := domain.OverrideEvent(e, time.Now())
	if !ok {
		return nil
	}
	_, _, err := s.insertEvent(ctx, ev)
	return err
}

// record adds the revision, the audit row, the webhook event (when the
// action has one) and the notification of the change that left the head
// saved. before is the text it replaced.
func (s *Store) record(ctx context.Context, saved domain.Override, action, before string) error {
	_, err := s.db.Exec(ctx, `INSERT INTO override_revisions (module_id, locale_key, revision, action, text, title,
		version, fields, based_on_version, base_snapshot, base_hash, author, created_at, note)
		VALUES ($1, lower($2), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		saved.ModuleID, saved.Locale, saved.Revision, action, saved.Text, saved.Title, saved.Version, saved.Fields,
		saved.BasedOnVersion, saved.BaseSnapshot, saved.BaseHash, saved.Author, saved.UpdatedAt, saved.Note)
	if err != nil {
		// A unique violation here means two changes made one revision:
		// the head's check failed to serialise them, and nothing commits.
		return dbError(err, fmt.Sprintf("%s revision %d", overrideName(saved.ModuleID, saved.Locale), saved.Revision))
	}
	err = s.overrideChanged(ctx, domain.AuditEntry{Actor: saved.Author, Action: action, Subject: domain.SubjectOverride,
		SubjectID: saved.ModuleID, Locale: saved.Locale, Revision: saved.Revision, Before: before, After: saved.Text, Note: saved.Note})
	if err != nil {
		return err
	}
	return s.notify(ctx, Change{Subject: domain.SubjectOverride, ID: saved.ModuleID, Locale: saved.Locale, Revision: saved.Revision})
}

// DeleteOverride deletes the override of moduleID for locale if it is still
// at baseRevision, returning the module to its builtin. The history
// stays: the delete is a revision with empty text, and the next save
// continues the numbering. Errors: library.ErrConflict when it has moved
// on, library.ErrNotFound when there is none (or it is deleted already),
// library.ErrInvalid when baseRevision < 1.
func (s *Store) DeleteOverride(ctx context.Context, moduleID, locale string, baseRevision int) error {
	return s.removeOverride(ctx, moduleID, locale, baseRevision, domain.ActionDelete)
}

// TakeBuiltin is the drift review's "take builtin": DeleteOverride
// recorded as action take-builtin. Errors as DeleteOverride.
func (s *Store) TakeBuiltin(ctx context.Context, moduleID, locale string, baseRevision int) error {
	return s.removeOverride(ctx, moduleID, locale, baseRevision, domain.ActionTakeBuiltin)
}

func (s *Store) removeOverride(ctx context.Context, moduleID, locale string, baseRevision int, action string) error {
	name := overrideName(moduleID, locale)
	if baseRevision < 1 {
		return fmt.Errorf("%s: base revision %d: %w", name, baseRevision, library.ErrInvalid)
	}
	return s.WithTx(ctx, func(tx *Store) error {
		// The head keeps its base fields (the revision shows what the
		// deleted text was based on) but no text.
		// A removal is published at once: nothing serves after it.
		saved, err := scanOverride(tx.db.QueryRow(ctx, `UPDATE overrides SET text = '', title = '', version = 0,
			fields = NULL, deleted = true, author = $3, revision = revision + 1, updated_at = now(),
			note = $5, `+publishedNow("$3", "$5")+`
			WHERE module_id = $1 AND lower(locale) = lower($2) AND revision = $4 AND NOT deleted
			RETURNING `+overrideColumns, moduleID, locale, domain.ActorFrom(ctx), baseRevision, domain.NoteFrom(ctx)))
		if errors.Is(err, pgx.ErrNoRows) {
			return tx.refused(ctx, moduleID, locale, baseRevision, true)
		}
		if err != nil {
			return dbError(err, name)
		}
		before, _, err := tx.replaced(ctx, moduleID, locale, baseRevision)
		if err != nil {
			return err
		}
		return tx.record(ctx, saved, action, before)
	})
}

// RestoreRevision makes the text and base of revision of moduleID in
// locale the override again, as a new revision (action restore) on top of
// baseRevision, and returns the new head. Like any save it is a draft
// until published. It works after a delete too
// (baseRevision 0 or the delete's revision). Errors: library.ErrNotFound
// when there is no such revision; library.ErrInvalid when it is a delete;
// else those of SaveOverride.
func (s *Store) RestoreRevision(ctx context.Context, moduleID, locale string, revision, baseRevision int) (domain.Override, error) {
	var saved domain.Override
	err := s.WithTx(ctx, func(tx *Store) error {
		r, err := tx.GetRevision(ctx, moduleID, locale, revision)
		if err != nil {
			return err
		}
		if domain.Removal(r.Action, r.Text) {
			return fmt.Errorf("%s revision %d is a %s, with no text to restore: %w",
				overrideName(moduleID, locale), revision, r.Action, library.ErrInvalid)
		}
		if baseRevision < 0 {
			return fmt.Errorf("%s: base revision %d: %w", overrideName(moduleID, locale), baseRevision, library.ErrInvalid)
		}
		saved, err = tx.writeOverride(ctx, domain.Override{
			ModuleID: r.ModuleID, Locale: r.Locale, Text: r.Text, Title: r.Title, Version: r.Version, Fields: r.Fields,
			BasedOnVersion: r.BasedOnVersion, BaseSnapshot: r.BaseSnapshot, BaseHash: r.BaseHash, Action: domain.ActionRestore,
		}, baseRevision)
		return err
	})
	return saved, err
}

// KeepMine is the drift review's "keep mine": a new revision (action
// keep-mine), published at once since it resolves a drift of the served
// text, with the same text, now based on the builtin at
// newBasedOnVersion with text newBaseSnapshot and hash newBaseHash
// (TextHash of it; computed when ""). Returns the new head. Errors as
// SaveOverride; library.ErrNotFound when there is no live override.
func (s *Store) KeepMine(ctx context.Context, moduleID, locale string, baseRevision, newBasedOnVersion int, newBaseSnapshot, newBaseHash string) (domain.Override, error) {
	if baseRevision < 1 {
		return domain.Override{}, fmt.Errorf("%s: base revision %d: %w", overrideName(moduleID, locale), baseRevision, library.ErrInvalid)
	}
	if newBaseHash == "" {
		newBaseHash = domain.TextHash(newBaseSnapshot)
	}
	var saved domain.Override
	err := s.WithTx(ctx, func(tx *Store) error {
		cur, err := tx.GetOverride(ctx, moduleID, locale)
		if err != nil {
			return err
		}
		// cur may be past baseRevision already: the UPDATE's check refuses
		// that, so cur's text is the text at baseRevision when it succeeds.
		o := cur
		o.BasedOnVersion, o.BaseSnapshot, o.BaseHash = newBasedOnVersion, newBaseSnapshot, newBaseHash
		o.Author, o.Action = "", domain.ActionKeepMine
		if saved, err = tx.writeOverride(ctx, o, baseRevision); err != nil {
			return err
		}
		saved, err = tx.publish(ctx, saved.ModuleID, saved.Locale, saved.Revision, false)
		return err
	})
	return saved, err
}

const revisionColumns = `r.module_id, coalesce(o.locale, r.locale_key), r.revision, r.action, r.text, r.title,
	r.version, r.based_on_version, r.base_snapshot, r.base_hash, r.author, r.created_at, r.fields, r.note,
	coalesce(o.published_revision = r.revision, false), coalesce(o.published_by, ''), o.published_at, coalesce(o.publish_note, '')`

const revisionFrom = `FROM override_revisions r
	LEFT JOIN overrides o ON o.module_id = r.module_id AND lower(o.locale) = r.locale_key`

func scanRevision(row pgx.Row) (domain.Revision, error) {
	var r domain.Revision
	var at *time.Time
	err := row.Scan(&r.ModuleID, &r.Locale, &r.Revision, &r.Action, &r.Text, &r.Title,
		&r.Version, &r.BasedOnVersion, &r.BaseSnapshot, &r.BaseHash, &r.Author, &r.CreatedAt, &r.Fields, &r.Note,
		&r.Serving, &r.Published.By, &at, &r.Published.Note)
	if r.Serving && at != nil {
		r.Published.At = *at
	} else {
		r.Published = domain.Publication{}
	}
	return r, err
}

// ListRevisions returns the history of the override of moduleID in locale
// (compared case-insensitively), newest first, deletes included: its
// first entry's Revision is what the next change must be based on. Empty
// (not nil) when there never was an override.
func (s *Store) ListRevisions(ctx context.Context, moduleID, locale string) ([]domain.Revision, error) {
	name := overrideName(moduleID, locale)
	rows, err := s.db.Query(ctx, `SELECT `+revisionColumns+` `+revisionFrom+`
		WHERE r.module_id = $1 AND r.locale_key = lower($2)
		ORDER BY r.revision DESC`, moduleID, locale)
	if err != nil {
		return nil, dbError(err, "list revisions of "+name)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Revision, error) { return scanRevision(r) })
	if err != nil {
		return nil, dbError(err, "list revisions of "+name)
	}
	return list, nil
}

// GetRevision returns revision of the override of moduleID in locale.
// Errors: library.ErrNotFound.
func (s *Store) GetRevision(ctx context.Context, moduleID, locale string, revision int) (domain.Revision, error) {
	r, err := scanRevision(s.db.QueryRow(ctx, `SELECT `+revisionColumns+` `+revisionFrom+`
		WHERE r.module_id = $1 AND r.locale_key = lower($2) AND r.revision = $3`, moduleID, locale, revision))
	if err != nil {
		return domain.Revision{}, dbError(err, fmt.Sprintf("%s revision %d", overrideName(moduleID, locale), revision))
	}
	return r, nil
}

// head is the head row of an override, locked for the change under way.
type head struct {
	revision, published int
	deleted             bool
	text                string
}

// lockHead locks and reads the head of moduleID in locale. Errors:
// library.ErrNotFound when there is none or it is deleted.
func (s *Store) lockHead(ctx context.Context, moduleID, locale string) (head, error) {
	var h head
	err := s.db.QueryRow(ctx, `SELECT revision, coalesce(published_revision, 0), deleted, text FROM overrides
		WHERE module_id = $1 AND lower(locale) = lower($2) FOR UPDATE`, moduleID, locale).Scan(&h.revision, &h.published, &h.deleted, &h.text)
	if err == nil && h.deleted {
		err = pgx.ErrNoRows
	}
	if err != nil {
		return head{}, dbError(err, overrideName(moduleID, locale))
	}
	return h, nil
}

// publishedText is the text served by revision published of an override
// ("" when it is 0 or a removal).
func (s *Store) publishedText(ctx context.Context, moduleID, locale string, published int) (string, error) {
	if published == 0 {
		return "", nil
	}
	text, live, err := s.replaced(ctx, moduleID, locale, published)
	if err != nil || !live {
		return "", err
	}
	return text, nil
}

// Publish makes the head of the override of moduleID in locale, still at
// baseRevision, the served revision: no text revision is
// written, only the audit row (action publish, before: the text served
// until now), the webhook event and the notification, in one transaction. Publishing a head
// that is published already changes and records nothing. Returns the
// head. Errors: library.ErrNotFound when there is no override (or it is
// deleted); library.ErrConflict when the head has moved past
// baseRevision; library.ErrInvalid when baseRevision < 1.
func (s *Store) Publish(ctx context.Context, moduleID, locale string, baseRevision int) (domain.Override, error) {
	if baseRevision < 1 {
		return domain.Override{}, fmt.Errorf("%s: base revision %d: %w", overrideName(moduleID, locale), baseRevision, library.ErrInvalid)
	}
	var saved domain.Override
	err := s.WithTx(ctx, func(tx *Store) error {
		var err error
		saved, err = tx.publish(ctx, moduleID, locale, baseRevision, true)
		return err
	})
	return saved, err
}

// publish is Publish inside its transaction. A save published in the
// transaction that made it (recorded false: SaveOverride with Publish,
// KeepMine) adds no audit row, event or notification of its own: the
// save's revision, audit row, event and notification stand for both.
func (s *Store) publish(ctx context.Context, moduleID, locale string, baseRevision int, recorded bool) (domain.Override, error) {
	name := overrideName(moduleID, locale)
	h, err := s.lockHead(ctx, moduleID, locale)
	if err != nil {
		return domain.Override{}, err
	}
	if h.revision != baseRevision {
		return domain.Override{}, fmt.Errorf("%s is at revision %d, not %d: %w", name, h.revision, baseRevision, library.ErrConflict)
	}
	if h.published == h.revision {
		return s.GetOverride(ctx, moduleID, locale)
	}
	before, err := s.publishedText(ctx, moduleID, locale, h.published)
	if err != nil {
		return domain.Override{}, err
	}
	// The revision check again, in the statement that publishes.
	saved, err := scanOverride(s.db.QueryRow(ctx, `UPDATE overrides SET published_revision = revision,
		published_by = $4, published_at = now(), publish_note = $5
		WHERE module_id = $1 AND lower(locale) = lower($2) AND revision = $3 AND NOT deleted
		RETURNING `+overrideColumns, moduleID, locale, baseRevision, domain.ActorFrom(ctx), domain.NoteFrom(ctx)))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Override{}, s.refused(ctx, moduleID, locale, baseRevision, true)
	}
	if err != nil {
		return domain.Override{}, dbError(err, name)
	}
	if !recorded {
		return saved, nil
	}
	err = s.overrideChanged(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionPublish, Subject: domain.SubjectOverride,
		SubjectID: saved.ModuleID, Locale: saved.Locale, Revision: saved.Revision, Before: before, After: saved.Text,
		Note: domain.NoteFrom(ctx)})
	if err != nil {
		return domain.Override{}, err
	}
	return saved, s.notify(ctx, Change{Subject: domain.SubjectOverride, ID: saved.ModuleID, Locale: saved.Locale, Revision: saved.Revision})
}

// Discard drops the draft of the override of moduleID in locale, still at
// baseRevision: a new revision (action discard) with the
// published revision's text and base, published at once; when nothing
// was ever published (or the published revision is a removal), the
// discard removes the override like a delete, with empty text. Audited
// and notified in the same transaction. Returns the new head (removed is
// true when the discard removed the override). Errors: library.ErrNotFound when there is
// no override; library.ErrConflict when the head has moved past
// baseRevision; library.ErrInvalid when there is no draft to discard or
// baseRevision < 1.
func (s *Store) Discard(ctx context.Context, moduleID, locale string, baseRevision int) (saved domain.Override, removed bool, err error) {
	name := overrideName(moduleID, locale)
	if baseRevision < 1 {
		return domain.Override{}, false, fmt.Errorf("%s: base revision %d: %w", name, baseRevision, library.ErrInvalid)
	}
	err = s.WithTx(ctx, func(tx *Store) error {
		h, err := tx.lockHead(ctx, moduleID, locale)
		if err != nil {
			return err
		}
		switch {
		case h.revision != baseRevision:
			return fmt.Errorf("%s is at revision %d, not %d: %w", name, h.revision, baseRevision, library.ErrConflict)
		case h.published == h.revision:
			return fmt.Errorf("%s has no draft: revision %d is published: %w", name, h.revision, library.ErrInvalid)
		}
		var pub domain.Revision
		if h.published > 0 {
			if pub, err = tx.GetRevision(ctx, moduleID, locale, h.published); err != nil {
				return err
			}
		}
		if h.published == 0 || domain.Removal(pub.Action, pub.Text) {
			removed = true
			saved, err = scanOverride(tx.db.QueryRow(ctx, `UPDATE overrides SET text = '', title = '', version = 0,
				fields = NULL, deleted = true, author = $3, revision = revision + 1, updated_at = now(),
				note = $5, `+publishedNow("$3", "$5")+`
				WHERE module_id = $1 AND lower(locale) = lower($2) AND revision = $4
				RETURNING `+overrideColumns, moduleID, locale, domain.ActorFrom(ctx), baseRevision, domain.NoteFrom(ctx)))
		} else {
			saved, err = scanOverride(tx.db.QueryRow(ctx, `UPDATE overrides SET text = $3, title = $4, version = $5,
				fields = $6, based_on_version = $7, base_snapshot = $8, base_hash = $9, author = $10,
				revision = revision + 1, updated_at = now(), note = $12, `+publishedNow("$10", "$12")+`
				WHERE module_id = $1 AND lower(locale) = lower($2) AND revision = $11
				RETURNING `+overrideColumns, moduleID, locale, pub.Text, pub.Title, pub.Version, pub.Fields,
				pub.BasedOnVersion, pub.BaseSnapshot, pub.BaseHash, domain.ActorFrom(ctx), baseRevision, domain.NoteFrom(ctx)))
		}
		if err != nil {
			return dbError(err, name)
		}
		return tx.record(ctx, saved, domain.ActionDiscard, h.text)
	})
	if err != nil {
		return domain.Override{}, false, err
	}
	return saved, removed, nil
}

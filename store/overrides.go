package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/library"
)

// Override is an operator's replacement for one module in one locale (S2):
// the full module file plus what the drift view needs.
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
	Revision       int    // 1 when created, +1 on every save
	Author         string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

const overrideColumns = `module_id, locale, text, title, version, fields,
	based_on_version, base_snapshot, revision, author, created_at, updated_at`

func scanOverride(row pgx.Row) (Override, error) {
	var o Override
	err := row.Scan(&o.ModuleID, &o.Locale, &o.Text, &o.Title, &o.Version, &o.Fields,
		&o.BasedOnVersion, &o.BaseSnapshot, &o.Revision, &o.Author, &o.CreatedAt, &o.UpdatedAt)
	return o, err
}

func overrideName(moduleID, locale string) string {
	return fmt.Sprintf("override %s (%s)", moduleID, locale)
}

// ListOverrides returns every override ordered by module id, then locale
// (byte order, whatever the server's collation).
func (s *Store) ListOverrides(ctx context.Context) ([]Override, error) {
	rows, err := s.db.Query(ctx, `SELECT `+overrideColumns+` FROM overrides
		ORDER BY module_id COLLATE "C", locale COLLATE "C"`)
	if err != nil {
		return nil, dbError(err, "list overrides")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Override, error) { return scanOverride(r) })
	if err != nil {
		return nil, dbError(err, "list overrides")
	}
	return list, nil
}

// GetOverride returns the override of moduleID for locale, compared
// case-insensitively. Errors: library.ErrNotFound when there is none.
func (s *Store) GetOverride(ctx context.Context, moduleID, locale string) (Override, error) {
	o, err := scanOverride(s.db.QueryRow(ctx, `SELECT `+overrideColumns+` FROM overrides
		WHERE module_id = $1 AND lower(locale) = lower($2)`, moduleID, locale))
	if err != nil {
		return Override{}, dbError(err, overrideName(moduleID, locale))
	}
	return o, nil
}

// SaveOverride stores o and returns the saved row (S2). baseRevision is
// the revision the edit started from: 0 creates the override at revision 1;
// otherwise the row is updated to revision baseRevision+1 only if it is
// still at baseRevision, so concurrent edits cannot lose each other. The
// stored locale and CreatedAt are kept; o's Revision and timestamps are
// ignored. Errors: library.ErrConflict when creating one that exists or
// when the row has moved past baseRevision (the message gives its
// revision); library.ErrNotFound when updating one that does not exist;
// library.ErrInvalid for a negative baseRevision or a broken constraint.
func (s *Store) SaveOverride(ctx context.Context, o Override, baseRevision int) (Override, error) {
	name := overrideName(o.ModuleID, o.Locale)
	switch {
	case baseRevision < 0:
		return Override{}, fmt.Errorf("%s: base revision %d: %w", name, baseRevision, library.ErrInvalid)
	case baseRevision == 0:
		saved, err := scanOverride(s.db.QueryRow(ctx, `INSERT INTO overrides (module_id, locale, text, title,
			version, fields, based_on_version, base_snapshot, author)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			RETURNING `+overrideColumns,
			o.ModuleID, o.Locale, o.Text, o.Title, o.Version, o.Fields, o.BasedOnVersion, o.BaseSnapshot, o.Author))
		if err != nil {
			return Override{}, dbError(err, name)
		}
		return saved, nil
	}
	saved, err := scanOverride(s.db.QueryRow(ctx, `UPDATE overrides SET text = $3, title = $4, version = $5,
		fields = $6, based_on_version = $7, base_snapshot = $8, author = $9,
		revision = revision + 1, updated_at = now()
		WHERE module_id = $1 AND lower(locale) = lower($2) AND revision = $10
		RETURNING `+overrideColumns,
		o.ModuleID, o.Locale, o.Text, o.Title, o.Version, o.Fields, o.BasedOnVersion, o.BaseSnapshot, o.Author,
		baseRevision))
	if err != nil {
		return Override{}, s.staleOr(ctx, err, o.ModuleID, o.Locale, baseRevision)
	}
	return saved, nil
}

// DeleteOverride deletes the override of moduleID for locale if it is still
// at baseRevision, returning the module to its builtin (S2). Errors:
// library.ErrConflict when it has moved on, library.ErrNotFound when there
// is none, library.ErrInvalid when baseRevision < 1.
func (s *Store) DeleteOverride(ctx context.Context, moduleID, locale string, baseRevision int) error {
	if baseRevision < 1 {
		return fmt.Errorf("%s: base revision %d: %w", overrideName(moduleID, locale), baseRevision, library.ErrInvalid)
	}
	var deleted int
	err := s.db.QueryRow(ctx, `DELETE FROM overrides
		WHERE module_id = $1 AND lower(locale) = lower($2) AND revision = $3
		RETURNING revision`, moduleID, locale, baseRevision).Scan(&deleted)
	if err != nil {
		return s.staleOr(ctx, err, moduleID, locale, baseRevision)
	}
	return nil
}

// staleOr explains a revision-checked statement's err: when it matched no
// row because the override exists at another revision, that is a conflict.
func (s *Store) staleOr(ctx context.Context, err error, moduleID, locale string, baseRevision int) error {
	name := overrideName(moduleID, locale)
	if !errors.Is(err, pgx.ErrNoRows) {
		return dbError(err, name)
	}
	var current int
	err = s.db.QueryRow(ctx, `SELECT revision FROM overrides
		WHERE module_id = $1 AND lower(locale) = lower($2)`, moduleID, locale).Scan(&current)
	if err != nil {
		return dbError(err, name)
	}
	return fmt.Errorf("%s is at revision %d, not %d: %w", name, current, baseRevision, library.ErrConflict)
}

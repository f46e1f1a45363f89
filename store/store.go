// Package store keeps promptdesk's operator data in Postgres, and all its
// SQL: overrides with their revision history, drafts and publishing
// (docs/overrides-lifecycle.md), and one override key read alone;
// profiles; saved scenarios with their accepted outputs; console users,
// setup links, login attempts (reserved before the password check) and
// sessions (the scs table); API tokens and their last use; webhooks,
// their events and deliveries; the audit log; and the change
// notifications (NOTIFY on ChangesChannel, Listen) that tell every
// process what changed. It reads and writes the records of package
// domain. Errors match library.ErrNotFound, library.ErrConflict or
// library.ErrInvalid with errors.Is; a database that cannot be reached is
// marked domain.ErrUnavailable (IsUnavailable also recognises the
// driver's own errors); anything else is a wrapped database error.
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// executor is what queries need; *pgxpool.Pool and pgx.Tx both satisfy it.
type executor interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Store reads and writes promptdesk's tables. It is safe for concurrent
// use; the Store handed to WithTx's function is bound to one transaction
// and is not.
type Store struct {
	pool   *pgxpool.Pool // nil inside WithTx
	db     executor
	writes *writeHealth // shared by the Stores of one Open
}

// Open connects a pool to databaseURL (any pgx connection string) and
// checks that the server answers. The schema must already be migrated
// (migrations.Up). Close the Store when done.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	return &Store{pool: pool, db: pool, writes: &writeHealth{}}, nil
}

// Close closes the pool, waiting for connections in use. It is a no-op on
// the Store handed to WithTx's function.
func (s *Store) Close() {
	if s.pool != nil {
		s.pool.Close()
	}
}

// Ping checks that the database answers (for /readyz).
func (s *Store) Ping(ctx context.Context) error {
	if _, err := s.db.Exec(ctx, "SELECT 1"); err != nil {
		return fmt.Errorf("store: ping: %w", unavailable(err))
	}
	return nil
}

// WithTx runs fn with a Store bound to one transaction, committed when fn
// returns nil and rolled back otherwise (fn's error is returned as is,
// marked with domain.ErrUnavailable when it means the database could not
// be reached, as a failed begin or commit is). Nested calls use a
// savepoint.
//
// A transaction the database refuses for want of resources (a
// domain.ResourceError) makes WriteFailure report it until a later
// transaction commits.
func (s *Store) WithTx(ctx context.Context, fn func(tx *Store) error) error {
	err := unavailable(pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		return fn(&Store{db: tx, writes: s.writes})
	}))
	if s.pool != nil { // the outermost transaction: it committed or not
		s.writes.record(err)
	}
	return err
}

// ReadOperatorState reads the OperatorState in one read-only
// repeatable-read transaction: one snapshot, so a write committed between
// two of its reads is seen whole or not at all. Errors: as ListOverrides.
func (s *Store) ReadOperatorState(ctx context.Context) (domain.OperatorState, error) {
	var out domain.OperatorState
	read := func(tx *Store) error {
		var err error
		if out.Overrides, err = tx.ListOverrides(ctx); err != nil {
			return err
		}
		if out.Drafts, err = tx.ListDrafts(ctx); err != nil {
			return err
		}
		out.Profiles, err = tx.ListProfiles(ctx)
		return err
	}
	if s.pool == nil {
		return out, read(s) // already in a transaction
	}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return read(&Store{db: tx, writes: s.writes})
	})
	if err != nil {
		return domain.OperatorState{}, dbError(err, "operator state")
	}
	return out, nil
}

// dbError gives err, from a statement about what ("profile default"), its
// domain meaning: no rows → not found, unique violation → conflict, a
// broken constraint or malformed JSON → invalid, an unreachable database
// → ErrUnavailable; else it wraps err.
func dbError(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s does not exist: %w", what, library.ErrNotFound)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%s already exists: %w", what, library.ErrConflict)
		case "23502", "23514", "22P02": // not_null_violation, check_violation, invalid_text_representation
			return fmt.Errorf("%s: %s: %w", what, pgErr.Message, library.ErrInvalid)
		case "22021": // character_not_in_repertoire: a NUL in text
			return fmt.Errorf("%s: the text contains a NUL character (U+0000), which cannot be stored: %w", what, library.ErrInvalid)
		}
	}
	return fmt.Errorf("%s: %w", what, unavailable(err))
}

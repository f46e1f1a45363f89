package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/promptdesk/promptdesk/domain"
)

// IsUnavailable reports whether err means that the database could not be
// reached: ErrUnavailable, a failed connect, a network error, a connection
// closed under the statement, a timeout inside the driver, or a server
// error of class 08 (connection exception) or 57P01-57P03 (shutting down,
// starting up).
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, domain.ErrUnavailable),
		errors.As(err, &connectErr),
		errors.As(err, &netErr),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF),
		errors.Is(err, pgconn.ErrConnClosed),
		pgconn.Timeout(err):
		return true
	case errors.As(err, &pgErr):
		return len(pgErr.Code) == 5 && (pgErr.Code[:2] == "08" || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03")
	}
	return false
}

// unavailable wraps err with ErrUnavailable when IsUnavailable holds.
func unavailable(err error) error {
	if IsUnavailable(err) && !errors.Is(err, domain.ErrUnavailable) {
		return fmt.Errorf("%w: %w", domain.ErrUnavailable, err)
	}
	return err
}

// WithLock runs fn while holding the Postgres advisory lock called name,
// which every process on this database shares: fn runs in at most one
// process at a time (the others wait). The lock is a transaction-level
// lock on a transaction of its own, released when fn returns; fn uses the
// Store as usual.
func (s *Store) WithLock(ctx context.Context, name string, fn func() error) error {
	if s.pool == nil {
		return errors.New("store: lock: not available inside a transaction")
	}
	h := fnv.New64a()
	h.Write([]byte("promptdesk:" + name))
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return dbError(err, "lock "+name)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(h.Sum64())); err != nil {
		return dbError(err, "lock "+name)
	}
	return fn()
}

package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/promptdesk/promptdesk/domain"
)

// IsUnavailable reports whether err means that the database could not be
// reached: ErrUnavailable, a failed connect, a network error, a connection
// closed under the statement, a timeout inside the driver, or a server
// error of class 08 (connection exception) or 57P01-57P03 (shutting down,
// starting up). An error of class 53 (insufficient resources, a connection
// refused for too many connections included) is not: the database
// answered (see domain.ResourceError).
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	var pgErr *pgconn.PgError
	if _, ok := resources(err); ok {
		return false // the database answered: it is out of resources
	}
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

// resources returns the domain.ResourceError of err when a server error
// of SQLSTATE class 53 (insufficient resources) is in its chain.
func resources(err error) (*domain.ResourceError, bool) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || len(pgErr.Code) != 5 || pgErr.Code[:2] != "53" {
		return nil, false
	}
	cause := "insufficient resources"
	switch pgErr.Code {
	case "53100":
		cause = "disk full"
	case "53200":
		cause = "out of memory"
	case "53300":
		cause = "too many connections"
	}
	return &domain.ResourceError{Cause: cause, Code: pgErr.Code}, true
}

// unavailable marks err: with domain.ErrResources (as a
// domain.ResourceError naming the cause) when the database refused for
// want of resources, which it checks first, since a connection refused
// for too many connections is that and not an unreachable database; else
// with domain.ErrUnavailable when IsUnavailable holds.
func unavailable(err error) error {
	if errors.Is(err, domain.ErrResources) || errors.Is(err, domain.ErrUnavailable) {
		return err
	}
	if re, ok := resources(err); ok {
		return fmt.Errorf("%w: %w", re, err)
	}
	if IsUnavailable(err) {
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

// writeHealth is whether the database's latest write transaction failed
// for want of resources, and since when.
type writeHealth struct {
	mu    sync.Mutex
	since time.Time
	err   *domain.ResourceError
}

// record notes the outcome of a write transaction: a ResourceError starts
// (or continues) a failure; a commit ends it. Other errors say nothing
// about resources and change nothing.
func (w *writeHealth) record(err error) {
	var re *domain.ResourceError
	switch {
	case err == nil:
		w.mu.Lock()
		w.err, w.since = nil, time.Time{}
		w.mu.Unlock()
	case errors.As(err, &re):
		w.mu.Lock()
		if w.err == nil {
			w.since = time.Now()
		}
		w.err = re
		w.mu.Unlock()
	}
}

// WriteFailure reports whether writes are failing for want of resources:
// the latest write transaction (WithTx) that committed or failed so was
// refused with err (the cause and SQLSTATE), and since when the failures
// began; ok is false once a write has committed since.
func (s *Store) WriteFailure() (err *domain.ResourceError, since time.Time, ok bool) {
	s.writes.mu.Lock()
	defer s.writes.mu.Unlock()
	return s.writes.err, s.writes.since, s.writes.err != nil
}

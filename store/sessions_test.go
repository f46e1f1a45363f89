package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"
)

// Expired console sessions are deleted, live ones kept.
func TestDeleteExpiredSessions(t *testing.T) {
	t.Parallel()
	s := setup(t)
	_, err := s.Pool().Exec(t.Context(), `INSERT INTO sessions (token, data, expiry) VALUES
		('old', '\x00', now() - interval '1 minute'), ('live', '\x00', now() + interval '1 hour')`)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.DeleteExpiredSessions(t.Context())
	if err != nil || n != 1 {
		t.Fatalf("DeleteExpiredSessions: %d, %v; want 1", n, err)
	}
	var left []string
	rows, err := s.Pool().Query(t.Context(), `SELECT token FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tok string
		if err := rows.Scan(&tok); err != nil {
			t.Fatal(err)
		}
		left = append(left, tok)
	}
	if rows.Err() != nil || len(left) != 1 || left[0] != "live" {
		t.Errorf("sessions left: %v (%v), want [live]", left, rows.Err())
	}
}

// A session is stored under the SHA-256 of its token, never the token,
// and found, refreshed and deleted by the token.
func TestSessionsStoreTokenHashes(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ss := s.Sessions()
	const token = "session-token-0123456789"
	if err := ss.CommitCtx(t.Context(), token, []byte("data"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := s.Pool().QueryRow(t.Context(), `SELECT token FROM sessions`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(token))
	if stored != hex.EncodeToString(sum[:]) {
		t.Errorf("stored key %q, want the token's SHA-256", stored)
	}
	if b, found, err := ss.FindCtx(t.Context(), token); err != nil || !found || string(b) != "data" {
		t.Errorf("FindCtx: %q %v %v", b, found, err)
	}
	if _, found, err := ss.FindCtx(t.Context(), stored); err != nil || found {
		t.Errorf("the stored key used as a token: found %v, %v", found, err)
	}
	if err := ss.CommitCtx(t.Context(), token, []byte("more"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if b, _, _ := ss.FindCtx(t.Context(), token); string(b) != "more" {
		t.Errorf("after a second commit: %q", b)
	}
	if err := ss.DeleteCtx(t.Context(), token); err != nil {
		t.Fatal(err)
	}
	if _, found, err := ss.FindCtx(t.Context(), token); err != nil || found {
		t.Errorf("after delete: found %v, %v", found, err)
	}
}

// A session's load ends with its context: with the table locked by
// another transaction, FindCtx gives up at the deadline.
func TestSessionsHonourTheDeadline(t *testing.T) {
	t.Parallel()
	s := setup(t)
	tx, err := s.Pool().Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(t.Context(), `LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = s.Sessions().FindCtx(ctx, "any")
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("FindCtx on a locked table: %v after %v, want an error at the deadline", err, time.Since(start))
	}
}

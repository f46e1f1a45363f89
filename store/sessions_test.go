package store_test

import (
	"testing"
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

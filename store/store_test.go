package store_test

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// setup returns a Store on a fresh, migrated database of its own.
func setup(t *testing.T) *store.Store {
	t.Helper()
	_, s := setupURL(t)
	return s
}

// setupURL is setup that also returns the database's connection string.
func setupURL(t *testing.T) (string, *store.Store) {
	t.Helper()
	dbURL := storetest.NewDatabase(t)
	s, err := store.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return dbURL, s
}

// sameJSON reports whether a and b hold the same JSON value; jsonb does
// not keep spacing or key order.
func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

func TestPing(t *testing.T) {
	t.Parallel()
	s := setup(t)
	if err := s.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	_, err := store.Open(t.Context(), "postgres://nobody@/none?host=/nonexistent")
	if err == nil {
		t.Fatal("Open on a missing server: err = nil")
	}
}

func TestWithTx(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	boom := errors.New("boom")

	err := s.WithTx(ctx, func(tx *store.Store) error {
		if _, err := tx.CreateProfile(ctx, domain.Profile{ID: "rolled-back"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WithTx = %v, want fn's error", err)
	}
	if _, err := s.GetProfile(ctx, "rolled-back"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("after rollback GetProfile err = %v, want ErrNotFound", err)
	}

	err = s.WithTx(ctx, func(tx *store.Store) error {
		_, err := tx.CreateProfile(ctx, domain.Profile{ID: "committed"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetProfile(ctx, "committed"); err != nil {
		t.Errorf("after commit GetProfile: %v", err)
	}
}

// Every lookup of something absent is ErrNotFound, never a zero value.
func TestNotFound(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	tests := []struct {
		name string
		call func() error
	}{
		{"GetOverride", func() error { _, err := s.GetOverride(ctx, "identity", "en-US"); return err }},
		{"SaveOverride update", func() error {
			_, err := s.SaveOverride(ctx, domain.Override{ModuleID: "identity", Locale: "en-US", Text: "x"}, 1)
			return err
		}},
		{"DeleteOverride", func() error { return s.DeleteOverride(ctx, "identity", "en-US", 1) }},
		{"GetProfile", func() error { _, err := s.GetProfile(ctx, "default"); return err }},
		{"UpdateProfile", func() error { _, err := s.UpdateProfile(ctx, domain.Profile{ID: "default"}); return err }},
		{"DeleteProfile", func() error { return s.DeleteProfile(ctx, "default") }},
		{"GetScenario", func() error { _, err := s.GetScenario(ctx, "minutes"); return err }},
		{"DeleteScenario", func() error { return s.DeleteScenario(ctx, "minutes") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, library.ErrNotFound) {
				t.Errorf("err = %v, want ErrNotFound", err)
			}
		})
	}
}

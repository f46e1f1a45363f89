package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// TestListen: Listen hands on a NOTIFY sent from another connection; after
// its connection is terminated it reconnects, says so with an empty
// payload, and hands on the next one.
func TestListen(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	s, err := store.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	other, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close(context.Background()) })

	got := make(chan store.Change, 16)
	errs := make(chan error, 16)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- s.Listen(ctx, func(ch store.Change) { got <- ch }, func(err error) { errs <- err })
	}()
	next := func(what string) store.Change {
		t.Helper()
		select {
		case ch := <-got:
			return ch
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: nothing received in 10 s", what)
			return store.Change{}
		}
	}
	notify := func(payload string) {
		t.Helper()
		if _, err := other.Exec(t.Context(), "SELECT pg_notify('promptdesk_changes', $1)", payload); err != nil {
			t.Fatal(err)
		}
	}

	if ch := next("first LISTEN"); ch != (store.Change{}) {
		t.Fatalf("first call: %+v, want the zero Change of a new LISTEN", ch)
	}
	notify(`{"subject":"override","id":"base.identity","locale":"en-US","revision":3}`)
	want := store.Change{Subject: "override", ID: "base.identity", Locale: "en-US", Revision: 3}
	if ch := next("first notification"); ch != want {
		t.Fatalf("got %+v, want %+v", ch, want)
	}

	// End the listener's backend from outside, as a failover or an
	// administrator would.
	var pid int
	if err := other.QueryRow(t.Context(), `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'promptdesk listen'`).Scan(&pid); err != nil {
		t.Fatalf("the listener's backend: %v", err)
	}
	var ok bool
	if err := other.QueryRow(t.Context(), `SELECT pg_terminate_backend($1)`, pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d): %v, %v", pid, ok, err)
	}
	if ch := next("reconnect"); ch != (store.Change{}) {
		t.Fatalf("after the reconnect: %+v, want the zero Change", ch)
	}
	select {
	case err := <-errs:
		t.Logf("reported: %v", err)
	default:
		t.Error("the lost connection was not reported to onError")
	}
	notify(`{"subject":"profile","id":"p1","locale":"","revision":0}`)
	if ch := next("notification after the reconnect"); ch != (store.Change{Subject: "profile", ID: "p1"}) {
		t.Fatalf("got %+v", ch)
	}

	// A payload that is no Change still says "something changed".
	notify(`not json`)
	if ch := next("malformed payload"); ch != (store.Change{}) {
		t.Fatalf("malformed payload: %+v, want the zero Change", ch)
	}
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "not json") {
			t.Errorf("reported %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the malformed payload was not reported to onError")
	}

	// And a real change made through the store is announced on commit.
	if _, err := s.CreateProfile(t.Context(), domain.Profile{ID: "p2", Name: "P2", Locale: "en-US"}); err != nil {
		t.Fatal(err)
	}
	if ch := next("saved profile"); ch.Subject != "profile" || ch.ID != "p2" {
		t.Fatalf("after CreateProfile: %+v", ch)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Listen after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Listen did not return after its context was cancelled")
	}
}

func TestListenInsideTx(t *testing.T) {
	t.Parallel()
	s := setup(t)
	err := s.WithTx(t.Context(), func(tx *store.Store) error {
		return tx.Listen(t.Context(), func(store.Change) {}, nil)
	})
	if err == nil {
		t.Fatal("Listen inside WithTx: err = nil")
	}
	if errors.Is(err, context.Canceled) {
		t.Fatalf("Listen inside WithTx: %v", err)
	}
}

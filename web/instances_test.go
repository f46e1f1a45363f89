package web

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// startOn starts a server on dbURL with its own store, as another process
// would, and closes both at cleanup.
func startOn(t *testing.T, dbURL string, refresh time.Duration) *Server {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(ctx, Config{
		Addr:      "127.0.0.1:0",
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store:     st,
		Library:   reload.Fixed(lib),
		Assembler: assembler.New(assembler.Config{}),
		Refresh:   refresh,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// eventually waits up to limit for ok to hold.
// has reports whether m has a value for key.
func has[V any](m assembler.ByKey[V], key assembler.OverrideKey) bool {
	_, ok := m.Get(key)
	return ok
}

func eventually(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// A change written by another process reaches a started server through
// its notification, well before the periodic refresh.
func TestStartedServerFollowsNotifications(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	srv := startOn(t, dbURL, time.Hour)
	other, err := store.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	lib, _ := library.Builtin()
	m, ok := lib.Module("base.identity", "en-US")
	if !ok {
		t.Fatal("no builtin base.identity en-US")
	}
	text := strings.TrimRight(m.Text, "\n") + "\n\nNotified marker 7f3a.\n"
	key := assembler.Key("base.identity", "en-US")
	if _, err := other.SaveOverride(t.Context(), domain.Override{ModuleID: "base.identity", Locale: "en-US", Text: text, Title: m.Title, Version: m.Version, BasedOnVersion: m.Version, BaseSnapshot: m.Text, Author: "test"}, 0); err != nil {
		t.Fatal(err)
	}
	// The draft's notification brings it to the server's drafts, not to
	// what it serves.
	eventually(t, time.Second, "draft seen", func() bool {
		d, ok := srv.served.Current().Drafts.Get(key)
		return ok && strings.Contains(d.Text, "Notified marker 7f3a.")
	})
	if has(srv.served.Current().State.Overrides, key) {
		t.Fatal("the draft is served")
	}
	if _, err := other.Publish(t.Context(), "base.identity", "en-US", 1); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Second, "override served", func() bool {
		o, _ := srv.served.Current().State.Overrides.Get(key)
		return o != nil && strings.Contains(o.Module.Text, "Notified marker 7f3a.")
	})
	if _, err := other.CreateProfile(t.Context(), domain.Profile{ID: "ops", Name: "Ops", Locale: "en-US"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Second, "profile served", func() bool {
		return srv.served.Current().State.Profiles["ops"] != nil
	})
}

// A change that announces nothing (written behind promptdesk's back) is
// picked up by the periodic refresh.
func TestStartedServerRefreshesPeriodically(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	other, err := store.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	if _, err := other.CreateProfile(t.Context(), domain.Profile{ID: "ops", Name: "Ops", Locale: "en-US"}); err != nil {
		t.Fatal(err)
	}
	srv := startOn(t, dbURL, 200*time.Millisecond)
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	// The first change may still be caught by the reload that follows the
	// listener's first LISTEN; once it is served and that reload is over,
	// only the periodic refresh can bring the second.
	for i, name := range []string{"Quiet", "Quieter"} {
		if i > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		if _, err := conn.Exec(t.Context(), `UPDATE profiles SET name = $1 WHERE id = 'ops'`, name); err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, "silent change to "+name+" served", func() bool {
			p := srv.served.Current().State.Profiles["ops"]
			return p != nil && p.Name == name
		})
	}
}

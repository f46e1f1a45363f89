package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/client"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
)

// The database hangs: promptdesk keeps answering from the state it last
// read once a request has found the database gone, and says so in the
// report; the client serves its cached answers and flags new ones with
// ServerStaleSince.
func TestDatabaseFrozen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cluster := storetest.StartCluster(t)
	dbURL := cluster.URL
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	_, token, err := st.CreateToken(domain.WithActor(ctx, "test"), "runtime", []string{domain.ScopeAssemble, domain.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(ctx, web.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Store: st,
		Library: reload.Fixed(lib), Assembler: assembler.New(assembler.Config{}), Refresh: 200 * time.Millisecond, DatabaseTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})

	c := client.New(srv.URL(), token, client.Options{HTTPClient: &http.Client{Timeout: 5 * time.Second}, FeedWait: 2 * time.Second})
	follow(t, c, func() bool { return c.Status().Following })
	req := decodeRequest(t, `{"locale":"en-US","message":"Please translate this note"}`)
	first, err := c.Assemble(ctx, req)
	if err != nil || !first.Origin.ServerStaleSince.IsZero() {
		t.Fatalf("before the freeze: %+v %v", first.Origin, err)
	}

	cluster.Signal(t, syscall.SIGSTOP)
	frozenAt := time.Now()
	// A route that reads the database finds it hung (503 after the
	// database timeout): from then on the server serves what it last read.
	get, _ := http.NewRequest(http.MethodGet, srv.URL()+"/api/v1/overrides/base.identity?locale=en-US", nil)
	get.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a database read with the database frozen: %s, want 503", resp.Status)
	}
	var probe client.Assembly
	n := 0
	waitFor(t, "an answer flagged stale by the server", func() bool {
		n++
		probe, err = c.Assemble(ctx, decodeRequest(t, fmt.Sprintf(`{"locale":"en-US","message":"probe %d"}`, n)))
		return err == nil && !probe.Origin.ServerStaleSince.IsZero()
	})
	if probe.Origin.Source != client.SourceServer || probe.Origin.ServerStaleSince.Before(frozenAt.Add(-2*time.Second)) {
		t.Errorf("the flagged answer: %+v; want the server's, stale since about %v", probe.Origin, frozenAt)
	}
	again, err := c.Assemble(ctx, req)
	if err != nil || again.Text != first.Text || again.Origin.Source == client.SourceFallback {
		t.Errorf("the cached request with the database frozen: %+v %v", again.Origin, err)
	}
}

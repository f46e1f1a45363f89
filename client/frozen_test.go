package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/client"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/migrations"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/pgcluster"
	"github.com/promptdesk/promptdesk/web"
)

// freeze sends sig to the postmaster of the cluster in pgData and to its
// children (the backends holding the server's connections): SIGSTOP
// makes the database hang as a stuck host does, SIGCONT lets it go on.
func freeze(t *testing.T, pgData string, sig syscall.Signal) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pgData, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, p := range append([]string{strconv.Itoa(pid)}, strings.Fields(string(children))...) {
		if n, err := strconv.Atoi(p); err == nil {
			_ = syscall.Kill(n, sig)
		}
	}
}

// The database hangs: promptdesk keeps answering from the state it last
// read once a request has found the database gone, and says so in the
// report; the client serves its cached answers and flags new ones with
// ServerStaleSince.
func TestDatabaseFrozen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "pdc") // short: the socket path lives inside
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // as root the cluster runs as postgres
		t.Fatal(err)
	}
	cluster, err := pgcluster.Start(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	pgData := filepath.Join(dir, "pg")
	t.Cleanup(func() {
		freeze(t, pgData, syscall.SIGCONT)
		if err := cluster.Stop(ctx); err != nil {
			t.Error(err)
		}
		os.RemoveAll(dir)
	})
	dbURL := cluster.URL("promptdesk")
	if err := migrations.Up(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
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

	freeze(t, pgData, syscall.SIGSTOP)
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

package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// A database that accepts connections and never answers (its processes
// stopped) makes a request that reads it answer 503 database_unavailable
// within the database timeout, while assembly keeps answering from
// memory; thawed, the same request answers 200 again.
func TestFrozenDatabaseAnswersUnavailable(t *testing.T) {
	ctx := context.Background()
	cluster := storetest.StartCluster(t)
	dbURL := cluster.URL
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	_, secret, err := st.CreateToken(domain.WithActor(ctx, "test"), "frozen", domain.Scopes)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 2 * time.Second
	srv, err := New(ctx, Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Store: st,
		Library: reload.Fixed(lib), Assembler: assembler.New(assembler.Config{}), DatabaseTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(ctx) })
	call := func(method, path, body string) (int, string, time.Duration) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		start := time.Now()
		srv.Handler().ServeHTTP(rec, req)
		var e struct{ Error struct{ Code string } }
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		return rec.Code, e.Error.Code, time.Since(start)
	}
	const revisions = "/api/v1/overrides/base.identity/revisions?locale=en-US"
	if status, _, _ := call(http.MethodGet, revisions, ""); status != http.StatusOK {
		t.Fatalf("before the freeze: %d", status)
	}

	cluster.Signal(t, syscall.SIGSTOP)
	status, code, took := call(http.MethodGet, revisions, "")
	if status != http.StatusServiceUnavailable || code != CodeDatabaseUnavailable || took > timeout+3*time.Second {
		t.Errorf("frozen database: %d %s after %v; want 503 database_unavailable within about %v", status, code, took, timeout)
	}
	if status, _, took := call(http.MethodPost, "/api/v1/assemble", `{"locale":"en-US"}`); status != http.StatusOK || took > timeout {
		t.Errorf("assemble while frozen: %d after %v; want 200 from memory", status, took)
	}
	// Every read answers as its operation's x-database-outage says: from
	// memory (200, at once) or 503 database_unavailable.
	fill := strings.NewReplacer("{id}", "base.identity", "{n}", "1", "{delivery}", "1")
	var wg sync.WaitGroup
	for path, item := range obj(t, openAPIDoc(t), "paths") {
		op, ok := item.(jsonObject)["get"].(jsonObject)
		if !ok {
			continue
		}
		target := fill.Replace(path)
		if strings.HasPrefix(path, "/api/v1/webhooks/{id}") {
			target = strings.Replace(path, "{id}", "1", 1)
			target = fill.Replace(target)
		}
		outage := op["x-database-outage"]
		wg.Go(func() {
			status, code, took := call(http.MethodGet, target, "")
			switch outage {
			case "memory":
				if status != http.StatusOK || took > timeout {
					t.Errorf("GET %s while frozen: %d %s after %v; the document says it answers from memory", target, status, code, took)
				}
			case "unavailable":
				if status != http.StatusServiceUnavailable || code != CodeDatabaseUnavailable {
					t.Errorf("GET %s while frozen: %d %s; the document says 503 database_unavailable", target, status, code)
				}
			default:
				t.Errorf("GET %s: x-database-outage %v, want memory or unavailable", path, outage)
			}
		})
	}
	wg.Wait()

	cluster.Signal(t, syscall.SIGCONT)
	deadline := time.Now().Add(15 * time.Second)
	for {
		status, _, _ := call(http.MethodGet, revisions, "")
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("thawed database: still %d after 15 s", status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

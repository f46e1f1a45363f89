package runtimeclient_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/examples/runtimeclient"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// counting counts the requests a client sends.
type counting struct {
	n    atomic.Int64
	next http.RoundTripper
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasPrefix(r.URL.Path, "/api/v1/changes") {
		c.n.Add(1)
	}
	return c.next.RoundTrip(r)
}

// assembled is the part of an assembly the test reads.
type assembled struct {
	Text string `json:"text"`
}

// TestClientAgainstTheServer runs the example client against a real
// promptdesk server: an assembly is cached while the generation stands;
// a publish moves the generation through the change feed and the next
// call assembles again and sees the new text; a module unchanged by the
// publish is revalidated with If-None-Match (304); once the server is
// gone the client keeps answering with its last good answers, marked
// stale.
func TestClientAgainstTheServer(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(ctx, web.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Store: st,
		Library: reload.Fixed(lib), Assembler: assembler.New(assembler.Config{}), Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	var closeOnce sync.Once
	closeServer := func() { closeOnce.Do(func() { srv.Close(ctx) }) }
	defer closeServer()
	_, runtimeToken, err := st.CreateToken(ctx, "runtime", []string{domain.ScopeAssemble, domain.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	_, editorToken, err := st.CreateToken(ctx, "editor", []string{domain.ScopeWrite})
	if err != nil {
		t.Fatal(err)
	}

	rt := &counting{next: http.DefaultTransport}
	c := runtimeclient.New(srv.URL(), runtimeToken, &http.Client{Timeout: 5 * time.Second, Transport: rt})
	c.FeedWait = time.Second
	fctx, stopFeed := context.WithCancel(ctx)
	var feed sync.WaitGroup
	feed.Go(func() { c.Follow(fctx) })
	defer func() { stopFeed(); feed.Wait() }()
	waitFor(t, "the client to follow the feed", func() bool { return c.Generation() > 0 })

	req := map[string]any{"locale": "en-US", "message": "Please translate this note", "model": "gpt-4o"}
	first, err := c.Assemble(ctx, req)
	if err != nil || first.Cached || first.Stale {
		t.Fatalf("first assembly: %+v %v", first, err)
	}
	if first.Generation == 0 {
		t.Errorf("the assembly carried no %s", runtimeclient.HeaderGeneration)
	}
	sent := rt.n.Load()
	again, err := c.Assemble(ctx, req)
	if err != nil || !again.Cached || string(again.Body) != string(first.Body) || rt.n.Load() != sent {
		t.Errorf("the same assembly again: cached %v, %d requests sent, want it from the cache with none", again.Cached, rt.n.Load()-sent)
	}
	const other = "/api/v1/modules/aux.title-gen?locale=en-US"
	mod, err := c.Get(ctx, other)
	if err != nil || mod.Cached {
		t.Fatalf("GET %s: %+v %v", other, mod, err)
	}

	// Publish an override of a module every assembly includes.
	builtin, ok := lib.Module("base.identity", "en-US")
	if !ok {
		t.Fatal("no builtin base.identity")
	}
	before := c.Generation()
	put(t, srv.URL(), editorToken, builtin.Text+"\nAlways answer in haiku.\n")
	publish(t, srv.URL(), editorToken, 1)
	waitFor(t, "the feed to report the publish", func() bool { return c.Generation() > before })

	fresh, err := c.Assemble(ctx, req)
	var got assembled
	if err != nil || fresh.Cached || json.Unmarshal(fresh.Body, &got) != nil || !strings.Contains(got.Text, "Always answer in haiku.") {
		t.Errorf("the assembly after the publish: cached %v, %v; text has the published line: %v", fresh.Cached, err, strings.Contains(got.Text, "Always answer in haiku."))
	}
	mod2, err := c.Get(ctx, other)
	if err != nil || !mod2.Revalidated || string(mod2.Body) != string(mod.Body) {
		t.Errorf("GET %s after the publish: revalidated %v, %v; want a 304 and the cached body", other, mod2.Revalidated, err)
	}

	// promptdesk goes away: the last good answers keep serving.
	closeServer()
	waitFor(t, "the client to notice the feed is down", func() bool {
		a, err := c.Assemble(ctx, req)
		return err == nil && a.Stale
	})
	last, err := c.Assemble(ctx, req)
	if err != nil || !last.Stale || last.Err == nil || string(last.Body) != string(fresh.Body) {
		t.Errorf("with the server gone: stale %v, err %v, same body %v; want the last good assembly", last.Stale, err, string(last.Body) == string(fresh.Body))
	}
	if m, err := c.Get(ctx, other); err != nil || !m.Stale || string(m.Body) != string(mod.Body) {
		t.Errorf("GET %s with the server gone: %+v %v, want the cached body, stale", other, m, err)
	}
	if _, err := c.Assemble(ctx, map[string]any{"locale": "zh-CN"}); err == nil {
		t.Error("an assembly never made succeeded with the server gone")
	}
}

// waitFor waits up to 10 s for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func put(t *testing.T, base, token, text string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, base+"/api/v1/overrides/base.identity?locale=en-US", strings.NewReader(text))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	send(t, req)
}

func publish(t *testing.T, base, token string, revision int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/overrides/base.identity/publish?locale=en-US", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("If-Match", `"`+strconv.Itoa(revision)+`"`)
	send(t, req)
}

func send(t *testing.T, req *http.Request) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %s %s", req.Method, req.URL.Path, resp.Status, body)
	}
}

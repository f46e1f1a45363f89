package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/client"
)

// recorder counts the requests a client sends outside the change feed
// and keeps the status of each GET sent with If-None-Match.
type recorder struct {
	mu          sync.Mutex
	sent        int
	revalidated map[string][]int // path → statuses of conditional GETs
	next        http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if req.URL.Path == "/api/v1/changes" {
		return resp, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent++
	if err == nil && req.Header.Get("If-None-Match") != "" {
		if r.revalidated == nil {
			r.revalidated = map[string][]int{}
		}
		r.revalidated[req.URL.Path] = append(r.revalidated[req.URL.Path], resp.StatusCode)
	}
	return resp, err
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sent
}

func (r *recorder) statuses(path string) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.revalidated[path]...)
}

// newClient is a client of f's address with short feed waits, its
// requests counted by the returned recorder.
func newClient(f *fixture) (*client.Client, *recorder) {
	rec := &recorder{next: http.DefaultTransport}
	c := client.New(f.url(), f.runtime, client.Options{
		HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: rec},
		FeedWait:   2 * time.Second,
		RetryAfter: 100 * time.Millisecond,
	})
	return c, rec
}

// decodeRequest reads an assemble request's JSON.
func decodeRequest(t testing.TB, s string) *assembler.Request {
	t.Helper()
	req, err := assembler.DecodeRequest([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// A runtime using the client gets the text the console's preview shows
// for the same request: with an override published, with a draft saved
// and not published (not served), in other locales, with skills and
// knowledge bases, and for each of the app's example scenarios.
func TestAssembleIsThePreview(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const published, draft = "Always answer in haiku.", "Never answer in haiku."
	f.publish(f.url(), "base.identity", "en-US", f.save(f.url(), "base.identity", "en-US", f.builtinText("base.identity", "en-US")+"\n"+published+"\n", 0))
	f.save(f.url(), "base.behavior", "en-US", f.builtinText("base.behavior", "en-US")+"\n"+draft+"\n", 0)
	console := f.login()
	c, _ := newClient(f)
	ctx := context.Background()

	requests := []string{
		`{"locale":"en-US","message":"Please translate this note","model":"gpt-4o"}`,
		`{"locale":"zh-CN","command":"/minutes","message":"the minutes of the weekly meeting"}`,
		`{"locale":"en-US","message":"find the refund policy","knowledgeBases":[{"id":"kb1","name":"Policies","type":"faq","description":"support answers","faqEntries":[{"chunkId":"c1","knowledgeId":"k1","question":"Refunds?","answers":["Within 30 days."],"createdAt":"2026-11-01T10:00:00Z"}]}],"skills":[{"name":"pdf","description":"read PDF files"}]}`,
		`{"locale":"en-US","message":"hello","format":"messages","systemMessages":"per-segment"}`,
	}
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		requests = append(requests, string(ex.Request))
	}
	for _, r := range requests {
		got, err := c.Assemble(ctx, decodeRequest(t, r))
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		if got.Origin.Source != client.SourceServer {
			t.Errorf("%s: source %s, want server", r, got.Origin.Source)
		}
		if want := console.preview(r); got.Text != want {
			t.Errorf("%s: the client's text differs from the preview's:\nclient:  %.300q\npreview: %.300q", r, got.Text, want)
		}
		if strings.Contains(got.Text, draft) {
			t.Errorf("%s: a draft that is not published is served", r)
		}
	}
	first, err := c.Assemble(ctx, decodeRequest(t, requests[0]))
	if err != nil || !strings.Contains(first.Text, published) {
		t.Errorf("the published override is not in the assembly: %v", err)
	}
}

// Following the feed, the client answers a repeated request from its
// cache without a request; a publish moves the generation, the client
// fetches again in the background and serves the new text; a GET
// answer the publish did not change is revalidated with If-None-Match
// and kept (304).
func TestCacheFollowsTheFeed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c, rec := newClient(f)
	follow(t, c, func() bool { return c.Status().Following })
	ctx := context.Background()
	req := decodeRequest(t, `{"locale":"en-US","message":"Please translate this note","model":"gpt-4o"}`)

	first, err := c.Assemble(ctx, req)
	if err != nil || first.Origin.Source != client.SourceServer || first.Origin.Generation == 0 {
		t.Fatalf("first assembly: %+v %v", first.Origin, err)
	}
	sent := rec.count()
	again, err := c.Assemble(ctx, req)
	if err != nil || again.Origin.Source != client.SourceCache || again.Text != first.Text || rec.count() != sent {
		t.Errorf("the same assembly again: source %s, %d requests sent; want the cache and none", again.Origin.Source, rec.count()-sent)
	}
	cmds, err := c.Commands(ctx, "zh-CN")
	if err != nil || cmds.Origin.Source != client.SourceServer || len(cmds.List) == 0 {
		t.Fatalf("commands: %d, %+v %v", len(cmds.List), cmds.Origin, err)
	}
	tools, err := c.Tools(ctx, "en-US")
	if err != nil || len(tools.ByName) == 0 {
		t.Fatalf("tools: %d %v", len(tools.ByName), err)
	}
	rendered, err := c.Render(ctx, &assembler.RenderRequest{Module: "aux.title-gen", Locale: "en-US", Variables: map[string]string{"conversation": "hello"}})
	if err != nil || rendered.Module != "aux.title-gen" || rendered.Text == "" {
		t.Fatalf("render: %+v %v", rendered.Origin, err)
	}

	before := c.Status().Generation
	const line = "Always answer in haiku."
	f.publish(f.url(), "base.identity", "en-US", f.save(f.url(), "base.identity", "en-US", f.builtinText("base.identity", "en-US")+"\n"+line+"\n", 0))
	waitFor(t, "the feed to report the publish", func() bool { return c.Status().Generation > before })
	var fresh client.Assembly
	waitFor(t, "the new text", func() bool {
		fresh, err = c.Assemble(ctx, req)
		return err == nil && strings.Contains(fresh.Text, line)
	})
	if fresh.Origin.Source == client.SourceStale || fresh.Origin.Generation <= before {
		t.Errorf("the new text came as %s at generation %d (the publish moved it past %d)", fresh.Origin.Source, fresh.Origin.Generation, before)
	}
	// The commands were used within the minute: fetched again in the
	// background with their ETag, and kept.
	waitFor(t, "the commands to be revalidated", func() bool { return len(rec.statuses("/api/v1/commands")) > 0 })
	if st := rec.statuses("/api/v1/commands"); st[0] != http.StatusNotModified {
		t.Errorf("revalidating the commands answered %v, want 304", st)
	}
	after, err := c.Commands(ctx, "zh-CN")
	if err != nil || len(after.List) != len(cmds.List) || after.List[0] != cmds.List[0] {
		t.Errorf("the commands after the publish: %d, %v; want the same %d", len(after.List), err, len(cmds.List))
	}

	// A wrong request is refused, not hidden behind the cache or the
	// fallback.
	_, err = c.Render(ctx, &assembler.RenderRequest{Module: "aux.title-gen", Locale: "en-US"})
	var refused *client.Error
	if !errors.As(err, &refused) || refused.Status != http.StatusUnprocessableEntity || refused.Code != "missing_variable" || refused.Field != "variables.conversation" {
		t.Errorf("render without its variable: %v, want a 422 missing_variable naming variables.conversation", err)
	}
}

// Without Follow, a cached answer is served within MaxStale while it is
// revalidated in the background, and after MaxStale the call waits for
// the server.
func TestStaleWhileRevalidate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var mu sync.Mutex
	now := time.Now()
	tick := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	rec := &recorder{next: http.DefaultTransport}
	c := client.New(f.url(), f.runtime, client.Options{HTTPClient: &http.Client{Transport: rec}, MaxStale: time.Second,
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	ctx := context.Background()
	const line = "Always answer in haiku."
	req := decodeRequest(t, `{"locale":"en-US","message":"hello"}`)
	if a, err := c.Assemble(ctx, req); err != nil || a.Origin.Source != client.SourceServer {
		t.Fatalf("first: %+v %v", a.Origin, err)
	}
	f.publish(f.url(), "base.identity", "en-US", f.save(f.url(), "base.identity", "en-US", f.builtinText("base.identity", "en-US")+"\n"+line+"\n", 0))

	tick(500 * time.Millisecond)
	sent := rec.count()
	a, err := c.Assemble(ctx, req)
	if err != nil || a.Origin.Source != client.SourceStale || strings.Contains(a.Text, line) {
		t.Fatalf("within MaxStale: %s, new text %v, %v; want the cached text, stale", a.Origin.Source, strings.Contains(a.Text, line), err)
	}
	waitFor(t, "the background revalidation", func() bool { return rec.count() > sent })
	waitFor(t, "the revalidated text", func() bool {
		a, err = c.Assemble(ctx, req)
		return err == nil && strings.Contains(a.Text, line)
	})

	tick(2 * time.Second)
	a, err = c.Assemble(ctx, req)
	if err != nil || a.Origin.Source != client.SourceServer || !a.Origin.FetchedAt.Equal(now) {
		t.Errorf("past MaxStale: %s fetched at %v, %v; want the server's answer now (%v)", a.Origin.Source, a.Origin.FetchedAt, err, now)
	}
}

// Nothing cached and no server: the fallback assembles from the
// embedded library, marked so, and its text is the server's builtin
// assembly; once the server answers, the client uses it.
func TestFallbackUntilTheServerAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const line = "Always answer in haiku."
	f.publish(f.url(), "base.identity", "en-US", f.save(f.url(), "base.identity", "en-US", f.builtinText("base.identity", "en-US")+"\n"+line+"\n", 0))
	const r = `{"locale":"en-US","message":"Please translate this note","model":"gpt-4o","now":"2026-11-29T15:45:00Z"}`
	var builtin assembler.Result
	f.api(f.url(), http.MethodPost, "/api/v1/assemble?builtinOnly=true", "application/json", r, nil, &builtin)
	f.stop()

	c, _ := newClient(f)
	follow(t, c, func() bool { return c.Status().Unreachable })
	a, err := c.Assemble(ctx, decodeRequest(t, r))
	if err != nil || a.Origin.Source != client.SourceFallback || !errors.Is(a.Origin.Err, client.ErrUnavailable) {
		t.Fatalf("with no server: %+v %v; want the fallback, saying why", a.Origin, err)
	}
	if a.Text != builtin.Text {
		t.Errorf("the fallback's text differs from the server's builtin assembly:\n%.300q\n%.300q", a.Text, builtin.Text)
	}
	rendered, err := c.Render(ctx, &assembler.RenderRequest{Module: "aux.title-gen", Locale: "en-US", Variables: map[string]string{"conversation": "hello"}})
	if err != nil || rendered.Origin.Source != client.SourceFallback || rendered.Text == "" {
		t.Errorf("render with no server: %+v %v", rendered.Origin, err)
	}
	cmds, err := c.Commands(ctx, "zh-CN")
	if err != nil || cmds.Origin.Source != client.SourceFallback || len(cmds.List) == 0 {
		t.Errorf("commands with no server: %d %+v %v", len(cmds.List), cmds.Origin, err)
	}
	if _, err := c.Assemble(ctx, decodeRequest(t, `{"locale":"en-US","revisions":{"base.identity@en-US":1}}`)); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("a pinned request with no server: %v, want ErrUnavailable", err)
	}
	var bad *client.Error
	if _, err := c.Assemble(ctx, decodeRequest(t, `{"locale":"en-US","profile":"nobody"}`)); err != nil || errors.As(err, &bad) {
		t.Errorf("the fallback with a profile it cannot know: %v, want it assembled without", err)
	}

	f.srv = f.start(f.addr)
	waitFor(t, "the server's text", func() bool {
		a, err = c.Assemble(ctx, decodeRequest(t, r))
		return err == nil && a.Origin.Source != client.SourceFallback
	})
	if !strings.Contains(a.Text, line) {
		t.Errorf("back on the server (%s), the published override is missing", a.Origin.Source)
	}
}

// The server stops: the cached answers are served, marked stale with
// the reason. While it is down its database changes (another process
// publishes); it starts again, a new epoch: the client drops its cache
// and serves the new text.
func TestOutageAndRestart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c, _ := newClient(f)
	follow(t, c, func() bool { return c.Status().Following })
	ctx := context.Background()
	req := decodeRequest(t, `{"locale":"en-US","message":"Please translate this note"}`)
	first, err := c.Assemble(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.Tools(ctx, "en-US")
	if err != nil {
		t.Fatal(err)
	}

	f.stop()
	waitFor(t, "the client to notice", func() bool { return c.Status().Unreachable })
	a, err := c.Assemble(ctx, req)
	if err != nil || a.Origin.Source != client.SourceStale || !errors.Is(a.Origin.Err, client.ErrUnavailable) || a.Text != first.Text {
		t.Errorf("with the server stopped: %+v %v, same text %v; want the cached text, stale, with the reason", a.Origin, err, a.Text == first.Text)
	}
	if tl, err := c.Tools(ctx, "en-US"); err != nil || tl.Origin.Source != client.SourceStale || len(tl.ByName) != len(tools.ByName) {
		t.Errorf("tools with the server stopped: %+v %v", tl.Origin, err)
	}

	// Another process on the same database publishes meanwhile.
	other := f.start("127.0.0.1:0")
	const line = "Always answer in haiku."
	f.publish(other.URL(), "base.identity", "en-US", f.save(other.URL(), "base.identity", "en-US", f.builtinText("base.identity", "en-US")+"\n"+line+"\n", 0))
	if a, _ := c.Assemble(ctx, req); strings.Contains(a.Text, line) {
		t.Fatal("the client saw the publish before its server was back")
	}

	epoch := c.Status().Epoch
	f.srv = f.start(f.addr)
	waitFor(t, "a new epoch", func() bool { return c.Status().Epoch > epoch })
	waitFor(t, "the new text", func() bool {
		a, err = c.Assemble(ctx, req)
		return err == nil && strings.Contains(a.Text, line)
	})
	if a.Origin.Source == client.SourceStale {
		t.Errorf("after the restart the new text came as %s", a.Origin.Source)
	}
}

// The assembly's JSON decodes into the client's types as the server
// wrote it: segments, report and tables survive the round trip.
func TestAssemblyDecodesWhole(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c, _ := newClient(f)
	const r = `{"locale":"en-US","message":"find the refund policy","skills":[{"name":"pdf","description":"read PDF files"}],"format":"messages"}`
	var raw map[string]any
	f.api(f.url(), http.MethodPost, "/api/v1/assemble", "application/json", r, nil, &raw)
	a, err := c.Assemble(context.Background(), decodeRequest(t, r))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(a.Result)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(raw)
	got, _ := json.Marshal(back)
	if string(got) != string(want) {
		t.Errorf("the assembly does not survive decoding:\ngot  %.400s\nwant %.400s", got, want)
	}
}

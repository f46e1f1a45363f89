package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// clock is the test servers' time, so the console's preview and the API
// assemble at the same instant.
var clock = time.Date(2026, 11, 29, 15, 45, 0, 0, time.UTC)

// testPassword is the console user's password.
const testPassword = "correct horse battery"

// fixture is a real promptdesk server on a fresh database, with a
// runtime token (assemble, read) and an editor token (write).
type fixture struct {
	t       testing.TB
	st      *store.Store
	lib     *library.Snapshot
	addr    string
	srv     *web.Server
	runtime string
	editor  string
}

// newFixture starts a server on a fresh database.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, st: st, lib: lib, addr: "127.0.0.1:0"}
	actor := domain.WithActor(ctx, "test")
	if _, f.runtime, err = st.CreateToken(actor, "runtime", []string{domain.ScopeAssemble, domain.ScopeRead}); err != nil {
		t.Fatal(err)
	}
	if _, f.editor, err = st.CreateToken(actor, "editor", []string{domain.ScopeWrite, domain.ScopeRead, domain.ScopeAssemble}); err != nil {
		t.Fatal(err)
	}
	f.srv = f.start(f.addr)
	f.addr = strings.TrimPrefix(f.srv.URL(), "http://")
	return f
}

// start starts a server of the fixture's database on addr ("host:0" for
// any port) and stops it at cleanup.
func (f *fixture) start(addr string) *web.Server {
	f.t.Helper()
	ctx := context.Background()
	srv, err := web.New(ctx, web.Config{Addr: addr, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Store: f.st,
		Library: reload.Fixed(f.lib), Assembler: assembler.New(assembler.Config{CountTokens: true}), Now: func() time.Time { return clock }})
	if err != nil {
		f.t.Fatal(err)
	}
	// The port of a server just stopped may take a moment to be free.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if err = srv.Start(); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		f.t.Fatal(err)
	}
	var once sync.Once
	f.t.Cleanup(func() { once.Do(func() { _ = srv.Close(ctx) }) })
	return srv
}

// url is the base URL of the fixture's address.
func (f *fixture) url() string { return "http://" + f.addr }

// stop stops the current server.
func (f *fixture) stop() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.srv.Close(ctx); err != nil {
		f.t.Fatal(err)
	}
}

// api sends one request with the editor token to base and decodes the
// JSON answer into out (when given); a status of 300 or more fails the
// test.
func (f *fixture) api(base, method, path, contentType, body string, header map[string]string, out any) {
	f.t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.editor)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		f.t.Fatalf("%s %s: %s %s", method, path, resp.Status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			f.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// save saves text as the draft of module id in locale through the
// server at base, on top of revision after (0: the first), and returns
// its revision.
func (f *fixture) save(base, id, locale, text string, after int) int {
	f.t.Helper()
	var o struct {
		Revision int `json:"revision"`
	}
	f.api(base, http.MethodPut, "/api/v1/overrides/"+id+"?locale="+locale, "text/plain; charset=utf-8", text, map[string]string{"If-Match": fmt.Sprintf(`"%d"`, after)}, &o)
	return o.Revision
}

// publish publishes revision of the override of id in locale.
func (f *fixture) publish(base, id, locale string, revision int) {
	f.t.Helper()
	f.api(base, http.MethodPost, "/api/v1/overrides/"+id+"/publish?locale="+locale, "", "", map[string]string{"If-Match": fmt.Sprintf(`"%d"`, revision)}, nil)
}

// builtinText is the builtin module file of id in locale.
func (f *fixture) builtinText(id, locale string) string {
	f.t.Helper()
	m, ok := f.lib.Module(id, locale)
	if !ok {
		f.t.Fatalf("no builtin %s in %s", id, locale)
	}
	return m.Text
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]*)"`)

// console is a logged-in console session of an admin.
type console struct {
	t    testing.TB
	base string
	http *http.Client
	csrf string
}

// login creates an admin and logs in as it.
func (f *fixture) login() *console {
	f.t.Helper()
	ctx := context.Background()
	secret, err := f.st.CreateSetupToken(ctx, "tester", domain.RoleAdmin)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.st.CompleteSetup(ctx, secret, "", testPassword); err != nil {
		f.t.Fatal(err)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		f.t.Fatal(err)
	}
	c := &console{t: f.t, base: f.url(), http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	c.csrf = c.csrfOf("/login")
	c.post("/login", url.Values{"name": {"tester"}, "password": {testPassword}})
	c.csrf = c.csrfOf("/account/password")
	return c
}

// csrfOf reads the CSRF token of the page at path.
func (c *console) csrfOf(path string) string {
	c.t.Helper()
	resp, err := c.http.Get(c.base + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := csrfMeta.FindSubmatch(body)
	if m == nil {
		c.t.Fatalf("no CSRF token on %s: %s", path, resp.Status)
	}
	return string(m[1])
}

// post sends a console form and returns the page it ends on.
func (c *console) post(path string, form url.Values) *goquery.Document {
	c.t.Helper()
	form.Set("_csrf", c.csrf)
	resp, err := c.http.PostForm(c.base+path, form)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("POST %s: %s %s", path, resp.Status, body)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return doc
}

// preview is the full text the console's preview shows for the request
// JSON (what the operator copies).
func (c *console) preview(request string) string {
	c.t.Helper()
	doc := c.post("/preview", url.Values{"request": {request}})
	full := doc.Find(`[data-testid="full-text"]`)
	if full.Length() != 1 {
		c.t.Fatalf("no full text on the preview of %s", request)
	}
	// The copy source is the text exactly: the page writes a line break
	// before it, which HTML drops after <textarea> (and from a <pre>,
	// with the text's own first one).
	return doc.Find(`#full-text-source`).Text()
}

// waitFor waits up to 15 s for cond.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// follow runs c.Follow until the test ends, and waits for its first
// answer.
func follow(t testing.TB, c interface {
	Follow(context.Context)
}, following func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { c.Follow(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	waitFor(t, "the client to follow the feed", following)
}

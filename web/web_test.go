package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/sealed"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/static"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web/apitest"
	"github.com/promptdesk/promptdesk/webhook"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// testKeys seal the webhook secrets of the test servers.
var testKeys = func() *sealed.Keyring {
	k, err := sealed.NewKeyring(sealed.NewKey())
	if err != nil {
		panic(err)
	}
	return k
}()

// newServer builds a Server with the builtin library on a fresh database;
// seed, when given, writes to the store before the server loads it.
func newServer(t *testing.T, seed func(ctx context.Context, st *store.Store, lib *library.Snapshot)) (*Server, *store.Store) {
	t.Helper()
	return newServerWith(t, seed, nil)
}

// startServer starts srv listening, closed when the test ends.
func startServer(t *testing.T, srv *Server) {
	t.Helper()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Close(ctx)
	})
}

// newServerWith is newServer with its Config changed by configure (when
// given) before the server is built.
func newServerWith(t *testing.T, seed func(ctx context.Context, st *store.Store, lib *library.Snapshot), configure func(*Config)) (*Server, *store.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	lib, err := library.Builtin()
	if err != nil {
		t.Fatalf("builtin library: %v", err)
	}
	if seed != nil {
		seed(ctx, st, lib)
	}
	cfg := Config{
		SecretKeys: testKeys,
		Addr:       "127.0.0.1:0",
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store:      st,
		Library:    reload.Fixed(lib),
		Assembler:  assembler.New(assembler.Config{CountTokens: true}),
		Now:        func() time.Time { return time.Date(2026, 11, 29, 15, 45, 0, 0, time.UTC) },
		// The tests' receivers listen on 127.0.0.1.
		Webhooks: webhook.Policy{PrivateNetworks: true},
	}
	if configure != nil {
		configure(&cfg)
	}
	srv, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	newUser(t, st, testUser, domain.RoleAdmin)
	clients.Store(srv.Handler(), login(t, srv.Handler(), testUser))
	validators.Store(srv.Handler(), apitest.Handler(t, srv.Handler()))
	return srv, st
}

// validators maps a test server's handler to it wrapped by
// apitest.Handler, which serveAPI sends through: every API exchange of
// the web tests is held to the OpenAPI document.
var validators sync.Map

// validated is h wrapped by apitest.Handler when newServer made it.
func validated(h http.Handler) http.Handler {
	if v, ok := validators.Load(h); ok {
		return v.(http.Handler)
	}
	return h
}

// testUser is the admin every test server's serve calls are logged in
// as; testPassword is every test user's password.
const (
	testUser     = "tester"
	testPassword = "correct horse battery"
)

// clients holds the logged-in client of each test server's handler,
// which serve uses.
var clients sync.Map

// client is a console session: its cookies and CSRF token.
type client struct {
	mu      sync.Mutex
	cookies map[string]*http.Cookie
	csrf    string
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]*)"`)

// newUser creates the account name with role and testPassword through a
// setup link.
func newUser(t *testing.T, st *store.Store, name, role string) {
	t.Helper()
	secret, err := st.CreateSetupToken(context.Background(), name, role)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CompleteSetup(context.Background(), secret, "", testPassword); err != nil {
		t.Fatal(err)
	}
}

// anonymous returns a client with a CSRF token and no session.
func anonymous(t *testing.T, h http.Handler) *client {
	t.Helper()
	c := &client{cookies: map[string]*http.Cookie{}}
	rec := c.do(h, httptest.NewRequest(http.MethodGet, "/login", nil))
	m := csrfMeta.FindStringSubmatch(rec.Body.String())
	if m == nil || m[1] == "" {
		t.Fatalf("no CSRF token on the login page: %d %s", rec.Code, rec.Body.String())
	}
	c.csrf = m[1]
	return c
}

// login returns a client logged in as name (password testPassword).
func login(t *testing.T, h http.Handler, name string) *client {
	t.Helper()
	c := anonymous(t, h)
	form := url.Values{"name": {name}, "password": {testPassword}}
	rec := c.do(h, c.form(http.MethodPost, "/login", form))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("log in as %s: %d %s", name, rec.Code, rec.Body.String())
	}
	c.refreshCSRF(t, h)
	return c
}

// refreshCSRF takes the client's new CSRF token from a page (the login
// expires the one from before).
func (c *client) refreshCSRF(t *testing.T, h http.Handler) {
	t.Helper()
	rec := c.do(h, httptest.NewRequest(http.MethodGet, "/account/password", nil))
	m := csrfMeta.FindStringSubmatch(rec.Body.String())
	if m == nil || m[1] == "" {
		t.Fatalf("no CSRF token after login: %d %s", rec.Code, rec.Body.String())
	}
	c.csrf = m[1]
}

// form is a url-encoded form request carrying the client's CSRF token
// in the _csrf field.
func (c *client) form(method, target string, form url.Values) *http.Request {
	form = maps.Clone(form)
	if form == nil {
		form = url.Values{}
	}
	if c.csrf != "" && !form.Has("_csrf") {
		form.Set("_csrf", c.csrf)
	}
	req := httptest.NewRequest(method, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

// do serves req with the client's cookies and keeps the cookies set.
func (c *client) do(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	c.mu.Lock()
	for _, ck := range c.cookies {
		req.AddCookie(ck)
	}
	c.mu.Unlock()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	c.mu.Lock()
	for _, ck := range rec.Result().Cookies() {
		if ck.MaxAge < 0 {
			delete(c.cookies, ck.Name)
		} else {
			c.cookies[ck.Name] = ck
		}
	}
	c.mu.Unlock()
	return rec
}

// serve sends a request to h as its server's logged-in test admin (with
// the CSRF token as the X-CSRF-Token header).
func serve(h http.Handler, method, target string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	v, ok := clients.Load(h)
	if !ok {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	c := v.(*client)
	req.Header.Set("X-CSRF-Token", c.csrf)
	return c.do(h, req)
}

func TestNewRequiresItsDependencies(t *testing.T) {
	t.Parallel()
	if _, err := New(context.Background(), Config{}); err == nil || !strings.Contains(err.Error(), "Store") {
		t.Errorf("New without a store: %v", err)
	}
}

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	if rec := serve(srv.Handler(), http.MethodGet, "/healthz"); rec.Code != http.StatusOK || rec.Body.String() != "ok" {
		t.Errorf("/healthz: %d %q", rec.Code, rec.Body.String())
	}
	rec := serve(srv.Handler(), http.MethodGet, "/readyz")
	want := fmt.Sprintf(`{"status":"ready","database":"ok","writes":"ok","writes_failing_since":null,"library":{"source":"embedded","generation":1,"broken":[]},"generation":%d,"last_notification":null,"stale_since":null}`+"\n",
		srv.served.Current().ServedGeneration)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != want {
		t.Errorf("/readyz: %d %s %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	// Without its database the process still serves the last state it
	// read: 200, degraded, and why.
	st.Close()
	rec = serve(srv.Handler(), http.MethodGet, "/readyz")
	var body struct{ Status, Database string }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusOK ||
		body.Status != "degraded" || !strings.HasPrefix(body.Database, "unreachable: ") ||
		strings.Contains(body.Database, "user=") || strings.Contains(body.Database, "127.0.0.1") || strings.Contains(body.Database, "/tmp") {
		t.Errorf("/readyz with the database closed: %d %q, want 200 degraded, database unreachable", rec.Code, rec.Body.String())
	}
}

func TestStaticAssetsAreHashedAndCached(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, nil)
	page := serve(srv.Handler(), http.MethodGet, "/").Body.String()
	for _, name := range []string{"app.css", "htmx.min.js", "favicon.svg"} {
		u := static.URL(name)
		if !regexp.MustCompile(`^/static/` + regexp.QuoteMeta(name) + `\?v=[0-9a-f]{12}$`).MatchString(u) {
			t.Errorf("URL(%s) = %q, want a content hash", name, u)
		}
		if !strings.Contains(page, strings.ReplaceAll(u, "&", "&amp;")) {
			t.Errorf("the page does not reference %s", u)
		}
		rec := serve(srv.Handler(), http.MethodGet, u)
		if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
			t.Fatalf("%s: %d", u, rec.Code)
		}
		if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "max-age=31536000") || !strings.Contains(cc, "immutable") {
			t.Errorf("%s Cache-Control %q", u, cc)
		}
		stale := serve(srv.Handler(), http.MethodGet, "/static/"+name+"?v=old")
		if cc := stale.Header().Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("old hash Cache-Control %q, want no-cache", cc)
		}
	}
	// The icon: linked from every page, served as SVG, and /favicon.ico
	// (which browsers ask for anyway) sends there, open without a login.
	icon := static.URL("favicon.svg")
	if !strings.Contains(page, `<link rel="icon" type="image/svg+xml" href="`+icon+`">`) {
		t.Errorf("the page does not link the icon %s", icon)
	}
	if rec := serve(srv.Handler(), http.MethodGet, icon); rec.Header().Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(rec.Body.String(), "<svg ") {
		t.Errorf("%s: %d %q", icon, rec.Code, rec.Header().Get("Content-Type"))
	}
	if rec := serve(srv.Handler(), http.MethodGet, "/favicon.ico"); rec.Code != http.StatusFound || rec.Header().Get("Location") != icon {
		t.Errorf("/favicon.ico: %d to %q, want 302 to %s", rec.Code, rec.Header().Get("Location"), icon)
	}
	// Unknown paths, assets or not, get the console's 404 page (or JSON
	// when asked for), never net/http's plain text.
	for _, p := range []string{"/static/../go.mod", "/static/nope.css", "/no/such/page"} {
		rec := serve(srv.Handler(), http.MethodGet, p)
		if rec.Code != http.StatusNotFound || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || !strings.Contains(rec.Body.String(), `data-testid="error-page" data-status="404"`) {
			t.Errorf("GET %s: %d %s, want the 404 page: %.300s", p, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
		}
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.Header.Set("Accept", "application/json")
		asJSON := httptest.NewRecorder()
		srv.Handler().ServeHTTP(asJSON, req)
		if asJSON.Code != http.StatusNotFound || !strings.Contains(asJSON.Body.String(), `"code":"not_found"`) {
			t.Errorf("GET %s asking for JSON: %d %s", p, asJSON.Code, asJSON.Body.String())
		}
	}
	// No inline script: scripts come from /static only (a strict CSP follows).
	if regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]`).MatchString(page) || strings.Contains(page, " style=") {
		t.Error("the page has an inline script or style")
	}
}

func TestErrorHandler(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, nil)
	srv.echo.GET("/test/panic", func(echo.Context) error { panic(fmt.Errorf("boom: %w", library.ErrNotFound)) })
	srv.echo.GET("/test/fail", func(echo.Context) error { return errors.New("secret database detail") })
	// A request whose context ended (its deadline passed, its client went)
	// still gets its error page.
	srv.echo.GET("/test/ended", func(c echo.Context) error {
		ctx, cancel := context.WithCancel(c.Request().Context())
		cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		return fmt.Errorf("read: %w", domain.ErrUnavailable)
	})
	srv.echo.GET("/api/test/conflict", func(echo.Context) error {
		return fmt.Errorf("override x at revision 3: %w", library.ErrConflict)
	})

	for _, c := range []struct {
		path   string
		status int
		text   string
	}{
		{"/no/such/page", http.StatusNotFound, "Not Found"},
		{"/test/panic", http.StatusInternalServerError, "Something went wrong"},
		{"/test/fail", http.StatusInternalServerError, "Something went wrong"},
		{"/test/ended", http.StatusServiceUnavailable, "Database unreachable"},
	} {
		rec := serve(srv.Handler(), http.MethodGet, c.path)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.text) || !strings.Contains(rec.Header().Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %s\n%.200s", c.path, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
		}
		if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "boom") {
			t.Errorf("%s: the page shows the internal error", c.path)
		}
	}

	rec := serve(srv.Handler(), http.MethodGet, "/api/test/conflict")
	var body apiErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusConflict ||
		body.Error.Code != "conflict" || !strings.Contains(body.Error.Message, "revision 3") {
		t.Errorf("API error: %d %s", rec.Code, rec.Body.String())
	}
	rec = serve(srv.Handler(), http.MethodGet, "/api/v1/nothing")
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusNotFound || body.Error.Code != "not_found" {
		t.Errorf("API 404: %d %s", rec.Code, rec.Body.String())
	}
}

func TestStartServesUntilClose(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, nil)
	if srv.URL() != "" || srv.Addr() != "" {
		t.Error("URL before Start")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err == nil {
		t.Error("a second Start succeeded")
	}
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") || strings.HasSuffix(srv.URL(), ":0") {
		t.Fatalf("URL %q", srv.URL())
	}
	resp, err := http.Get(srv.URL() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("healthz %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(srv.URL() + "/healthz"); err == nil {
		t.Error("the server still answers after Close")
	}
}

func TestStateLoadMatchesTheServer(t *testing.T) {
	t.Parallel()
	var text string
	_, st := newServer(t, func(ctx context.Context, st *store.Store, lib *library.Snapshot) {
		m, _ := lib.Module("base.identity", "en-US")
		text = strings.Replace(m.Text, "You are", "You really are", 1)
		if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: "base.identity", Locale: "en-US", Text: text, BasedOnVersion: m.Version, BaseSnapshot: m.Text, Publish: true}, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: "base.caution", Locale: "en-US", Text: "not a module", Publish: true}, 0); err != nil {
			t.Fatal(err)
		}
		// A draft is not part of the served state.
		s, _ := lib.Module("base.style", "en-US")
		if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: "base.style", Locale: "en-US", Text: strings.Replace(s.Text, "\n---\n", "\n---\nDraft.\n", 1), BasedOnVersion: s.Version, BaseSnapshot: s.Text}, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateProfile(ctx, domain.Profile{ID: "desk", Locale: "zh-CN", PromptModules: []string{"base.identity"}}); err != nil {
			t.Fatal(err)
		}
	})
	lib, _ := library.Builtin()
	served, err := state.Load(context.Background(), st, lib, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	operator := served.Current().State
	if o, ok := operator.Overrides.Get(assembler.Key("base.identity", "en-us")); operator.Overrides.Len() != 1 || !ok || o.Module.Text != text {
		t.Errorf("%d overrides: want only the parsed base.identity", operator.Overrides.Len())
	}
	if p := operator.Profiles["desk"]; p == nil || p.Locale != "zh-CN" || p.PromptModules[0] != "base.identity" {
		t.Errorf("profile %+v", p)
	}
}

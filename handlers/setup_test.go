package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
	"github.com/promptdesk/promptdesk/web/apitest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// clock is the fixed time of every test server.
var clock = time.Date(2026, 11, 29, 15, 45, 0, 0, time.UTC)

// app is a server on a fresh database, driven through its http.Handler.
type app struct {
	t     *testing.T
	h     http.Handler
	store testStore
	lib   *library.Snapshot
	// token is an API token with every scope, which authorize sends.
	token string
	// jar holds the console cookies (session, CSRF) that do sends; csrf
	// is the CSRF token do sends with every request (X-CSRF-Token).
	jar  *cookiejar.Jar
	csrf string
}

// testStore is what the tests read and write directly in the database
// of a test server (a *store.Store), to set up a case or to check what a
// request stored.
type testStore interface {
	GetOverride(ctx context.Context, moduleID, locale string) (domain.Override, error)
	ListOverrides(ctx context.Context) ([]domain.Override, error)
	ListDrafts(ctx context.Context) ([]domain.Override, error)
	ListRevisions(ctx context.Context, moduleID, locale string) ([]domain.Revision, error)
	SaveOverride(ctx context.Context, o domain.Override, baseRevision int) (domain.Override, error)
	DeleteOverride(ctx context.Context, moduleID, locale string, baseRevision int) error
	ListAudit(ctx context.Context, f domain.AuditFilter) ([]domain.AuditEntry, error)
	CreateProfile(ctx context.Context, p domain.Profile) (domain.Profile, error)
	GetProfile(ctx context.Context, id string) (domain.Profile, error)
	ListProfiles(ctx context.Context) ([]domain.Profile, error)
	GetScenario(ctx context.Context, id string) (domain.Scenario, error)
	DeleteScenario(ctx context.Context, id string) error
	CreateScenario(ctx context.Context, sc domain.Scenario) (domain.Scenario, error)
	CountScenarios(ctx context.Context) (int, error)
	CreateToken(ctx context.Context, name string, scopes []string) (domain.Token, string, error)
	CreateSetupToken(ctx context.Context, name, role string) (string, error)
	CompleteSetup(ctx context.Context, secret, name, password string) (domain.User, error)
	ReadOperatorState(ctx context.Context) (domain.OperatorState, error)
	Pool() *pgxpool.Pool
}

// consoleURL is where the test requests go (httptest.NewRequest's host).
var consoleURL, _ = url.Parse("http://example.com/")

// testPassword is the password of every test user.
const testPassword = "correct horse battery"

// testUser is the user every test server's app logs in as: an admin, so
// that every console route is open to the existing tests.
const testUser = "tester"

// dbUsers records the test databases whose testUser exists.
var dbUsers sync.Map

// newUser creates the account name with role and testPassword through a
// setup link.
func newUser(t *testing.T, st testStore, name, role string) {
	t.Helper()
	ctx := context.Background()
	secret, err := st.CreateSetupToken(ctx, name, role)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CompleteSetup(ctx, secret, "", testPassword); err != nil {
		t.Fatal(err)
	}
}

// anonymous returns a client of the same server with no session.
func (a *app) anonymous() *app {
	jar, _ := cookiejar.New(nil)
	b := *a
	b.jar, b.csrf = jar, ""
	b.refreshCSRF()
	return &b
}

// as returns a client of the same server logged in as name.
func (a *app) as(name string) *app {
	a.t.Helper()
	b := a.anonymous()
	b.login(name, testPassword).want(a.t, http.StatusSeeOther)
	b.refreshCSRF()
	return b
}

// refreshCSRF reads the CSRF token from a page's meta tag (the login
// page, or the password page once logged in: the login expires the token).
func (a *app) refreshCSRF() {
	a.t.Helper()
	page := "/login"
	if a.csrf != "" {
		page = "/account/password"
	}
	r := a.get(page)
	tok, _ := r.doc.Find(`meta[name="csrf-token"]`).Attr("content")
	if tok == "" {
		a.t.Fatalf("no CSRF token on the login page:\n%s", r.Body.String())
	}
	a.csrf = tok
}

// login posts the login form.
func (a *app) login(name, password string) response {
	a.t.Helper()
	return a.post("/login", url.Values{"name": {name}, "password": {password}})
}

// dbTokens maps a test database's URL to the secret of its testToken.
var dbTokens sync.Map

// testToken is the name of the API token of every test server.
const testToken = "handlers-test"

// authorize adds the app's API token to req (Authorization: Bearer): the
// one helper through which the tests call /api/v1.
func (a *app) authorize(req *http.Request) {
	req.Header.Set("Authorization", "Bearer "+a.token)
}

// setup starts a server with the builtin library, or lib when given, on a
// fresh migrated database.
func setup(t *testing.T, lib ...*library.Snapshot) *app {
	t.Helper()
	return setupOn(t, storetest.NewDatabase(t), lib...)
}

// setupOn is setup on an existing database, for two servers sharing one.
func setupOn(t *testing.T, dbURL string, lib ...*library.Snapshot) *app {
	t.Helper()
	return newApp(t, dbURL, false, lib...)
}

// setupReview is setup with change review on.
func setupReview(t *testing.T) *app {
	t.Helper()
	return newApp(t, storetest.NewDatabase(t), true)
}

func newApp(t *testing.T, dbURL string, review bool, lib ...*library.Snapshot) *app {
	t.Helper()
	ctx := context.Background()
	st := storetest.OpenOn(t, dbURL)
	snap := builtin(t)
	if len(lib) > 0 {
		snap = lib[0]
	}
	srv, err := web.New(ctx, web.Config{
		Addr:         "127.0.0.1:0",
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store:        st,
		Library:      reload.Fixed(snap),
		Assembler:    assembler.New(assembler.Config{CountTokens: true}),
		Now:          func() time.Time { return clock },
		ChangeReview: review,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Two servers on one database share its token.
	secret, ok := dbTokens.Load(dbURL)
	if !ok {
		_, created, err := st.CreateToken(domain.WithActor(ctx, "test"), testToken, domain.Scopes)
		if err != nil {
			t.Fatal(err)
		}
		secret = created
		dbTokens.Store(dbURL, created)
	}
	if _, loaded := dbUsers.LoadOrStore(dbURL, true); !loaded {
		newUser(t, st, testUser, domain.RoleAdmin)
	}
	a := &app{t: t, h: apitest.Handler(t, srv.Handler()), store: st, lib: snap, token: secret.(string)}
	return a.as(testUser)
}

func builtin(t *testing.T) *library.Snapshot {
	t.Helper()
	snap, err := library.Builtin()
	if err != nil {
		t.Fatalf("builtin library: %v", err)
	}
	return snap
}

// response is a finished request with its parsed HTML.
type response struct {
	*httptest.ResponseRecorder
	doc *goquery.Document
}

func (a *app) do(method, target string, form url.Values, header ...string) response {
	a.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	// As a browser does, the fragment of a redirect's target stays home.
	target, _, _ = strings.Cut(target, "#")
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if a.csrf != "" {
		req.Header.Set("X-CSRF-Token", a.csrf)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := a.send(req)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(rec.Body.String()))
	if err != nil {
		a.t.Fatalf("%s %s: parse HTML: %v", method, target, err)
	}
	return response{rec, doc}
}

// send serves req with the app's cookies and keeps the cookies set.
func (a *app) send(req *http.Request) *httptest.ResponseRecorder {
	if a.jar != nil {
		for _, c := range a.jar.Cookies(consoleURL) {
			req.AddCookie(c)
		}
	}
	rec := httptest.NewRecorder()
	a.h.ServeHTTP(rec, req)
	if a.jar != nil {
		a.jar.SetCookies(consoleURL, rec.Result().Cookies())
	}
	return rec
}

func (a *app) get(target string, header ...string) response {
	a.t.Helper()
	return a.do(http.MethodGet, target, nil, header...)
}

func (a *app) post(target string, form url.Values) response {
	a.t.Helper()
	return a.do(http.MethodPost, target, form)
}

// want fails the test unless the response has status code.
func (r response) want(t *testing.T, code int) response {
	t.Helper()
	if r.Code != code {
		t.Fatalf("status %d, want %d; body:\n%s", r.Code, code, r.Body.String())
	}
	return r
}

// find returns the elements with data-testid id under sel (or the page).
func (r response) find(id string) *goquery.Selection {
	return r.doc.Find(`[data-testid="` + id + `"]`)
}

// textarea returns a textarea's content as the browser shows it.
func (r response) textarea(name string) string {
	return r.doc.Find(`textarea[name="` + name + `"]`).Text()
}

// builtinText returns the builtin file text of id in locale.
func builtinText(t *testing.T, snap *library.Snapshot, id, locale string) *library.Module {
	t.Helper()
	m, ok := snap.Module(id, locale)
	if !ok {
		t.Fatalf("no builtin %s (%s)", id, locale)
	}
	return m
}

// overrides returns every stored override's head: its draft when there
// is one, else its published revision.
func (a *app) overrides() []domain.Override {
	a.t.Helper()
	list, err := a.store.ListOverrides(context.Background())
	if err != nil {
		a.t.Fatal(err)
	}
	drafts, err := a.store.ListDrafts(context.Background())
	if err != nil {
		a.t.Fatal(err)
	}
	for _, d := range drafts {
		i := slices.IndexFunc(list, func(o domain.Override) bool {
			return o.ModuleID == d.ModuleID && strings.EqualFold(o.Locale, d.Locale)
		})
		if i >= 0 {
			list[i] = d
		} else {
			list = append(list, d)
		}
	}
	slices.SortFunc(list, func(x, y domain.Override) int {
		return strings.Compare(x.ModuleID+" "+x.Locale, y.ModuleID+" "+y.Locale)
	})
	return list
}

// saveDraft posts text to the editor of id in locale and expects the
// redirect to the module page at the locale's card, or back to the editor when the text has
// module checklist warnings: a draft, not served yet.
func (a *app) saveDraft(id, locale, text string, revision int) {
	a.t.Helper()
	r := a.post("/modules/"+id+"/override/"+locale, url.Values{"text": {text}, "revision": {itoa(revision)}})
	r.want(a.t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != "/modules/"+id+"#locale-"+locale && loc != "/modules/"+id+"/override/"+locale {
		a.t.Fatalf("redirect to %q, want /modules/%s#locale-%s or its editor", loc, id, locale)
	}
}

// saveOverride saves text as saveDraft does, then publishes it with the
// module page's Publish form, so that it is served.
func (a *app) saveOverride(id, locale, text string, revision int) {
	a.t.Helper()
	a.saveDraft(id, locale, text, revision)
	head, err := a.store.GetOverride(context.Background(), id, locale)
	if err != nil {
		a.t.Fatal(err)
	}
	r := a.post("/modules/"+id+"/override/"+locale+"/publish", url.Values{"revision": {itoa(head.Revision)}})
	r.want(a.t, http.StatusSeeOther)
}

func itoa(n int) string { return strconv.Itoa(n) }

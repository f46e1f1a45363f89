package web

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/views/components"
)

// openConsole are the console routes that need no session.
var openConsole = map[string]bool{
	"GET /healthz": true, "GET /readyz": true, "GET /static/*": true, "GET /favicon.ico": true,
	"GET /login": true, "POST /login": true,
	"GET /setup/:token": true, "POST /setup/:token": true,
}

// consoleRoles is the least role of every other console route. A route
// registered but missing here fails TestEveryConsoleRouteNeedsALogin.
var consoleRoles = map[string]string{
	"POST /logout":                                      domain.RoleViewer,
	"GET /account/password":                             domain.RoleViewer,
	"POST /account/password":                            domain.RoleViewer,
	"GET /":                                             domain.RoleViewer,
	"GET /modules/:id":                                  domain.RoleViewer,
	"GET /modules/:id/override":                         domain.RoleEditor,
	"GET /modules/:id/override/:locale":                 domain.RoleEditor,
	"POST /modules/:id/override/:locale":                domain.RoleEditor,
	"GET /modules/:id/override/:locale/delete":          domain.RoleEditor,
	"POST /modules/:id/override/:locale/delete":         domain.RoleEditor,
	"POST /modules/:id/override/:locale/publish":        domain.RoleEditor,
	"POST /modules/:id/override/:locale/discard":        domain.RoleEditor,
	"POST /modules/:id/override/:locale/check":          domain.RoleEditor,
	"GET /overrides/new":                                domain.RoleEditor,
	"POST /overrides/new":                               domain.RoleEditor,
	"GET /modules/:id/override/:locale/history":         domain.RoleViewer,
	"POST /modules/:id/override/:locale/restore":        domain.RoleEditor,
	"GET /drift":                                        domain.RoleViewer,
	"GET /drift/:id/:locale":                            domain.RoleViewer,
	"POST /drift/:id/:locale":                           domain.RoleEditor,
	"POST /modules/:id/override/:locale/impact":         domain.RoleEditor,
	"GET /modules/:id/override/:locale/publish":         domain.RoleEditor,
	"GET /modules/:id/override/:locale/discard":         domain.RoleEditor,
	"GET /drift/:id/:locale/take-builtin":               domain.RoleEditor,
	"GET /drift/:id/:locale/keep-mine":                  domain.RoleEditor,
	"GET /requests":                                     domain.RoleViewer,
	"GET /requests/:id":                                 domain.RoleViewer,
	"POST /requests/:id/approve":                        domain.RoleEditor,
	"POST /requests/:id/reject":                         domain.RoleEditor,
	"GET /profiles":                                     domain.RoleViewer,
	"POST /profiles":                                    domain.RoleEditor,
	"GET /profiles/new":                                 domain.RoleEditor,
	"GET /profiles/:id":                                 domain.RoleViewer,
	"POST /profiles/:id":                                domain.RoleEditor,
	"GET /profiles/:id/delete":                          domain.RoleEditor,
	"POST /profiles/:id/delete":                         domain.RoleEditor,
	"GET /preview":                                      domain.RoleViewer,
	"POST /preview":                                     domain.RoleViewer,
	"GET /audit":                                        domain.RoleViewer,
	"GET /users":                                        domain.RoleAdmin,
	"POST /users":                                       domain.RoleAdmin,
	"POST /users/:name/role":                            domain.RoleAdmin,
	"POST /users/:name/disable":                         domain.RoleAdmin,
	"POST /users/links/:id/revoke":                      domain.RoleAdmin,
	"GET /tokens":                                       domain.RoleAdmin,
	"POST /tokens":                                      domain.RoleAdmin,
	"POST /tokens/revoke":                               domain.RoleAdmin,
	"GET /webhooks":                                     domain.RoleAdmin,
	"POST /webhooks":                                    domain.RoleAdmin,
	"POST /webhooks/:id/delete":                         domain.RoleAdmin,
	"POST /webhooks/:id/redeliver":                      domain.RoleAdmin,
	"POST /webhooks/:id/deliveries/:delivery/redeliver": domain.RoleAdmin,
	"GET /scenarios":                                    domain.RoleViewer,
	"POST /scenarios":                                   domain.RoleEditor,
	"GET /scenarios/:id":                                domain.RoleViewer,
	"POST /scenarios/:id":                               domain.RoleEditor,
	"GET /scenarios/:id/request":                        domain.RoleViewer,
	"POST /scenarios/:id/accept":                        domain.RoleEditor,
	"GET /scenarios/:id/delete":                         domain.RoleEditor,
	"POST /scenarios/:id/delete":                        domain.RoleEditor,
	"GET /ledger":                                       domain.RoleViewer,
	"GET /ledger/export.md":                             domain.RoleViewer,
	"GET /ledger/entry":                                 domain.RoleViewer,
	"POST /ledger/decide":                               domain.RoleEditor,
}

// routeTarget fills a route's parameters.
func routeTarget(path string) string {
	r := strings.NewReplacer(":id", "base.identity", ":locale", "en-US", ":name", "nobody", ":token", "x", "*", "app.css")
	return r.Replace(path)
}

// Every console route answers 302 to /login without a session (except
// the open ones); a viewer gets 403 on editor routes, an editor on admin
// routes; the API answers 401 (TestEveryAPIRouteNeedsAToken).
func TestEveryConsoleRouteNeedsALogin(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	newUser(t, st, "vera", domain.RoleViewer)
	newUser(t, st, "ed", domain.RoleEditor)
	anon, viewer, editor := anonymous(t, h), login(t, h, "vera"), login(t, h, "ed")
	seen := 0
	for _, r := range srv.echo.Routes() {
		key := r.Method + " " + r.Path
		if strings.HasPrefix(r.Path, "/api/") || r.Path == mcpPath || r.Method == echoRouteNotFound {
			continue // bearer tokens: TestEveryAPIRouteNeedsAToken, TestMCPNeedsAToken
		}
		if openConsole[key] {
			continue
		}
		seen++
		role, ok := consoleRoles[key]
		if !ok {
			t.Errorf("console route %s has no entry in consoleRoles: give it its role", key)
			continue
		}
		target := routeTarget(r.Path)
		rec := anon.do(h, anon.form(r.Method, target, nil))
		if loc := rec.Header().Get("Location"); rec.Code != http.StatusFound || !strings.HasPrefix(loc, "/login") {
			t.Errorf("%s without a session: %d %q, want 302 to /login", key, rec.Code, loc)
		}
		for _, c := range []struct {
			who    string
			cl     *client
			denied bool
		}{
			{"viewer", viewer, !domain.RoleAtLeast(domain.RoleViewer, role)},
			{"editor", editor, !domain.RoleAtLeast(domain.RoleEditor, role)},
		} {
			if !c.denied {
				continue
			}
			rec := c.cl.do(h, c.cl.form(r.Method, target, nil))
			if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "needs the "+role+" role") {
				t.Errorf("%s as %s: %d, want 403 naming the %s role", key, c.who, rec.Code, role)
			}
		}
	}
	if seen != len(consoleRoles) {
		t.Errorf("%d console routes registered, consoleRoles lists %d", seen, len(consoleRoles))
	}
	// The page asked for comes back after the login.
	rec := anon.do(h, httptest.NewRequest(http.MethodGet, "/drift?x=1", nil))
	if loc := rec.Header().Get("Location"); loc != "/login?next="+url.QueryEscape("/drift?x=1") {
		t.Errorf("redirect to %q", loc)
	}
	// The open routes open.
	for _, p := range []string{"/healthz", "/readyz", "/login"} {
		if rec := anon.do(h, httptest.NewRequest(http.MethodGet, p, nil)); rec.Code != http.StatusOK {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
}

// echoRouteNotFound is the method of Echo's internal any-route entries.
const echoRouteNotFound = "echo_route_not_found"

// A POST without the CSRF token is refused with 403, for a normal form, a
// multipart form and an htmx request; with the token it goes through.
func TestCSRF(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, nil)
	h := srv.Handler()
	c := login(t, h, testUser)
	profile := url.Values{"id": {"support"}, "name": {"Support"}, "description": {""}}

	form := func(withToken bool, id string) *http.Request {
		v := url.Values{}
		for k, vs := range profile {
			v[k] = vs
		}
		v.Set("id", id)
		if !withToken {
			v.Set("_csrf", "")
		}
		return c.form(http.MethodPost, "/profiles", v)
	}
	multi := func(token, id string) *http.Request {
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		for k, vs := range profile {
			if k == "id" {
				vs = []string{id}
			}
			_ = w.WriteField(k, vs[0])
		}
		if token != "" {
			_ = w.WriteField("_csrf", token)
		}
		_ = w.Close()
		req := httptest.NewRequest(http.MethodPost, "/profiles", &body)
		req.Header.Set("Content-Type", w.FormDataContentType())
		return req
	}
	htmx := func(token string) *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/preview", strings.NewReader(url.Values{"scenario": {""}, "locale": {"en-US"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		if token != "" {
			req.Header.Set("X-CSRF-Token", token)
		}
		return req
	}
	for what, req := range map[string]*http.Request{
		"form without token":      form(false, "a"),
		"multipart without token": multi("", "b"),
		"multipart wrong token":   multi("not-the-token", "b"),
		"htmx without token":      htmx(""),
		"htmx wrong token":        htmx("not-the-token"),
	} {
		if rec := c.do(h, req); rec.Code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", what, rec.Code)
		}
	}
	// The refusal page is framed like every page: navigation, the user
	// and a log-out form carrying the browser's token.
	page := c.do(h, form(false, "framed")).Body.String()
	for _, want := range []string{`data-testid="topnav"`, `href="/profiles"`, `data-testid="current-user"`, `name="_csrf" value="` + c.csrf + `"`, "security token has expired"} {
		if !strings.Contains(page, want) {
			t.Errorf("the 403 page lacks %s", want)
		}
	}
	for what, req := range map[string]*http.Request{
		"form with token":      form(true, "with-form"),
		"multipart with token": multi(c.csrf, "with-multipart"),
	} {
		if rec := c.do(h, req); rec.Code != http.StatusSeeOther {
			t.Errorf("%s: %d %s, want 303", what, rec.Code, rec.Body.String())
		}
	}
	if rec := c.do(h, htmx(c.csrf)); rec.Code == http.StatusForbidden {
		t.Errorf("htmx with token: %d", rec.Code)
	}
	// Sec-Fetch-Site does not replace the token.
	req := form(false, "sfs")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if rec := c.do(h, req); rec.Code != http.StatusForbidden {
		t.Errorf("same-origin without token: %d, want 403", rec.Code)
	}
	// The layout carries the token for htmx, the forms as a hidden field.
	page = serve(h, http.MethodGet, "/profiles/new").Body.String()
	if !csrfMeta.MatchString(page) || !strings.Contains(page, `name="_csrf"`) {
		t.Error("the page lacks the csrf-token meta tag or the _csrf field")
	}
}

func TestLoginMessagesAndThrottling(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	newUser(t, st, "alice", domain.RoleEditor)
	try := func(c *client, name, password string) (int, string) {
		rec := c.do(h, c.form(http.MethodPost, "/login", url.Values{"name": {name}, "password": {password}}))
		m := regexpLoginError.FindStringSubmatch(rec.Body.String())
		if m == nil {
			return rec.Code, ""
		}
		return rec.Code, m[1]
	}
	c := anonymous(t, h)
	// No enumeration: the same answer, in similar time.
	t0 := time.Now()
	codeBad, msgBad := try(c, "alice", "wrong password!")
	dBad := time.Since(t0)
	t0 = time.Now()
	codeUnknown, msgUnknown := try(c, "nobody", "wrong password!")
	dUnknown := time.Since(t0)
	if codeBad != http.StatusUnauthorized || codeBad != codeUnknown || msgBad != msgUnknown || msgBad == "" {
		t.Errorf("bad password %d %q, unknown user %d %q: want the same", codeBad, msgBad, codeUnknown, msgUnknown)
	}
	if dUnknown < dBad/4 {
		t.Errorf("unknown user answered in %s, bad password in %s: the timing tells them apart", dUnknown, dBad)
	}
	// A disabled account gets the same message.
	newUser(t, st, "dora", domain.RoleViewer)
	if _, err := st.SetDisabled(context.Background(), "dora", true); err != nil {
		t.Fatal(err)
	}
	if code, msg := try(c, "dora", testPassword); code != codeBad || msg != msgBad {
		t.Errorf("disabled user: %d %q", code, msg)
	}

	// Per account: after 5 failures (from any address), even the right
	// password is refused, with the same message for unknown names.
	for i := 0; i < state.LoginMaxFailuresPerAccount-1; i++ {
		try(anonymous(t, h), "alice", "wrong password!")
	}
	code, msg := try(anonymous(t, h), "alice", testPassword)
	if code != http.StatusTooManyRequests || !strings.Contains(msg, "Too many failed logins") {
		t.Errorf("throttled account: %d %q, want 429", code, msg)
	}
	for i := 0; i < state.LoginMaxFailuresPerAccount; i++ {
		try(anonymous(t, h), "ghost", "wrong password!")
	}
	if code2, msg2 := try(anonymous(t, h), "ghost", "x"); code2 != code || msg2 != msg {
		t.Errorf("throttled unknown name: %d %q, want %d %q", code2, msg2, code, msg)
	}
	// Per address: the failures above all came from httptest's address.
	for i := 0; i < state.LoginMaxFailuresPerAddress; i++ {
		try(c, "user"+itoa(i), "wrong password!")
	}
	newUser(t, st, "bob", domain.RoleViewer)
	if code, _ := try(c, "bob", testPassword); code != http.StatusTooManyRequests {
		t.Errorf("throttled address: %d, want 429", code)
	}
	// Logins and failures are audited.
	entries, err := st.ListAudit(context.Background(), domain.AuditFilter{Subject: domain.SubjectUser, Action: domain.ActionLoginFailed})
	if err != nil || len(entries) == 0 {
		t.Errorf("no failed login audited (%v)", err)
	}
}

func TestSessionsEndOnPasswordChangeAndDisable(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	newUser(t, st, "carol", domain.RoleEditor)
	one, two := login(t, h, "carol"), login(t, h, "carol")
	get := func(c *client) int { return c.do(h, httptest.NewRequest(http.MethodGet, "/", nil)).Code }
	if get(one) != http.StatusOK || get(two) != http.StatusOK {
		t.Fatal("sessions do not work")
	}
	rec := one.do(h, one.form(http.MethodPost, "/account/password", url.Values{
		"current": {testPassword}, "password": {"a brand new password"}, "password2": {"a brand new password"}}))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("change password: %d %s", rec.Code, rec.Body.String())
	}
	if get(one) != http.StatusOK {
		t.Error("the session that changed the password was logged out")
	}
	if code := get(two); code != http.StatusFound {
		t.Errorf("the other session after the password change: %d, want 302 to login", code)
	}

	// An admin disables carol: her session stops at the next request.
	admin := login(t, h, testUser)
	if rec := admin.do(h, admin.form(http.MethodPost, "/users/carol/disable", url.Values{"disabled": {"true"}})); rec.Code != http.StatusSeeOther {
		t.Fatalf("disable: %d %s", rec.Code, rec.Body.String())
	}
	if code := get(one); code != http.StatusFound {
		t.Errorf("disabled user's session: %d, want 302 to login", code)
	}
	// Role changes and disabling are audited with the admin as actor.
	if rec := admin.do(h, admin.form(http.MethodPost, "/users/carol/role", url.Values{"role": {"viewer"}})); rec.Code != http.StatusSeeOther {
		t.Fatalf("role: %d", rec.Code)
	}
	for _, action := range []string{domain.ActionDisable, domain.ActionRole, domain.ActionPassword} {
		e, err := st.ListAudit(context.Background(), domain.AuditFilter{Subject: domain.SubjectUser, Action: action, SubjectID: "carol"})
		if err != nil || len(e) != 1 {
			t.Errorf("audit %s: %v %v", action, e, err)
		}
	}
	// Logout ends the session.
	rec = admin.do(h, admin.form(http.MethodPost, "/logout", nil))
	if rec.Code != http.StatusSeeOther || get(admin) != http.StatusFound {
		t.Errorf("logout: %d, then %d", rec.Code, get(admin))
	}
}

func TestSetupLinks(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	ctx := context.Background()

	// An admin adds a user: the page shows a one-time link.
	admin := login(t, h, testUser)
	rec := admin.do(h, admin.form(http.MethodPost, "/users", url.Values{"name": {"dan"}, "role": {"editor"}}))
	m := regexpSetupLink.FindStringSubmatch(rec.Body.String())
	if rec.Code != http.StatusOK || m == nil {
		t.Fatalf("add user: %d, no setup link in\n%s", rec.Code, rec.Body.String())
	}
	link := m[1]
	c := anonymous(t, h)
	if rec := c.do(h, httptest.NewRequest(http.MethodGet, link, nil)); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "dan") {
		t.Fatalf("setup page: %d", rec.Code)
	}
	set := url.Values{"password": {"dans password!"}, "password2": {"dans password!"}}
	if rec := c.do(h, c.form(http.MethodPost, link, set)); rec.Code != http.StatusSeeOther {
		t.Fatalf("setup: %d %s", rec.Code, rec.Body.String())
	}
	// It logged dan in, as an editor.
	if rec := c.do(h, httptest.NewRequest(http.MethodGet, "/overrides/new", nil)); rec.Code != http.StatusOK {
		t.Errorf("dan after setup: %d", rec.Code)
	}
	// Single use.
	c2 := anonymous(t, h)
	if rec := c2.do(h, c2.form(http.MethodPost, link, set)); rec.Code != http.StatusNotFound {
		t.Errorf("setup link used twice: %d, want 404\n%s", rec.Code, rec.Body.String())
	}
	// Expiry.
	secret, err := st.CreateSetupToken(ctx, "erin", domain.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE setup_tokens SET expires_at = now() - interval '1 second' WHERE hash = $1`, domain.HashToken(secret)); err != nil {
		t.Fatal(err)
	}
	if rec := c2.do(h, httptest.NewRequest(http.MethodGet, "/setup/"+secret, nil)); rec.Code != http.StatusNotFound {
		t.Errorf("expired setup link: %d, want 404", rec.Code)
	}
	// First start: a link for the first admin only while there are no users.
	if link, _, err := srv.FirstSetupLink(ctx); err != nil || link != "" {
		t.Errorf("FirstSetupLink with users: %q %v", link, err)
	}
}

func TestFirstSetupLink(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	srv := newServerOn(t, st)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	link, _, err := srv.FirstSetupLink(ctx)
	if err != nil || !strings.HasPrefix(link, srv.URL()+"/setup/") {
		t.Fatalf("FirstSetupLink: %q %v", link, err)
	}
	h := srv.Handler()
	c := anonymous(t, h)
	path := strings.TrimPrefix(link, srv.URL())
	rec := c.do(h, c.form(http.MethodPost, path, url.Values{"name": {"root"}, "password": {"short"}, "password2": {"short"}}))
	if rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("short password: %d", rec.Code)
	}
	// The typed name is kept, the passwords are not.
	if body := rec.Body.String(); !strings.Contains(body, `name="name" value="root"`) || strings.Contains(body, `value="short"`) {
		t.Errorf("the setup page after a 422 lost the name or kept the password:\n%s", body)
	}
	rec = c.do(h, c.form(http.MethodPost, path, url.Values{"name": {"root2"}, "password": {"long enough pw"}, "password2": {"differs, though"}}))
	if body := rec.Body.String(); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, `value="root2"`) {
		t.Errorf("passwords differ: %d, name kept: %v", rec.Code, strings.Contains(body, `value="root2"`))
	}
	rec = c.do(h, c.form(http.MethodPost, path, url.Values{"name": {"root"}, "password": {"long enough pw"}, "password2": {"long enough pw"}}))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("first admin: %d %s", rec.Code, rec.Body.String())
	}
	if rec := c.do(h, httptest.NewRequest(http.MethodGet, "/users", nil)); rec.Code != http.StatusOK {
		t.Errorf("first admin on /users: %d", rec.Code)
	}
}

var (
	regexpLoginError = regexp.MustCompile(`data-testid="login-error">([^<]*)<`)
	regexpSetupLink  = regexp.MustCompile(`<code>https?://[^/<]+(/setup/[^<]+)</code>`)
)

func itoa(n int) string { return strconv.Itoa(n) }

func storetestDatabase(t *testing.T) string { return storetest.NewDatabase(t) }

// newServerOn builds a Server on st with no users.
func newServerOn(t *testing.T, st *store.Store) *Server {
	t.Helper()
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), Config{
		SecretKeys: testKeys,
		Addr:       "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store: st, Library: reload.Fixed(lib), Assembler: assembler.New(assembler.Config{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestCSRFTokenRotatesAtLogin: a token planted before the login (login
// CSRF, session fixation of the token) is refused once logged in; the
// token issued after the login works.
func TestCSRFTokenRotatesAtLogin(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, nil)
	h := srv.Handler()
	c := anonymous(t, h)
	before := c.csrf
	rec := c.do(h, c.form(http.MethodPost, "/login", url.Values{"name": {testUser}, "password": {testPassword}}))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("log in: %d %s", rec.Code, rec.Body.String())
	}
	if _, ok := c.cookies[components.CSRFCookie]; ok {
		t.Error("the login kept the CSRF cookie from before")
	}
	// One header for the cookie, the expiry: clients that apply a
	// response's cookies in any order must all drop the old token.
	var csrfHeaders []string
	for _, v := range rec.Result().Header.Values("Set-Cookie") {
		if strings.HasPrefix(v, components.CSRFCookie+"=") {
			csrfHeaders = append(csrfHeaders, v)
		}
	}
	if len(csrfHeaders) != 1 || !strings.Contains(csrfHeaders[0], "Max-Age=0") {
		t.Errorf("login response CSRF cookie headers: %q, want exactly one expiry", csrfHeaders)
	}
	profile := func(id, token string) int {
		v := url.Values{"id": {id}, "name": {"P " + id}, "description": {""}, "_csrf": {token}}
		return c.do(h, c.form(http.MethodPost, "/profiles", v)).Code
	}
	if code := profile("old-token", before); code != http.StatusForbidden {
		t.Errorf("the token from before the login: %d, want 403", code)
	}
	c.refreshCSRF(t, h)
	if c.csrf == before {
		t.Fatal("the token after the login is the one from before")
	}
	if code := profile("new-token", c.csrf); code != http.StatusSeeOther {
		t.Errorf("the token from after the login: %d, want 303", code)
	}
}

// TestPasswordChangeIsThrottled: a wrong current password counts as a
// failed login of the account (audited); at the limit even the right one
// is refused with 429 and the throttling message.
func TestPasswordChangeIsThrottled(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	newUser(t, st, "erin", domain.RoleViewer)
	c := login(t, h, "erin")
	change := func(current string) (int, string) {
		rec := c.do(h, c.form(http.MethodPost, "/account/password", url.Values{
			"current": {current}, "password": {"a brand new password"}, "password2": {"a brand new password"}}))
		return rec.Code, rec.Body.String()
	}
	for i := 0; i < state.LoginMaxFailuresPerAccount; i++ {
		if code, body := change("wrong password!"); code != http.StatusUnprocessableEntity {
			t.Fatalf("wrong current password %d: %d %s", i, code, body)
		}
	}
	code, body := change(testPassword)
	if code != http.StatusTooManyRequests || !strings.Contains(body, "Too many failed logins") {
		t.Errorf("throttled password change: %d, want 429 with the message\n%s", code, body)
	}
	// The account's logins are throttled too.
	rec := anonymous(t, h)
	if r := rec.do(h, rec.form(http.MethodPost, "/login", url.Values{"name": {"erin"}, "password": {testPassword}})); r.Code != http.StatusTooManyRequests {
		t.Errorf("login after the failed password checks: %d, want 429", r.Code)
	}
	entries, err := st.ListAudit(context.Background(), domain.AuditFilter{Subject: domain.SubjectUser, Action: domain.ActionLoginFailed, SubjectID: "erin"})
	if err != nil || len(entries) != state.LoginMaxFailuresPerAccount {
		t.Errorf("audited failures: %d (%v), want %d", len(entries), err, state.LoginMaxFailuresPerAccount)
	}
}

// TestUsersPageKeepsTheTypedName: after a 422 the add form still holds
// the name and role typed.
func TestUsersPageKeepsTheTypedName(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, nil)
	h := srv.Handler()
	c := login(t, h, testUser)
	rec := c.do(h, c.form(http.MethodPost, "/users", url.Values{"name": {testUser}, "role": {domain.RoleEditor}}))
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("existing name: %d, want 422", rec.Code)
	}
	body := rec.Body.String()
	if !strings.Contains(body, `name="name" value="`+testUser+`"`) {
		t.Errorf("the typed name is lost:\n%s", body)
	}
	if !strings.Contains(body, `value="`+domain.RoleEditor+`" selected`) {
		t.Errorf("the role chosen is lost")
	}
}

// TestDisableTakesOnlyTrueOrFalse: POST /users/:name/disable takes
// disabled=true or false, anything else is 422 and changes nothing; a
// repeat that changes nothing is not audited.
func TestDisableTakesOnlyTrueOrFalse(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	newUser(t, st, "frank", domain.RoleViewer)
	admin := login(t, h, testUser)
	post := func(v url.Values) int {
		return admin.do(h, admin.form(http.MethodPost, "/users/frank/disable", v)).Code
	}
	audits := func(action string) int {
		e, err := st.ListAudit(context.Background(), domain.AuditFilter{Subject: domain.SubjectUser, Action: action, SubjectID: "frank"})
		if err != nil {
			t.Fatal(err)
		}
		return len(e)
	}
	for _, bad := range []url.Values{{}, {"disabled": {""}}, {"disabled": {"yes"}}, {"disabled": {"1"}}, {"disabled": {"TRUE"}}} {
		if code := post(bad); code != http.StatusUnprocessableEntity {
			t.Errorf("disabled=%q: %d, want 422", bad["disabled"], code)
		}
	}
	if u, err := st.UserByName(context.Background(), "frank"); err != nil || u.Disabled {
		t.Fatalf("a refused value changed the account: %+v %v", u, err)
	}
	for _, v := range []string{"true", "true", "false", "false"} {
		if code := post(url.Values{"disabled": {v}}); code != http.StatusSeeOther {
			t.Errorf("disabled=%s: %d, want 303", v, code)
		}
	}
	if d, e := audits(domain.ActionDisable), audits(domain.ActionEnable); d != 1 || e != 1 {
		t.Errorf("audited %d disables and %d enables, want 1 and 1", d, e)
	}
	// The same for roles: a repeat is not audited.
	for range 2 {
		if rec := admin.do(h, admin.form(http.MethodPost, "/users/frank/role", url.Values{"role": {domain.RoleEditor}})); rec.Code != http.StatusSeeOther {
			t.Fatalf("role: %d", rec.Code)
		}
	}
	if n := audits(domain.ActionRole); n != 1 {
		t.Errorf("audited %d role changes, want 1", n)
	}
}

// Logins, failed logins (with the client address) and token use are
// admin-only entries of the audit log: viewers and editors see the content
// changes, and asking for the user subject is refused.
func TestAuditSecurityEntriesAreAdminOnly(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	newUser(t, st, "vera", domain.RoleViewer)
	form := url.Values{"name": {"vera"}, "password": {"wrong password!"}}
	anon := anonymous(t, h)
	anon.do(h, anon.form(http.MethodPost, "/login", form))
	if _, err := st.CreateProfile(domain.WithActor(context.Background(), testUser), domain.Profile{ID: "support", Name: "Support", Locale: "en-US", TimeZone: "UTC"}); err != nil {
		t.Fatal(err)
	}

	viewer, admin := login(t, h, "vera"), login(t, h, testUser)
	body := viewer.do(h, httptest.NewRequest(http.MethodGet, "/audit", nil)).Body.String()
	if strings.Contains(body, domain.ActionLoginFailed) || strings.Contains(body, `value="user"`) || !strings.Contains(body, `href="/profiles/support"`) {
		t.Errorf("viewer's audit page: want the profile entry and no user entries or user filter:\n%s", body)
	}
	if rec := viewer.do(h, httptest.NewRequest(http.MethodGet, "/audit?subject=user", nil)); rec.Code != http.StatusForbidden {
		t.Errorf("viewer GET /audit?subject=user: %d, want 403", rec.Code)
	}
	body = admin.do(h, httptest.NewRequest(http.MethodGet, "/audit?subject=user", nil)).Body.String()
	if !strings.Contains(body, `<span class="badge badge-kind">`+domain.ActionLoginFailed+`</span>`) {
		t.Errorf("admin's audit page lacks the failed login row:\n%s", body)
	}
}

// Setup links are listed (never their secret) with the issuing admin,
// revocable before use (the link then fails like a used one), and issuing
// and revoking are audited with the admin as actor.
func TestSetupLinksListedRevocableAndAudited(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	admin := login(t, h, testUser)
	body := admin.do(h, httptest.NewRequest(http.MethodGet, "/users", nil)).Body.String()
	if !strings.Contains(body, `data-testid="no-setup-links"`) {
		t.Fatalf("users page before any link: want the no-setup-links line:\n%s", body)
	}
	rec := admin.do(h, admin.form(http.MethodPost, "/users", url.Values{"name": {"dora"}, "role": {domain.RoleEditor}}))
	link := regexp.MustCompile(`/setup/[A-Za-z0-9_-]+`).FindString(rec.Body.String())
	if rec.Code != http.StatusOK || link == "" {
		t.Fatalf("add user: %d, link %q", rec.Code, link)
	}
	secret := strings.TrimPrefix(link, "/setup/")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatal(err)
	}
	row := doc.Find(`[data-testid="setup-link-row"][data-name="dora"]`)
	cells := row.Find("td").Map(func(_ int, s *goquery.Selection) string { return strings.TrimSpace(s.Text()) })
	if len(cells) < 3 || cells[0] != "dora" || cells[1] != domain.RoleEditor || cells[2] != testUser {
		t.Errorf("pending link row: %q, want dora, editor, issued by %s", cells, testUser)
	}
	if strings.Count(rec.Body.String(), secret) != 1 {
		t.Errorf("the secret appears %d times on the page, want once (the just-created panel)", strings.Count(rec.Body.String(), secret))
	}
	action, _ := row.Find("form").Attr("action")
	if rec := admin.do(h, admin.form(http.MethodPost, action, nil)); rec.Code != http.StatusSeeOther {
		t.Fatalf("revoke %s: %d %s", action, rec.Code, rec.Body.String())
	}
	if rec := admin.do(h, admin.form(http.MethodPost, action, nil)); rec.Code != http.StatusNotFound {
		t.Errorf("revoke twice: %d, want 404", rec.Code)
	}
	if rec := anonymous(t, h).do(h, httptest.NewRequest(http.MethodGet, link, nil)); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "revoked") {
		t.Errorf("GET revoked link: %d, want 404 saying it may be revoked", rec.Code)
	}
	if body := admin.do(h, httptest.NewRequest(http.MethodGet, "/users", nil)).Body.String(); strings.Contains(body, `data-testid="setup-link-row"`) {
		t.Errorf("revoked link still listed")
	}
	for _, action := range []string{domain.ActionInvite, domain.ActionRevoke} {
		entries, err := st.ListAudit(context.Background(), domain.AuditFilter{Subject: domain.SubjectUser, SubjectID: "dora", Action: action})
		if err != nil || len(entries) != 1 || entries[0].Actor != testUser {
			t.Errorf("audit %s of dora's link: %+v %v, want one entry by %s", action, entries, err, testUser)
		}
	}
}

// An admin cannot change their own role or disable themself, however the
// name in the URL is cased: the users page says why (409) and nothing
// changes, so the last admin cannot lock everyone out.
func TestAdminCannotChangeSelf(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	admin := login(t, h, testUser)
	for _, tc := range []struct{ path, field, value string }{
		{"/users/" + testUser + "/role", "role", domain.RoleViewer},
		{"/users/" + strings.ToUpper(testUser) + "/role", "role", domain.RoleEditor},
		{"/users/" + testUser + "/disable", "disabled", "true"},
	} {
		rec := admin.do(h, admin.form(http.MethodPost, tc.path, url.Values{tc.field: {tc.value}}))
		body := rec.Body.String()
		if rec.Code != http.StatusConflict || !strings.Contains(body, `data-testid="users-error"`) ||
			!strings.Contains(body, "You cannot change your own role or disable your own account: another admin has to") {
			t.Errorf("POST %s: %d, want 409 with the users page saying why\n%s", tc.path, rec.Code, body)
		}
	}
	if u, err := st.UserByName(context.Background(), testUser); err != nil || u.Role != domain.RoleAdmin || u.Disabled {
		t.Errorf("after the refused changes: %+v %v, want an enabled admin", u, err)
	}
	if rec := admin.do(h, httptest.NewRequest(http.MethodGet, "/users", nil)); rec.Code != http.StatusOK {
		t.Errorf("the admin's session after the refusals: %d", rec.Code)
	}
}

// TestParallelLoginsThrottled: wrong passwords for one name posted at
// once get LoginMaxFailuresPerAccount answers 401 and 429 for the rest:
// the throttle is reserved before the password check.
func TestParallelLoginsThrottled(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	newUser(t, st, "frank", domain.RoleViewer)
	const attempts = 30
	clients := make([]*client, attempts)
	for i := range clients {
		clients[i] = anonymous(t, h)
	}
	codes := make([]int, attempts)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			codes[i] = c.do(h, c.form(http.MethodPost, "/login", url.Values{"name": {"frank"}, "password": {"wrong password!"}})).Code
		})
	}
	wg.Wait()
	count := map[int]int{}
	for _, code := range codes {
		count[code]++
	}
	if count[http.StatusUnauthorized] != state.LoginMaxFailuresPerAccount || count[http.StatusTooManyRequests] != attempts-state.LoginMaxFailuresPerAccount {
		t.Errorf("answers %v, want %d × 401 and %d × 429", count, state.LoginMaxFailuresPerAccount, attempts-state.LoginMaxFailuresPerAccount)
	}
}

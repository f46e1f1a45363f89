package handlers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/alexedwards/scs/v2/memstore"
	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
)

// fakeAccounts answers Auth with the errors a test sets; the user it
// logs in is admin. A method a test does not reach is left to the nil
// embedded interface.
type fakeAccounts struct {
	handlers.AccountService
	admin    domain.User
	loginErr error
	setErr   error
}

func (f *fakeAccounts) Login(ctx context.Context, name, password, addr string) (domain.User, error) {
	if f.loginErr != nil {
		return domain.User{}, f.loginErr
	}
	return f.admin, nil
}

func (f *fakeAccounts) SessionUser(ctx context.Context, id, passwordChanged int64) (domain.User, bool, error) {
	return f.admin, id == f.admin.ID && passwordChanged == f.admin.PasswordChangedAt.UnixMicro(), nil
}

func (f *fakeAccounts) SetRole(ctx context.Context, me domain.User, name, role string) (domain.User, error) {
	return domain.User{}, f.setErr
}

func (f *fakeAccounts) Users(ctx context.Context) ([]domain.User, error) {
	return []domain.User{f.admin}, nil
}

func (f *fakeAccounts) PendingLinks(ctx context.Context) ([]domain.SetupLinkInfo, error) {
	return nil, nil
}

// authServer serves the login and role routes of Auth over accounts,
// with sessions in memory.
func authServer(accounts handlers.AccountService) http.Handler {
	sm := handlers.NewSessions(memstore.New(), false)
	auth := &handlers.Auth{Accounts: accounts, Sessions: sm, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	e := echo.New()
	e.Use(echo.WrapMiddleware(sm.LoadAndSave), auth.LoadUser)
	e.POST("/login", auth.Login)
	e.POST("/users/:name/role", auth.SetRole, handlers.RequireRole(domain.RoleAdmin))
	return e
}

// postForm serves a form post with cookie (may be nil).
func postForm(h http.Handler, target string, form url.Values, cookie *http.Cookie) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if cookie != nil {
		req.AddCookie(cookie)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// testidText is the text of the element with data-testid id in body.
func testidText(t *testing.T, body, id string) string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(doc.Find(`[data-testid="` + id + `"]`).Text())
}

// TestLoginAnswers: a throttled login is 429 with the wait taken from the
// throttle's window, a failed one 401, each on the login page, without a
// session; a good one redirects with a session.
func TestLoginAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		err      error
		code     int
		msg      string
		sessions int
	}{
		{"throttled", fmt.Errorf("%w: wait 15 minutes, then try again", domain.ErrLoginThrottled), http.StatusTooManyRequests,
			"Too many failed logins for this account or from this address. Wait 15 minutes, then try again.", 0},
		{"failed", domain.ErrLoginFailed, http.StatusUnauthorized, "The name or password is not correct.", 0},
		{"ok", nil, http.StatusSeeOther, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := authServer(&fakeAccounts{admin: domain.User{ID: 1, Name: "ann", Role: domain.RoleAdmin}, loginErr: tc.err})
			rec := postForm(h, "/login", url.Values{"name": {"ann"}, "password": {"whatever it is"}}, nil)
			sessions := 0
			for _, c := range rec.Result().Cookies() {
				if c.Name == "promptdesk_session" && c.MaxAge >= 0 {
					sessions++
				}
			}
			if msg := testidText(t, rec.Body.String(), "login-error"); rec.Code != tc.code || msg != tc.msg || sessions != tc.sessions {
				t.Errorf("%d %q, %d session cookies; want %d %q, %d", rec.Code, msg, sessions, tc.code, tc.msg, tc.sessions)
			}
		})
	}
}

// TestRoleChangeRefusals: the admin's own account and the last enabled
// admin answer 409 with the users page saying why; a change done
// redirects to the users page.
func TestRoleChangeRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"own account", domain.ErrOwnAccount, http.StatusConflict,
			"You cannot change your own role or disable your own account: another admin has to, so that the console always keeps an admin."},
		{"last admin", domain.ErrLastAdmin, http.StatusConflict, "This is the last enabled admin: make another user admin first."},
		{"done", nil, http.StatusSeeOther, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeAccounts{admin: domain.User{ID: 1, Name: "ann", Role: domain.RoleAdmin, PasswordChangedAt: time.Unix(1, 0)}, setErr: tc.err}
			h := authServer(f)
			login := postForm(h, "/login", url.Values{"name": {"ann"}, "password": {"whatever it is"}}, nil)
			var session *http.Cookie
			for _, c := range login.Result().Cookies() {
				if c.Name == "promptdesk_session" {
					session = c
				}
			}
			if session == nil {
				t.Fatalf("login: %d, no session cookie", login.Code)
			}
			rec := postForm(h, "/users/ben/role", url.Values{"role": {domain.RoleViewer}}, session)
			if msg := testidText(t, rec.Body.String(), "users-error"); rec.Code != tc.code || msg != tc.msg {
				t.Errorf("%d %q, want %d %q", rec.Code, msg, tc.code, tc.msg)
			}
		})
	}
}

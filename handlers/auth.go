package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/authpage"
	"github.com/promptdesk/promptdesk/views/components"
)

// Session lifetimes: a session ends after SessionIdleTimeout
// without a request, and SessionLifetime after the login in any case.
const (
	SessionIdleTimeout = 12 * time.Hour
	SessionLifetime    = 7 * 24 * time.Hour
)

// Session keys.
const (
	sessionUserID   = "uid"
	sessionPassword = "pwc" // the user's password_changed_at, µs since 1970
)

// userCtxKey is the echo.Context key of the logged-in domain.User.
const userCtxKey = "promptdesk.user"

// loginFailed is the one message of a refused login (no enumeration).
const loginFailed = "The name or password is not correct."

// passwordRule is the store's password rule as the pages show it.
var passwordRule = authpage.PasswordRule{MinChars: domain.MinPasswordLength, MaxBytes: domain.MaxPasswordBytes}

// tooManyLogins is the message of a throttled login (429), the same for
// existing and unknown names.
var tooManyLogins = "Too many failed logins for this account or from this address. Wait " + state.LoginWait() + ", then try again."

// ownAccount is the users page's message of an admin changing their own
// account (409).
const ownAccount = "You cannot change your own role or disable your own account: another admin has to, so that the console always keeps an admin."

// lastAdmin is the users page's message of a change that would leave no
// enabled admin (409).
const lastAdmin = "This is the last enabled admin: make another user admin first."

// AccountService is what Auth needs of the accounts rules
// (*state.Accounts): the throttled login and password change, setup
// links, the session's user, roles and disabling.
type AccountService interface {
	Login(ctx context.Context, name, password, addr string) (domain.User, error)
	ChangePassword(ctx context.Context, me domain.User, current, password, repeat, addr string) (domain.User, error)
	SessionUser(ctx context.Context, id, passwordChanged int64) (domain.User, bool, error)
	Users(ctx context.Context) ([]domain.User, error)
	PendingLinks(ctx context.Context) ([]domain.SetupLinkInfo, error)
	Invite(ctx context.Context, name, role string) (string, error)
	RevokeLink(ctx context.Context, id int64) error
	SetupLink(ctx context.Context, secret string) (domain.SetupToken, error)
	CompleteSetup(ctx context.Context, secret, name, password, repeat string) (domain.User, error)
	SetRole(ctx context.Context, me domain.User, name, role string) (domain.User, error)
	SetDisabled(ctx context.Context, me domain.User, name string, disabled bool) (domain.User, error)
}

// Auth handles accounts: login, logout, setup links, the own-password
// form and the users page, and the middleware that loads the user of the
// session and checks roles. The rules are Accounts'; Auth binds forms,
// keeps the session and renders.
type Auth struct {
	Accounts AccountService
	Sessions *scs.SessionManager
	Log      *slog.Logger
}

// NewSessions returns the session manager of the console: sessions in
// Postgres (store), cookies HttpOnly, SameSite=Lax, Secure when secure.
func NewSessions(st scs.Store, secure bool) *scs.SessionManager {
	sm := scs.New()
	sm.Store = st
	sm.IdleTimeout = SessionIdleTimeout
	sm.Lifetime = SessionLifetime
	sm.Cookie.Name = "promptdesk_session"
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = secure
	sm.Cookie.Path = "/"
	return sm
}

// CurrentUser returns the user LoadUser found for this request.
func CurrentUser(c echo.Context) (domain.User, bool) {
	u, ok := c.Get(userCtxKey).(domain.User)
	return u, ok
}

// LoadUser finds the user of the request's session: it must exist, be
// enabled and not have changed its password since the session began;
// otherwise the session is destroyed. The request context then carries
// the user's name as the actor of its changes (domain.WithActor) and the
// user for the layout.
func (a *Auth) LoadUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		id := a.Sessions.GetInt64(ctx, sessionUserID)
		if id == 0 {
			return next(c)
		}
		u, ok, err := a.Accounts.SessionUser(ctx, id, a.Sessions.GetInt64(ctx, sessionPassword))
		switch {
		case err != nil:
			return err
		case ok:
			c.Set(userCtxKey, u)
			ctx = domain.WithActor(ctx, u.Name)
			ctx = components.WithUser(ctx, components.User{Name: u.Name, Role: u.Role,
				CanEdit: domain.RoleAtLeast(u.Role, domain.RoleEditor), IsAdmin: domain.RoleAtLeast(u.Role, domain.RoleAdmin)})
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
		if err := a.Sessions.Destroy(ctx); err != nil {
			return err
		}
		return next(c)
	}
}

// RequireRole lets through a logged-in user whose role allows what role
// allows. Without a session it redirects to /login?next=<this page>; with
// a lesser role it fails with 403.
func RequireRole(role string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			u, ok := CurrentUser(c)
			if !ok && WantsJSON(c) {
				return &library.Error{Code: library.CodeUnauthorized, Msg: "Your session has ended: log in again (reload the page)."}
			}
			if !ok {
				target := "/login"
				if uri := c.Request().URL.RequestURI(); uri != "/" {
					target += "?next=" + url.QueryEscape(uri)
				}
				if c.Request().Header.Get("HX-Request") == "true" {
					c.Response().Header().Set("HX-Redirect", target)
				}
				return c.Redirect(http.StatusFound, target)
			}
			if !domain.RoleAtLeast(u.Role, role) {
				return &library.Error{Code: library.CodeForbidden,
					Msg: fmt.Sprintf("Your role (%s) does not allow this: it needs the %s role. Ask an admin.", u.Role, role)}
			}
			return next(c)
		}
	}
}

// safeNext returns next when it is a path on this site, else "/".
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

// LoginForm handles GET /login.
func (a *Auth) LoginForm(c echo.Context) error {
	if _, ok := CurrentUser(c); ok {
		return c.Redirect(http.StatusSeeOther, safeNext(c.QueryParam("next")))
	}
	return Render(c, http.StatusOK, authpage.LoginPage(authpage.Login{Next: c.QueryParam("next")}))
}

// Login handles POST /login.
func (a *Auth) Login(c echo.Context) error {
	ctx := c.Request().Context()
	m := authpage.Login{Name: strings.TrimSpace(c.FormValue("name")), Next: c.FormValue("next")}
	u, err := a.Accounts.Login(ctx, m.Name, c.FormValue("password"), c.RealIP())
	switch {
	case errors.Is(err, domain.ErrLoginThrottled):
		m.Error = tooManyLogins
		return Render(c, http.StatusTooManyRequests, authpage.LoginPage(m))
	case errors.Is(err, domain.ErrLoginFailed):
		m.Error = loginFailed
		return Render(c, http.StatusUnauthorized, authpage.LoginPage(m))
	case err != nil:
		return err
	}
	if err := a.startSession(c, u); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, safeNext(m.Next))
}

// startSession logs u in with a new session token.
func (a *Auth) startSession(c echo.Context, u domain.User) error {
	ctx := c.Request().Context()
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.Sessions.Put(ctx, sessionUserID, u.ID)
	a.Sessions.Put(ctx, sessionPassword, u.PasswordChangedAt.UnixMicro())
	// A CSRF token from before the login is worthless: the next request
	// gets a new one. The CSRF middleware has already re-set the old
	// token on this response; drop that header so that clients see only
	// the expiry, whatever order they apply cookies in.
	h := c.Response().Header()
	h["Set-Cookie"] = slices.DeleteFunc(h["Set-Cookie"], func(v string) bool {
		return strings.HasPrefix(v, components.CSRFCookie+"=")
	})
	c.SetCookie(&http.Cookie{Name: components.CSRFCookie, Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: a.Sessions.Cookie.Secure, SameSite: http.SameSiteLaxMode})
	return nil
}

// Logout handles POST /logout.
func (a *Auth) Logout(c echo.Context) error {
	if err := a.Sessions.Destroy(c.Request().Context()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/login")
}

// SetupForm handles GET /setup/:token.
func (a *Auth) SetupForm(c echo.Context) error {
	t, err := a.Accounts.SetupLink(c.Request().Context(), c.Param("token"))
	if err != nil {
		return err
	}
	return Render(c, http.StatusOK, authpage.SetupPage(authpage.Setup{Action: c.Request().URL.Path, Name: t.UserName, Role: t.Role, Rule: passwordRule}))
}

// Setup handles POST /setup/:token: it creates the account and logs in.
func (a *Auth) Setup(c echo.Context) error {
	ctx := c.Request().Context()
	secret := c.Param("token")
	t, err := a.Accounts.SetupLink(ctx, secret)
	if err != nil {
		return err
	}
	m := authpage.Setup{Action: c.Request().URL.Path, Name: t.UserName, Role: t.Role, Rule: passwordRule}
	if m.Name == "" {
		m.Typed = strings.TrimSpace(c.FormValue("name"))
	}
	u, err := a.Accounts.CompleteSetup(ctx, secret, c.FormValue("name"), c.FormValue("password"), c.FormValue("password2"))
	switch {
	case errors.Is(err, state.ErrPasswordsDiffer):
		m.Error = "The two passwords differ."
		return Render(c, http.StatusUnprocessableEntity, authpage.SetupPage(m))
	case errors.Is(err, library.ErrInvalid) || errors.Is(err, library.ErrConflict):
		m.Error = errorText(err)
		return Render(c, http.StatusUnprocessableEntity, authpage.SetupPage(m))
	case err != nil:
		return err
	}
	if err := a.startSession(c, u); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/")
}

// errorText is err's message without the sentinel's suffix.
func errorText(err error) string {
	msg := err.Error()
	for _, s := range []error{library.ErrInvalid, library.ErrConflict, library.ErrNotFound} {
		msg = strings.TrimSuffix(msg, ": "+s.Error())
	}
	return msg
}

// PasswordForm handles GET /account/password.
func (a *Auth) PasswordForm(c echo.Context) error {
	return Render(c, http.StatusOK, authpage.PasswordPage(authpage.Password{Done: c.QueryParam("done") == "1", Rule: passwordRule}))
}

// ChangePassword handles POST /account/password: it ends every other
// session of the user and keeps this one.
func (a *Auth) ChangePassword(c echo.Context) error {
	ctx := c.Request().Context()
	u, _ := CurrentUser(c)
	m := authpage.Password{Rule: passwordRule}
	nu, err := a.Accounts.ChangePassword(ctx, u, c.FormValue("current"), c.FormValue("password"), c.FormValue("password2"), c.RealIP())
	switch {
	case errors.Is(err, domain.ErrLoginThrottled):
		m.Error = tooManyLogins
		return Render(c, http.StatusTooManyRequests, authpage.PasswordPage(m))
	case errors.Is(err, domain.ErrLoginFailed):
		m.Error = "The current password is not correct."
		return Render(c, http.StatusUnprocessableEntity, authpage.PasswordPage(m))
	case errors.Is(err, state.ErrPasswordsDiffer):
		m.Error = "The two new passwords differ."
		return Render(c, http.StatusUnprocessableEntity, authpage.PasswordPage(m))
	case errors.Is(err, library.ErrInvalid):
		m.Error = errorText(err)
		return Render(c, http.StatusUnprocessableEntity, authpage.PasswordPage(m))
	case err != nil:
		return err
	}
	if err := a.startSession(c, nu); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/account/password?done=1")
}

// SetupURL is the setup link of secret on the console at base
// ("http://127.0.0.1:8080").
func SetupURL(base, secret string) string {
	return strings.TrimSuffix(base, "/") + "/setup/" + secret
}

// Users handles GET /users (admins).
func (a *Auth) Users(c echo.Context) error {
	return a.renderUsers(c, http.StatusOK, authpage.Users{})
}

func (a *Auth) renderUsers(c echo.Context, status int, m authpage.Users) error {
	me, _ := CurrentUser(c)
	list, err := a.Accounts.Users(c.Request().Context())
	if err != nil {
		return err
	}
	for _, u := range list {
		m.Users = append(m.Users, authpage.UserRow{Name: u.Name, Role: u.Role, Disabled: u.Disabled, Self: u.ID == me.ID})
	}
	m.Roles = domain.Roles
	m.Rule = passwordRule
	links, err := a.Accounts.PendingLinks(c.Request().Context())
	if err != nil {
		return err
	}
	for _, l := range links {
		m.Links = append(m.Links, authpage.LinkRow{ID: l.ID, Name: l.UserName, Role: l.Role, CreatedBy: l.CreatedBy,
			Created: l.CreatedAt.UTC().Format(auditTimeLayout), Expires: l.ExpiresAt.UTC().Format(auditTimeLayout)})
	}
	return Render(c, status, authpage.UsersPage(m))
}

// RevokeSetupLink handles POST /users/links/:id/revoke: the pending setup
// link can no longer be used. Errors: 404 when it is not pending.
func (a *Auth) RevokeSetupLink(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return fmt.Errorf("setup link id must be a positive whole number, got %q: %w", c.Param("id"), library.ErrInvalid)
	}
	if err := a.Accounts.RevokeLink(c.Request().Context(), id); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/users")
}

// AddUser handles POST /users: it shows a one-time setup link for the
// new account.
func (a *Auth) AddUser(c echo.Context) error {
	name, role := strings.TrimSpace(c.FormValue("name")), c.FormValue("role")
	secret, err := a.Accounts.Invite(c.Request().Context(), name, role)
	if errors.Is(err, library.ErrInvalid) || errors.Is(err, library.ErrConflict) {
		return a.renderUsers(c, http.StatusUnprocessableEntity, authpage.Users{AddError: errorText(err), Name: name, Role: role})
	} else if err != nil {
		return err
	}
	base := c.Scheme() + "://" + c.Request().Host
	return a.renderUsers(c, http.StatusOK, authpage.Users{Link: SetupURL(base, secret), LinkName: name})
}

// SetRole handles POST /users/:name/role. An admin's change of their own
// role, or one leaving no enabled admin, answers 409 with the users page
// saying why.
func (a *Auth) SetRole(c echo.Context) error {
	me, _ := CurrentUser(c)
	_, err := a.Accounts.SetRole(c.Request().Context(), me, c.Param("name"), c.FormValue("role"))
	return a.afterChange(c, err)
}

// SetDisabled handles POST /users/:name/disable: disabled=true or
// disabled=false, anything else is refused (422). Disabling oneself, or
// the last enabled admin, answers 409 with the users page saying why.
func (a *Auth) SetDisabled(c echo.Context) error {
	var disabled bool
	switch c.FormValue("disabled") {
	case "true":
		disabled = true
	case "false":
	default:
		return fmt.Errorf("disabled must be true or false: %w", library.ErrInvalid)
	}
	me, _ := CurrentUser(c)
	_, err := a.Accounts.SetDisabled(c.Request().Context(), me, c.Param("name"), disabled)
	return a.afterChange(c, err)
}

// afterChange answers a role or status change: back to the users page,
// or the page with why the change was refused (409), or err for the
// error handler.
func (a *Auth) afterChange(c echo.Context, err error) error {
	switch {
	case errors.Is(err, domain.ErrOwnAccount):
		return a.renderUsers(c, http.StatusConflict, authpage.Users{Error: ownAccount})
	case errors.Is(err, domain.ErrLastAdmin):
		return a.renderUsers(c, http.StatusConflict, authpage.Users{Error: lastAdmin})
	case err != nil:
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/users")
}

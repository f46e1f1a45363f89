package handlers

import (
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
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/views/authpage"
	"github.com/promptdesk/promptdesk/views/components"
)

// Session lifetimes: a session ends after SessionIdleTimeout
// without a request, and SessionLifetime after the login in any case.
const (
	SessionIdleTimeout = 12 * time.Hour
	SessionLifetime    = 7 * 24 * time.Hour
)

// Login throttling: more than LoginMaxFailuresPerAccount failed logins
// for one name, or LoginMaxFailuresPerAddress from one client address,
// within LoginThrottleWindow refuse further logins (429) until the window
// has passed. The message is the same for existing and unknown names.
const (
	LoginThrottleWindow        = 15 * time.Minute
	LoginMaxFailuresPerAccount = 5
	LoginMaxFailuresPerAddress = 20
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

// tooManyLogins is the message of a throttled login.
const tooManyLogins = "Too many failed logins for this account or from this address. Wait 15 minutes, then try again."

// Auth handles accounts: login, logout, setup links, the own-password
// form and the users page, and the middleware that loads the user of the
// session and checks roles.
type Auth struct {
	Store    *store.Store
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
		u, err := a.Store.UserByID(ctx, id)
		switch {
		case errors.Is(err, library.ErrNotFound):
		case err != nil:
			return err
		case !u.Disabled && u.PasswordChangedAt.UnixMicro() == a.Sessions.GetInt64(ctx, sessionPassword):
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
				return echo.NewHTTPError(http.StatusUnauthorized, "Your session has ended: log in again (reload the page).")
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
				return echo.NewHTTPError(http.StatusForbidden,
					fmt.Sprintf("Your role (%s) does not allow this: it needs the %s role. Ask an admin.", u.Role, role))
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
	addr := c.RealIP()
	byName, byAddr, err := a.Store.LoginFailures(ctx, m.Name, addr, time.Now().Add(-LoginThrottleWindow))
	if err != nil {
		return err
	}
	if byName >= LoginMaxFailuresPerAccount || byAddr >= LoginMaxFailuresPerAddress {
		m.Error = tooManyLogins
		return Render(c, http.StatusTooManyRequests, authpage.LoginPage(m))
	}
	u, err := a.Store.CheckLogin(ctx, m.Name, c.FormValue("password"))
	if errors.Is(err, domain.ErrLoginFailed) {
		if err := a.Store.RecordLogin(ctx, m.Name, addr, false); err != nil {
			return err
		}
		m.Error = loginFailed
		return Render(c, http.StatusUnauthorized, authpage.LoginPage(m))
	} else if err != nil {
		return err
	}
	if err := a.Store.RecordLogin(ctx, u.Name, addr, true); err != nil {
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
	t, err := a.Store.SetupLink(c.Request().Context(), c.Param("token"))
	if err != nil {
		return err
	}
	return Render(c, http.StatusOK, authpage.SetupPage(authpage.Setup{Action: c.Request().URL.Path, Name: t.UserName, Role: t.Role, Rule: passwordRule}))
}

// Setup handles POST /setup/:token: it creates the account and logs in.
func (a *Auth) Setup(c echo.Context) error {
	ctx := c.Request().Context()
	secret := c.Param("token")
	t, err := a.Store.SetupLink(ctx, secret)
	if err != nil {
		return err
	}
	m := authpage.Setup{Action: c.Request().URL.Path, Name: t.UserName, Role: t.Role, Rule: passwordRule}
	if m.Name == "" {
		m.Typed = strings.TrimSpace(c.FormValue("name"))
	}
	if c.FormValue("password") != c.FormValue("password2") {
		m.Error = "The two passwords differ."
		return Render(c, http.StatusUnprocessableEntity, authpage.SetupPage(m))
	}
	u, err := a.Store.CompleteSetup(ctx, secret, c.FormValue("name"), c.FormValue("password"))
	if errors.Is(err, library.ErrInvalid) || errors.Is(err, library.ErrConflict) {
		m.Error = errorText(err)
		return Render(c, http.StatusUnprocessableEntity, authpage.SetupPage(m))
	} else if err != nil {
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
	// The current password is throttled and audited like a login: a
	// wrong one counts as a failed login of the account from the address.
	addr := c.RealIP()
	byName, byAddr, err := a.Store.LoginFailures(ctx, u.Name, addr, time.Now().Add(-LoginThrottleWindow))
	if err != nil {
		return err
	}
	if byName >= LoginMaxFailuresPerAccount || byAddr >= LoginMaxFailuresPerAddress {
		m.Error = tooManyLogins
		return Render(c, http.StatusTooManyRequests, authpage.PasswordPage(m))
	}
	if _, err := a.Store.CheckLogin(ctx, u.Name, c.FormValue("current")); err != nil {
		if !errors.Is(err, domain.ErrLoginFailed) {
			return err
		}
		if err := a.Store.RecordLogin(ctx, u.Name, addr, false); err != nil {
			return err
		}
		m.Error = "The current password is not correct."
		return Render(c, http.StatusUnprocessableEntity, authpage.PasswordPage(m))
	}
	if c.FormValue("password") != c.FormValue("password2") {
		m.Error = "The two new passwords differ."
		return Render(c, http.StatusUnprocessableEntity, authpage.PasswordPage(m))
	}
	nu, err := a.Store.SetPassword(ctx, u.Name, c.FormValue("password"))
	if errors.Is(err, library.ErrInvalid) {
		m.Error = errorText(err)
		return Render(c, http.StatusUnprocessableEntity, authpage.PasswordPage(m))
	} else if err != nil {
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
	list, err := a.Store.ListUsers(c.Request().Context())
	if err != nil {
		return err
	}
	for _, u := range list {
		m.Users = append(m.Users, authpage.UserRow{Name: u.Name, Role: u.Role, Disabled: u.Disabled, Self: u.ID == me.ID})
	}
	m.Roles = domain.Roles
	m.Rule = passwordRule
	links, err := a.Store.PendingSetupLinks(c.Request().Context())
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
	if err := a.Store.RevokeSetupLink(c.Request().Context(), id); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/users")
}

// AddUser handles POST /users: it shows a one-time setup link for the
// new account.
func (a *Auth) AddUser(c echo.Context) error {
	name, role := strings.TrimSpace(c.FormValue("name")), c.FormValue("role")
	secret, err := a.Store.CreateSetupToken(c.Request().Context(), name, role)
	if errors.Is(err, library.ErrInvalid) || errors.Is(err, library.ErrConflict) {
		return a.renderUsers(c, http.StatusUnprocessableEntity, authpage.Users{AddError: errorText(err), Name: name, Role: role})
	} else if err != nil {
		return err
	}
	base := c.Scheme() + "://" + c.Request().Host
	return a.renderUsers(c, http.StatusOK, authpage.Users{Link: SetupURL(base, secret), LinkName: name})
}

// SetRole handles POST /users/:name/role. An admin's change of their own
// role answers 409 with the users page saying why.
func (a *Auth) SetRole(c echo.Context) error {
	if refused, err := a.refuseSelf(c); refused || err != nil {
		return err
	}
	if _, err := a.Store.SetRole(c.Request().Context(), c.Param("name"), c.FormValue("role")); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/users")
}

// SetDisabled handles POST /users/:name/disable: disabled=true or
// disabled=false, anything else is refused (422). Disabling oneself
// answers 409 with the users page saying why.
func (a *Auth) SetDisabled(c echo.Context) error {
	if refused, err := a.refuseSelf(c); refused || err != nil {
		return err
	}
	var disabled bool
	switch c.FormValue("disabled") {
	case "true":
		disabled = true
	case "false":
	default:
		return fmt.Errorf("disabled must be true or false: %w", library.ErrInvalid)
	}
	if _, err := a.Store.SetDisabled(c.Request().Context(), c.Param("name"), disabled); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/users")
}

// refuseSelf answers 409 with the users page when the account changed is
// the admin's own (names compare ignoring case, as accounts do): an admin
// demoting or disabling themself could leave the console without one,
// so another admin has to do it. refused says the answer was written.
func (a *Auth) refuseSelf(c echo.Context) (refused bool, err error) {
	me, _ := CurrentUser(c)
	target, err := a.Store.UserByName(c.Request().Context(), c.Param("name"))
	if err != nil || target.ID != me.ID {
		return false, err
	}
	return true, a.renderUsers(c, http.StatusConflict, authpage.Users{
		Error: "You cannot change your own role or disable your own account: another admin has to, so that the console always keeps an admin."})
}

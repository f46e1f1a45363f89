package state

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// Login throttling: when LoginMaxFailuresPerAccount logins for one name
// (compared ignoring case), or LoginMaxFailuresPerAddress from one client
// address, failed or are still being checked within LoginThrottleWindow,
// further logins there are refused until the window has passed, with one
// message for existing and unknown names. A check of the current
// password (ChangePassword) counts as a login of the account.
const (
	LoginThrottleWindow        = 15 * time.Minute
	LoginMaxFailuresPerAccount = 5
	LoginMaxFailuresPerAddress = 20
)

// FirstAdminIssuer is the actor recorded for the first admin's setup
// link (domain.SetupLinkInfo.CreatedBy).
const FirstAdminIssuer = "server"

// firstAdminLock is the name of the lock under which one process issues
// the first admin's link.
const firstAdminLock = "first-admin"

// ErrPasswordsDiffer is the error of a password typed twice differently
// (setup, password change). It matches library.ErrInvalid.
var ErrPasswordsDiffer = fmt.Errorf("password2: the two passwords differ: %w", library.ErrInvalid)

// AccountStore is what Accounts reads and writes (*store.Store).
// ReserveLogin must count and reserve atomically (domain.ErrLoginThrottled
// when over a limit); SetRole and SetDisabled must refuse, in their
// transaction, a change that leaves no enabled admin
// (domain.ErrLastAdmin).
type AccountStore interface {
	UserByID(ctx context.Context, id int64) (domain.User, error)
	UserByName(ctx context.Context, name string) (domain.User, error)
	ListUsers(ctx context.Context) ([]domain.User, error)
	CountUsers(ctx context.Context) (int, error)
	CheckLogin(ctx context.Context, name, password string) (domain.User, error)
	ReserveLogin(ctx context.Context, name, addr string, window time.Duration, perName, perAddr int) (int64, error)
	SettleLogin(ctx context.Context, attempt int64, name string, ok, audit bool) error
	SetPassword(ctx context.Context, name, password string) (domain.User, error)
	SetRole(ctx context.Context, name, role string) (domain.User, error)
	SetDisabled(ctx context.Context, name string, disabled bool) (domain.User, error)
	CreateSetupToken(ctx context.Context, name, role string) (string, error)
	CreateFirstAdminLink(ctx context.Context) (string, error)
	PendingSetupLinks(ctx context.Context) ([]domain.SetupLinkInfo, error)
	RevokeSetupLink(ctx context.Context, id int64) error
	SetupLink(ctx context.Context, secret string) (domain.SetupToken, error)
	CompleteSetup(ctx context.Context, secret, name, password string) (domain.User, error)
	WithLock(ctx context.Context, name string, fn func() error) error
}

// Accounts holds the rules of console accounts: login with its throttle,
// password changes, setup links, roles, disabling, and that an admin
// changes neither their own role nor their own status. Changes are
// audited by the store with the context's actor (domain.WithActor).
type Accounts struct {
	Store AccountStore
}

// LoginWait is how long a throttled login waits, as the pages say it
// ("15 minutes").
func LoginWait() string {
	return fmt.Sprintf("%d minutes", int(LoginThrottleWindow/time.Minute))
}

// Login returns the enabled account called name (ignoring case) whose
// password this is, for a client at addr. The attempt is reserved
// against the throttle before the password is compared, so parallel
// attempts never compare more passwords than the limits allow. Success
// and failure are audited (login, login_failed). Errors:
// domain.ErrLoginThrottled (no password compared); domain.ErrLoginFailed
// for an unknown name, a wrong password or a disabled account alike; the
// store's.
func (a *Accounts) Login(ctx context.Context, name, password, addr string) (domain.User, error) {
	return a.checkPassword(ctx, strings.TrimSpace(name), password, addr, true)
}

// checkPassword compares password with name's under the throttle, and
// settles the attempt: a failure is audited (login_failed) and counts; a
// success is audited (login) when login, and counts no more.
func (a *Accounts) checkPassword(ctx context.Context, name, password, addr string, login bool) (domain.User, error) {
	attempt, err := a.Store.ReserveLogin(ctx, name, addr, LoginThrottleWindow, LoginMaxFailuresPerAccount, LoginMaxFailuresPerAddress)
	if errors.Is(err, domain.ErrLoginThrottled) {
		return domain.User{}, fmt.Errorf("%w: wait %s, then try again", err, LoginWait())
	} else if err != nil {
		return domain.User{}, err
	}
	// Settled even when the client has gone: a pending attempt counts
	// as failed for the whole window.
	settle := context.WithoutCancel(ctx)
	u, err := a.Store.CheckLogin(ctx, name, password)
	switch {
	case errors.Is(err, domain.ErrLoginFailed):
		if serr := a.Store.SettleLogin(settle, attempt, name, false, true); serr != nil {
			return domain.User{}, serr
		}
		return domain.User{}, err
	case err != nil:
		// No password was judged: the attempt does not count.
		return domain.User{}, errors.Join(err, a.Store.SettleLogin(settle, attempt, name, true, false))
	}
	if err := a.Store.SettleLogin(settle, attempt, u.Name, true, login); err != nil {
		return domain.User{}, err
	}
	return u, nil
}

// ChangePassword sets the password of me, the logged-in user at addr,
// to password (typed again as repeat) when current is their password;
// sessions opened before end (the returned user's PasswordChangedAt is
// new). current is checked under the login throttle, and a wrong one is
// a failed login of the account. Errors: domain.ErrLoginThrottled;
// domain.ErrLoginFailed for a wrong current password; ErrPasswordsDiffer;
// library.ErrInvalid for a password breaking the password rule.
func (a *Accounts) ChangePassword(ctx context.Context, me domain.User, current, password, repeat, addr string) (domain.User, error) {
	if _, err := a.checkPassword(ctx, me.Name, current, addr, false); err != nil {
		return domain.User{}, err
	}
	if password != repeat {
		return domain.User{}, ErrPasswordsDiffer
	}
	return a.Store.SetPassword(ctx, me.Name, password)
}

// SessionUser returns the account of a session that logged in as id
// when the account's password was changed at passwordChanged (µs since
// 1970). ok is false when the session no longer holds: the account is
// gone or disabled, or its password changed since. Errors: the store's.
func (a *Accounts) SessionUser(ctx context.Context, id, passwordChanged int64) (u domain.User, ok bool, err error) {
	u, err = a.Store.UserByID(ctx, id)
	switch {
	case errors.Is(err, library.ErrNotFound):
		return domain.User{}, false, nil
	case err != nil:
		return domain.User{}, false, err
	case u.Disabled || u.PasswordChangedAt.UnixMicro() != passwordChanged:
		return domain.User{}, false, nil
	}
	return u, true, nil
}

// Users returns every account by name.
func (a *Accounts) Users(ctx context.Context) ([]domain.User, error) {
	return a.Store.ListUsers(ctx)
}

// PendingLinks returns the setup links that can still be used, oldest
// first, never their secrets.
func (a *Accounts) PendingLinks(ctx context.Context) ([]domain.SetupLinkInfo, error) {
	return a.Store.PendingSetupLinks(ctx)
}

// Invite issues a setup link, valid domain.SetupTTL, for a new account
// called name (trimmed) with role, and returns its secret (shown once).
// Errors: library.ErrInvalid for a bad name or role; library.ErrConflict
// when an account or a pending link has the name, ignoring case.
func (a *Accounts) Invite(ctx context.Context, name, role string) (string, error) {
	return a.Store.CreateSetupToken(ctx, strings.TrimSpace(name), role)
}

// RevokeLink makes the pending setup link id unusable (audited).
// Errors: library.ErrNotFound when no pending link has that id.
func (a *Accounts) RevokeLink(ctx context.Context, id int64) error {
	return a.Store.RevokeSetupLink(ctx, id)
}

// SetupLink returns what the setup link of secret creates. Errors:
// domain.ErrSetupLinkInvalid (matches library.ErrNotFound).
func (a *Accounts) SetupLink(ctx context.Context, secret string) (domain.SetupToken, error) {
	return a.Store.SetupLink(ctx, secret)
}

// CompleteSetup uses the setup link of secret once: it creates the
// account with password (typed again as repeat), called name when the
// link names none. Errors: domain.ErrSetupLinkInvalid; ErrPasswordsDiffer;
// library.ErrInvalid for a bad name or password; library.ErrConflict when
// the name is taken.
func (a *Accounts) CompleteSetup(ctx context.Context, secret, name, password, repeat string) (domain.User, error) {
	if password != repeat {
		return domain.User{}, ErrPasswordsDiffer
	}
	return a.Store.CompleteSetup(ctx, secret, name, password)
}

// FirstAdminLink issues the setup link of the first admin (who chooses
// a name on the setup page) when there are no users and no such link is
// pending, under a lock shared by every process, so that of processes
// starting together on an empty database one issues it. It returns the
// secret, or "" and the pending link when one is (issued by another
// process or an earlier start); both are zero once there are users.
// Errors: the store's.
func (a *Accounts) FirstAdminLink(ctx context.Context) (secret string, pending *domain.SetupLinkInfo, err error) {
	err = a.Store.WithLock(ctx, firstAdminLock, func() error {
		n, err := a.Store.CountUsers(ctx)
		if err != nil || n > 0 {
			return err
		}
		links, err := a.Store.PendingSetupLinks(ctx)
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.CreatedBy == FirstAdminIssuer && l.Role == domain.RoleAdmin && l.UserName == "" {
				pending = &l
				return nil
			}
		}
		secret, err = a.Store.CreateFirstAdminLink(domain.WithActor(ctx, FirstAdminIssuer))
		return err
	})
	return secret, pending, err
}

// SetRole gives the account called name (ignoring case) role, on behalf
// of the admin me. Errors: domain.ErrOwnAccount when it is me's own;
// domain.ErrLastAdmin when no enabled admin would remain;
// library.ErrNotFound; library.ErrInvalid for an unknown role.
func (a *Accounts) SetRole(ctx context.Context, me domain.User, name, role string) (domain.User, error) {
	if err := a.notSelf(ctx, me, name); err != nil {
		return domain.User{}, err
	}
	return a.Store.SetRole(ctx, name, role)
}

// SetDisabled disables or enables the account called name (ignoring
// case) on behalf of the admin me; a disabled account's sessions end at
// their next request. Errors: as SetRole.
func (a *Accounts) SetDisabled(ctx context.Context, me domain.User, name string, disabled bool) (domain.User, error) {
	if err := a.notSelf(ctx, me, name); err != nil {
		return domain.User{}, err
	}
	return a.Store.SetDisabled(ctx, name, disabled)
}

// notSelf refuses a change of me's own account: an admin demoting or
// disabling themself could leave the console without one. Errors:
// domain.ErrOwnAccount; library.ErrNotFound for an unknown name.
func (a *Accounts) notSelf(ctx context.Context, me domain.User, name string) error {
	target, err := a.Store.UserByName(ctx, name)
	if err != nil {
		return err
	}
	if target.ID == me.ID {
		return domain.ErrOwnAccount
	}
	return nil
}

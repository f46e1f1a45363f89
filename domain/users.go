package domain

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// SubjectUser is the audit subject of console accounts; its SubjectID is
// the user's name (or the name tried, for a failed login).
const SubjectUser = "user"

// Audit actions of users.
const (
	ActionLogin       = "login"
	ActionLoginFailed = "login_failed"
	ActionRole        = "role"
	ActionDisable     = "disable"
	ActionEnable      = "enable"
	ActionPassword    = "password"
	// ActionInvite records a setup link issued (subject user, the link's
	// account name or "" for the first admin).
	ActionInvite = "invite"
)

// Roles, from least to most allowed: viewer browses and
// previews; editor also changes overrides, profiles and scenarios; admin
// also manages users and tokens.
const (
	RoleViewer = "viewer"
	RoleEditor = "editor"
	RoleAdmin  = "admin"
)

// Roles lists every role, least allowed first.
var Roles = []string{RoleViewer, RoleEditor, RoleAdmin}

// RoleAtLeast reports whether role allows what min allows.
func RoleAtLeast(role, min string) bool {
	r, m := slices.Index(Roles, role), slices.Index(Roles, min)
	return r >= 0 && m >= 0 && r >= m
}

// The password rule: at least MinPasswordLength characters (runes) and
// at most MaxPasswordBytes bytes of UTF-8, bcrypt's limit. The setup and
// account pages show it from these constants.
const (
	MinPasswordLength = 10
	MaxPasswordBytes  = 72
)

// SetupTTL is how long a setup link stays valid.
const SetupTTL = time.Hour

// User is a console account as stored (never its password).
type User struct {
	ID                int64
	Name              string
	Role              string
	Disabled          bool
	CreatedAt         time.Time
	PasswordChangedAt time.Time
}

// SetupToken is what a setup link creates: an account called UserName
// ("" lets the setup page choose it) with Role.
type SetupToken struct {
	UserName  string
	Role      string
	ExpiresAt time.Time
}

// SetupLinkInfo is a pending setup link as the users page lists it: never
// its secret. CreatedBy is the issuing admin's name ("cli" from the shell,
// "server" for the first admin's link).
type SetupLinkInfo struct {
	ID        int64
	UserName  string
	Role      string
	CreatedBy string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// ErrSetupLinkInvalid is the error of an unknown, used, revoked or expired setup
// link; it matches library.ErrNotFound.
var ErrSetupLinkInvalid = fmt.Errorf("this setup link is not valid: it was used already, was revoked, has expired or never existed: %w", library.ErrNotFound)

// ErrLoginFailed is CheckLogin's one error for an unknown name, a wrong
// password and a disabled account alike: the message tells none apart.
var ErrLoginFailed = errors.New("the name or password is not correct")

// ErrLoginThrottled is the error of a login (or a check of the current
// password) refused because too many failed before it, for the name or
// from the address, within the throttle's window; no password was
// compared. Its message is the same for existing and unknown names.
var ErrLoginThrottled = errors.New("too many failed logins for this account or from this address")

// ErrOwnAccount is the error of an admin changing their own role or
// disabling their own account: another admin has to, so that the console
// always keeps an admin. It matches library.ErrConflict.
var ErrOwnAccount = fmt.Errorf("you cannot change your own role or disable your own account: another admin has to, so that the console always keeps an admin: %w", library.ErrConflict)

// ErrLastAdmin is the error of a role change or a disabling that would
// leave no enabled admin (two admins demoting each other at once, or a
// change from the shell). It matches library.ErrConflict.
var ErrLastAdmin = fmt.Errorf("this is the last enabled admin: make another user admin first: %w", library.ErrConflict)

// UserNameProblem is the one rule for console user names: 1 to
// library.MaxNameLength characters, ASCII letters a-z and A-Z, digits, dots,
// underscores, '@' and dashes, beginning with a letter or a digit (they
// appear in URLs). It returns what is wrong with s in words that fit
// after "name: ", or "" when s is a good user name.
func UserNameProblem(s string) string {
	const rule = "ASCII letters a-z or A-Z, digits, '.', '_', '@' and '-', beginning with a letter or a digit"
	alnum := func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' }
	return library.NameRuleProblem(s, rule, alnum, func(r rune) bool { return alnum(r) || r == '.' || r == '_' || r == '@' || r == '-' })
}

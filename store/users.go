package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// firstAdminSubject is the audit subject id of the first admin's setup
// link, whose account name is chosen only on the setup page.
const firstAdminSubject = "(first admin)"

// linkSubject is the audit subject id of a setup link for name.
func linkSubject(name string) string {
	if name == "" {
		return firstAdminSubject
	}
	return name
}

// HashPassword returns the bcrypt hash of password.
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	return string(h), err
}

// dummyHash is compared against for unknown users, so that a login takes
// as long whether or not the account exists.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("promptdesk-dummy-password"), bcrypt.DefaultCost)

func validPassword(p string) error {
	if utf8.RuneCountInString(p) < domain.MinPasswordLength {
		return fmt.Errorf("the password must have at least %d characters: %w", domain.MinPasswordLength, library.ErrInvalid)
	}
	if len(p) > domain.MaxPasswordBytes {
		return fmt.Errorf("the password must have at most %d bytes: %w", domain.MaxPasswordBytes, library.ErrInvalid)
	}
	return nil
}

func validName(name string) error {
	if p := domain.UserNameProblem(name); p != "" {
		return fmt.Errorf("name: %s: %w", p, library.ErrInvalid)
	}
	return nil
}

func validRole(role string) error {
	if !slices.Contains(domain.Roles, role) {
		return fmt.Errorf("unknown role %q (roles: %s): %w", role, strings.Join(domain.Roles, ", "), library.ErrInvalid)
	}
	return nil
}

const userColumns = `id, name, role, disabled, created_at, password_changed_at, password_hash`

func scanUser(r pgx.Row) (domain.User, error) {
	u, _, err := scanUserHash(r)
	return u, err
}

// scanUserHash scans a user row with its password hash, which never
// leaves the store.
func scanUserHash(r pgx.Row) (u domain.User, hash string, err error) {
	err = r.Scan(&u.ID, &u.Name, &u.Role, &u.Disabled, &u.CreatedAt, &u.PasswordChangedAt, &hash)
	return u, hash, err
}

// Pool returns the store's connection pool, for the session store.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// CountUsers returns how many accounts exist.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&n)
	return n, dbErrOrNil(err, "count users")
}

// CreateSetupToken stores a setup link for an account called name (a
// user name, required) with role, valid for SetupTTL, and returns its
// secret. Errors: library.ErrInvalid for a bad role or name (a blank one
// too); library.ErrConflict when an account or a pending setup link has
// the name, compared ignoring case.
func (s *Store) CreateSetupToken(ctx context.Context, name, role string) (string, error) {
	name = strings.TrimSpace(name)
	if err := validName(name); err != nil {
		return "", err
	}
	return s.createSetupToken(ctx, name, role)
}

// CreateFirstAdminLink stores the setup link of the first admin, who
// picks a name on the setup page, and returns its secret, as
// CreateSetupToken does.
func (s *Store) CreateFirstAdminLink(ctx context.Context) (string, error) {
	return s.createSetupToken(ctx, "", domain.RoleAdmin)
}

// createSetupToken stores a setup link for name, "" for the first admin.
func (s *Store) createSetupToken(ctx context.Context, name, role string) (string, error) {
	if err := validRole(role); err != nil {
		return "", err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	secret := base64.RawURLEncoding.EncodeToString(raw[:])
	err := s.WithTx(ctx, func(tx *Store) error {
		if name != "" {
			if err := tx.nameFree(ctx, name); err != nil {
				return err
			}
		}
		var id int64
		var expires time.Time
		err := tx.db.QueryRow(ctx, `INSERT INTO setup_tokens (hash, user_name, role, expires_at, created_by)
			VALUES ($1, $2, $3, now() + $4::interval, $5) RETURNING id, expires_at`,
			domain.HashToken(secret), name, role, fmt.Sprintf("%d seconds", int(domain.SetupTTL.Seconds())), domain.ActorFrom(ctx)).Scan(&id, &expires)
		if err != nil {
			return dbErrOrNil(err, "setup link")
		}
		after, _ := auditJSON(map[string]any{"link": id, "name": name, "role": role, "expires": expires.UTC().Format(time.RFC3339)})
		return tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionInvite, Subject: domain.SubjectUser, SubjectID: linkSubject(name), After: after})
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// nameFree checks, inside a transaction, that no account and no pending
// setup link has name, compared ignoring case. It holds a lock on the
// name until the transaction ends, so that two invitations of one name
// cannot both pass. Errors: library.ErrConflict naming the holder.
func (s *Store) nameFree(ctx context.Context, name string) error {
	if _, err := s.db.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('user name ' || lower($1), 0))`, name); err != nil {
		return dbErrOrNil(err, "user "+name)
	}
	if u, err := s.UserByName(ctx, name); err == nil {
		return fmt.Errorf("%s: %w", nameTaken(name, u.Name), library.ErrConflict)
	} else if !errors.Is(err, library.ErrNotFound) {
		return err
	}
	var pending string
	err := s.db.QueryRow(ctx, `SELECT user_name FROM setup_tokens WHERE lower(user_name) = lower($1)
		AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now() LIMIT 1`, name).Scan(&pending)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return dbErrOrNil(err, "setup link")
	case pending == name:
		return fmt.Errorf("a setup link for %s is pending already: revoke it first to send a new one: %w", pending, library.ErrConflict)
	default:
		return fmt.Errorf("a setup link for %s is pending already (user names are compared ignoring case, so %s is the same name): revoke it first to send a new one: %w", pending, name, library.ErrConflict)
	}
}

// PendingSetupLinks lists the setup links that can still be used (not
// used, revoked or expired), oldest first.
func (s *Store) PendingSetupLinks(ctx context.Context) ([]domain.SetupLinkInfo, error) {
	rows, err := s.db.Query(ctx, `SELECT id, user_name, role, created_by, created_at, expires_at FROM setup_tokens
		WHERE used_at IS NULL AND revoked_at IS NULL AND expires_at > now() ORDER BY id`)
	if err != nil {
		return nil, dbError(err, "setup links")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.SetupLinkInfo, error) {
		var l domain.SetupLinkInfo
		err := r.Scan(&l.ID, &l.UserName, &l.Role, &l.CreatedBy, &l.CreatedAt, &l.ExpiresAt)
		return l, err
	})
	if err != nil {
		return nil, dbError(err, "setup links")
	}
	return list, nil
}

// RevokeSetupLink makes the pending setup link id unusable and audits it
// (action revoke, subject user). Errors: library.ErrNotFound when no
// pending link has that id (used, revoked, expired or unknown).
func (s *Store) RevokeSetupLink(ctx context.Context, id int64) error {
	return s.WithTx(ctx, func(tx *Store) error {
		var name, role string
		err := tx.db.QueryRow(ctx, `UPDATE setup_tokens SET revoked_at = now()
			WHERE id = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now() RETURNING user_name, role`, id).Scan(&name, &role)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("setup link %d is not pending (used, revoked, expired or unknown): %w", id, library.ErrNotFound)
		} else if err != nil {
			return dbErrOrNil(err, "setup link")
		}
		before, _ := auditJSON(map[string]any{"link": id, "name": name, "role": role})
		return tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionRevoke, Subject: domain.SubjectUser, SubjectID: linkSubject(name), Before: before})
	})
}

// SetupLink returns the unused, unexpired setup link of secret. Errors:
// ErrSetupLinkInvalid.
func (s *Store) SetupLink(ctx context.Context, secret string) (domain.SetupToken, error) {
	var t domain.SetupToken
	err := s.db.QueryRow(ctx, `SELECT user_name, role, expires_at FROM setup_tokens
		WHERE hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()`, domain.HashToken(secret)).Scan(&t.UserName, &t.Role, &t.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, domain.ErrSetupLinkInvalid
	}
	return t, dbErrOrNil(err, "setup link")
}

// CompleteSetup uses the setup link of secret once: it creates its
// account with password (name is used only when the link names none).
// Errors: ErrSetupLinkInvalid; library.ErrInvalid for an empty name or a
// short password; library.ErrConflict when the name is taken.
func (s *Store) CompleteSetup(ctx context.Context, secret, name, password string) (domain.User, error) {
	var u domain.User
	err := s.WithTx(ctx, func(tx *Store) error {
		var t domain.SetupToken
		err := tx.db.QueryRow(ctx, `SELECT user_name, role FROM setup_tokens
			WHERE hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now() FOR UPDATE`, domain.HashToken(secret)).Scan(&t.UserName, &t.Role)
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.ErrSetupLinkInvalid
		} else if err != nil {
			return dbErrOrNil(err, "setup link")
		}
		if t.UserName != "" {
			name = t.UserName
		}
		name = strings.TrimSpace(name)
		if err := validName(name); err != nil {
			return err
		}
		if err := validPassword(password); err != nil {
			return err
		}
		hash, err := HashPassword(password)
		if err != nil {
			return err
		}
		if taken, err := tx.UserByName(ctx, name); err == nil {
			return fmt.Errorf("%s: %w", nameTaken(name, taken.Name), library.ErrConflict)
		}
		if u, err = scanUser(tx.db.QueryRow(ctx, `INSERT INTO users (name, role, password_hash) VALUES ($1, $2, $3) RETURNING `+userColumns,
			name, t.Role, hash)); err != nil {
			return dbErrOrNil(err, "user "+name)
		}
		if _, err := tx.db.Exec(ctx, `UPDATE setup_tokens SET used_at = now() WHERE hash = $1`, domain.HashToken(secret)); err != nil {
			return dbErrOrNil(err, "setup link")
		}
		after, _ := auditJSON(map[string]any{"name": u.Name, "role": u.Role})
		actor := domain.ActorFrom(ctx)
		if _, ok := domain.ActorOf(ctx); !ok {
			actor = u.Name
		}
		return tx.audit(ctx, domain.AuditEntry{Actor: actor, Action: domain.ActionCreate, Subject: domain.SubjectUser, SubjectID: u.Name, After: after})
	})
	return u, err
}

// UserByID returns the account id. Errors: library.ErrNotFound.
func (s *Store) UserByID(ctx context.Context, id int64) (domain.User, error) {
	u, err := scanUser(s.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	return u, dbErrOrNil(err, "user")
}

// nameTaken says that the name asked for is taken by the account called
// existing, which may differ from it in case.
func nameTaken(name, existing string) string {
	if name == existing {
		return fmt.Sprintf("a user named %s exists already", existing)
	}
	return fmt.Sprintf("a user named %s exists already (user names are compared ignoring case, so %s is the same name)", existing, name)
}

// UserByName returns the account called name, compared ignoring case
// (names are unique that way). Errors: library.ErrNotFound.
func (s *Store) UserByName(ctx context.Context, name string) (domain.User, error) {
	u, err := scanUser(s.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE lower(name) = lower($1)`, name))
	return u, dbErrOrNil(err, "user "+name)
}

// ListUsers returns every account by name.
func (s *Store) ListUsers(ctx context.Context) ([]domain.User, error) {
	rows, err := s.db.Query(ctx, `SELECT `+userColumns+` FROM users ORDER BY name`)
	if err != nil {
		return nil, dbErrOrNil(err, "list users")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.User, error) { return scanUser(r) })
	return list, dbErrOrNil(err, "list users")
}

// CheckLogin returns the enabled account name whose password this is. An
// unknown name is compared against a dummy hash, so it costs as long as a
// wrong password. Errors: ErrLoginFailed, or the database's.
func (s *Store) CheckLogin(ctx context.Context, name, password string) (domain.User, error) {
	name = strings.TrimSpace(name)
	u, hash, err := scanUserHash(s.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE lower(name) = lower($1)`, name))
	err = dbErrOrNil(err, "user "+name)
	if errors.Is(err, library.ErrNotFound) {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return domain.User{}, domain.ErrLoginFailed
	} else if err != nil {
		return domain.User{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil || u.Disabled {
		return domain.User{}, domain.ErrLoginFailed
	}
	return u, nil
}

// Advisory lock classes of the login throttle (the two-key form, apart
// from every one-key lock): one name or one address reserves at a time.
const (
	loginLockName = 1
	loginLockAddr = 2
)

// ReserveLogin reserves a login attempt of name from addr before its
// password is compared, and returns the attempt's id for SettleLogin. It
// is refused when the failed or still pending attempts within window
// number perName or more for the name (compared ignoring case) or
// perAddr or more from the address: under per-name and per-address
// locks held to the commit, so that parallel attempts count each other
// and no more than the limit ever compare a password. A pending attempt
// counts as failed until settled (one whose process died stays failed).
// Errors: domain.ErrLoginThrottled, or the database's.
func (s *Store) ReserveLogin(ctx context.Context, name, addr string, window time.Duration, perName, perAddr int) (int64, error) {
	name = attemptName(name)
	var id int64
	err := s.WithTx(ctx, func(tx *Store) error {
		// Name before address in every transaction: no two wait on each other.
		if _, err := tx.db.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(lower($2))), pg_advisory_xact_lock($3, hashtext($4))`,
			loginLockName, name, loginLockAddr, addr); err != nil {
			return dbErrOrNil(err, "login attempt")
		}
		var byName, byAddr int
		if err := tx.db.QueryRow(ctx, `SELECT
			count(*) FILTER (WHERE lower(user_name) = lower($1)),
			count(*) FILTER (WHERE addr = $2)
			FROM login_attempts WHERE ok IS NOT TRUE AND at > now() - $3::interval
			AND (lower(user_name) = lower($1) OR addr = $2)`,
			name, addr, fmt.Sprintf("%d microseconds", window.Microseconds())).Scan(&byName, &byAddr); err != nil {
			return dbErrOrNil(err, "login attempts")
		}
		if byName >= perName || byAddr >= perAddr {
			return domain.ErrLoginThrottled
		}
		err := tx.db.QueryRow(ctx, `INSERT INTO login_attempts (user_name, addr, ok) VALUES ($1, $2, NULL) RETURNING id`, name, addr).Scan(&id)
		return dbErrOrNil(err, "login attempt")
	})
	return id, err
}

// SettleLogin records the outcome of the attempt ReserveLogin returned:
// ok (the password matched, or none was judged) no longer counts against
// the throttle; failed keeps counting for the window. With audit it
// also writes the audit row of a login (action login or login_failed,
// actor and subject name, the name tried or the account's). Errors: the
// database's; library.ErrNotFound for an unknown attempt.
func (s *Store) SettleLogin(ctx context.Context, attempt int64, name string, ok, audit bool) error {
	name = attemptName(name)
	return s.WithTx(ctx, func(tx *Store) error {
		var addr string
		err := tx.db.QueryRow(ctx, `UPDATE login_attempts SET ok = $2 WHERE id = $1 RETURNING addr`, attempt, ok).Scan(&addr)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("login attempt %d: %w", attempt, library.ErrNotFound)
		} else if err != nil || !audit {
			return dbErrOrNil(err, "login attempt")
		}
		action := domain.ActionLogin
		if !ok {
			action = domain.ActionLoginFailed
		}
		after, _ := auditJSON(map[string]any{"addr": addr})
		return tx.audit(ctx, domain.AuditEntry{Actor: name, Action: action, Subject: domain.SubjectUser, SubjectID: name, After: after})
	})
}

// attemptName is the name a login attempt is recorded under: "(empty)"
// for a blank one, so that the audit row names something.
func attemptName(name string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		return "(empty)"
	}
	return name
}

// updateUser changes the account name with set (SQL SET clause over
// args from $2) and audits action; a role or status change that changes
// nothing is not audited.
func (s *Store) updateUser(ctx context.Context, name, action, set string, args ...any) (domain.User, error) {
	var u domain.User
	err := s.WithTx(ctx, func(tx *Store) error {
		cur, err := scanUser(tx.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE lower(name) = lower($1) FOR UPDATE`, name))
		if err != nil {
			return dbErrOrNil(err, "user "+name)
		}
		if u, err = scanUser(tx.db.QueryRow(ctx, `UPDATE users SET `+set+` WHERE id = $1 RETURNING `+userColumns, append([]any{cur.ID}, args...)...)); err != nil {
			return dbErrOrNil(err, "user "+name)
		}
		if enabledAdmin(cur) && !enabledAdmin(u) {
			if err := tx.keepAnAdmin(ctx); err != nil {
				return err
			}
		}
		if action != domain.ActionPassword && cur.Role == u.Role && cur.Disabled == u.Disabled {
			return nil // a repeat that changes nothing is not audited
		}
		before, _ := auditJSON(map[string]any{"role": cur.Role, "disabled": cur.Disabled})
		after, _ := auditJSON(map[string]any{"role": u.Role, "disabled": u.Disabled})
		return tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: action, Subject: domain.SubjectUser, SubjectID: cur.Name, Before: before, After: after})
	})
	return u, err
}

// enabledAdmin reports whether u is an admin who can log in.
func enabledAdmin(u domain.User) bool { return u.Role == domain.RoleAdmin && !u.Disabled }

// keepAnAdmin checks, inside the transaction of a change that takes an
// enabled admin away, that another one remains. Such changes take one
// lock in turn, so two admins demoting each other at once cannot both
// pass: the second counts after the first committed. Errors:
// domain.ErrLastAdmin.
func (s *Store) keepAnAdmin(ctx context.Context) error {
	var n int
	_, err := s.db.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('enabled admins', 0))`)
	if err == nil {
		err = s.db.QueryRow(ctx, `SELECT count(*) FROM users WHERE role = 'admin' AND NOT disabled`).Scan(&n)
	}
	if err != nil {
		return dbErrOrNil(err, "admins")
	}
	if n == 0 {
		return domain.ErrLastAdmin
	}
	return nil
}

// SetRole changes name's role. Errors: library.ErrNotFound, ErrInvalid;
// domain.ErrLastAdmin when it would leave no enabled admin.
func (s *Store) SetRole(ctx context.Context, name, role string) (domain.User, error) {
	if err := validRole(role); err != nil {
		return domain.User{}, err
	}
	return s.updateUser(ctx, name, domain.ActionRole, `role = $2`, role)
}

// SetDisabled disables or enables name; a disabled user's sessions stop
// working at their next request. Errors: library.ErrNotFound;
// domain.ErrLastAdmin when it would leave no enabled admin.
func (s *Store) SetDisabled(ctx context.Context, name string, disabled bool) (domain.User, error) {
	action := domain.ActionEnable
	if disabled {
		action = domain.ActionDisable
	}
	return s.updateUser(ctx, name, action, `disabled = $2`, disabled)
}

// SetPassword changes name's password and its password_changed_at, which
// ends every session opened before. Errors: library.ErrInvalid for a
// short password.
func (s *Store) SetPassword(ctx context.Context, name, password string) (domain.User, error) {
	if err := validPassword(password); err != nil {
		return domain.User{}, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return domain.User{}, err
	}
	return s.updateUser(ctx, name, domain.ActionPassword, `password_hash = $2, password_changed_at = clock_timestamp()`, hash)
}

// dbErrOrNil is dbError for a possibly nil err.
func dbErrOrNil(err error, what string) error {
	if err == nil {
		return nil
	}
	return dbError(err, what)
}

// DeleteExpiredSessions removes the console sessions past their expiry
// (the scs sessions table) and returns how many went.
func (s *Store) DeleteExpiredSessions(ctx context.Context) (int64, error) {
	tag, err := s.db.Exec(ctx, "DELETE FROM sessions WHERE expiry < current_timestamp")
	if err != nil {
		return 0, fmt.Errorf("store: delete expired sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/library"
)

// SubjectToken is the audit subject of API tokens; its actions are
// ActionCreate, ActionRevoke and ActionUse, its SubjectID the token's name.
const SubjectToken = "api_token"

// ActionRevoke is the audit action of revoking an API token.
const ActionRevoke = "revoke"

// ActionUse is the audit action of an API token's use: recorded with its
// last_used_at, so at most once a minute per token (lastUsedEvery); its
// actor is "token:<name>" and its After {"method","path"} of the request.
const ActionUse = "use"

// Scopes of API tokens (README, Runtime API): what each /api/v1 route requires is
// decided by the web package's route table.
const (
	ScopeAssemble = "assemble" // runtimes: assemble, render, commands, tools
	ScopeRead     = "read"     // modules, overrides (GET)
	ScopeWrite    = "write"    // the override API's PUT, DELETE and publish
	ScopeAdmin    = "admin"    // the webhooks API
)

// Scopes lists every scope, in order.
var Scopes = []string{ScopeAssemble, ScopeRead, ScopeWrite, ScopeAdmin}

// TokenPrefix starts every API token.
const TokenPrefix = "pd_"

// tokenPrefixLen is how many leading characters of a token are stored in
// the clear, to tell tokens apart in lists.
const tokenPrefixLen = 8

// lastUsedEvery is how often at most Authenticate records a token's
// last use: a write per request would be a write per runtime call.
const lastUsedEvery = time.Minute

// Token is an API token as stored: never its secret, only its hash.
type Token struct {
	ID         int64
	Name       string
	Scopes     []string
	Prefix     string // the first 8 characters of the secret
	CreatedAt  time.Time
	LastUsedAt *time.Time // nil: never used
	RevokedAt  *time.Time // nil: active
}

// Has reports whether the token carries scope.
func (t Token) Has(scope string) bool { return slices.Contains(t.Scopes, scope) }

// ErrTokenRevoked is Authenticate's error for a revoked token; it also
// matches library.ErrNotFound, so callers that only tell "authenticated
// or not" need no special case.
var ErrTokenRevoked = fmt.Errorf("the API token is revoked: %w", library.ErrNotFound)

// HashToken is the stored form of a token secret: its sha256, hex. A fast
// hash is right for tokens (unlike passwords): they are 256-bit random
// secrets, so there is nothing to guess, and every request looks one up.
func HashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NormalizeScopes checks scopes against Scopes and returns them sorted in
// Scopes order without repeats. Errors: library.ErrInvalid for an empty
// list or an unknown scope.
func NormalizeScopes(scopes []string) ([]string, error) {
	var out []string
	for _, s := range scopes {
		s = strings.TrimSpace(s)
		if !slices.Contains(Scopes, s) {
			return nil, fmt.Errorf("unknown scope %q (scopes: %s): %w", s, strings.Join(Scopes, ", "), library.ErrInvalid)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("a token needs at least one scope (%s): %w", strings.Join(Scopes, ", "), library.ErrInvalid)
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(Scopes, a) - slices.Index(Scopes, b) })
	return out, nil
}

const tokenColumns = `id, name, scopes, prefix, created_at, last_used_at, revoked_at`

func scanToken(r pgx.Row) (Token, error) {
	var t Token
	err := r.Scan(&t.ID, &t.Name, &t.Scopes, &t.Prefix, &t.CreatedAt, &t.LastUsedAt, &t.RevokedAt)
	return t, err
}

// CreateToken creates an API token called name with scopes and returns it
// with its secret, "pd_" and 32 random bytes in base64url: the only time
// the secret is available. The audit row records the actor of ctx.
// Errors: library.ErrConflict when the name is taken (revoked tokens
// keep theirs), library.ErrInvalid for a name breaking
// library.NameProblem or a bad scope.
func (s *Store) CreateToken(ctx context.Context, name string, scopes []string) (Token, string, error) {
	name = strings.TrimSpace(name)
	if p := library.NameProblem(name); p != "" {
		return Token{}, "", fmt.Errorf("api token name %q: %s: %w", name, p, library.ErrInvalid)
	}
	scopes, err := NormalizeScopes(scopes)
	if err != nil {
		return Token{}, "", fmt.Errorf("api token %s: %w", name, err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Token{}, "", fmt.Errorf("api token %s: %w", name, err)
	}
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	var tok Token
	err = s.WithTx(ctx, func(tx *Store) error {
		row := tx.db.QueryRow(ctx, `INSERT INTO api_tokens (name, scopes, hash, prefix) VALUES ($1, $2, $3, $4)
			RETURNING `+tokenColumns, name, scopes, HashToken(secret), secret[:tokenPrefixLen])
		if tok, err = scanToken(row); err != nil {
			return dbError(err, "api token "+name)
		}
		after, err := auditJSON(map[string]any{"name": tok.Name, "scopes": tok.Scopes, "prefix": tok.Prefix})
		if err != nil {
			return err
		}
		if err := tx.audit(ctx, AuditEntry{Actor: ActorFrom(ctx), Action: ActionCreate, Subject: SubjectToken, SubjectID: tok.Name, After: after}); err != nil {
			return err
		}
		return tx.notify(ctx, Change{Subject: SubjectToken, ID: tok.Name})
	})
	if err != nil {
		return Token{}, "", err
	}
	return tok, secret, nil
}

// Authenticate returns the active token whose secret this is, and records
// its use (RecordTokenUse) when the last record is older than a minute.
// The lookup is by hash, so no constant-time comparison is needed.
// Errors: library.ErrNotFound for an unknown secret; ErrTokenRevoked
// (which matches library.ErrNotFound too) for a revoked one; ErrUnavailable
// when the database cannot be reached.
func (s *Store) Authenticate(ctx context.Context, secret, method, path string) (Token, error) {
	if !strings.HasPrefix(secret, TokenPrefix) {
		return Token{}, fmt.Errorf("unknown API token: %w", library.ErrNotFound)
	}
	tok, err := s.TokenByHash(ctx, HashToken(secret))
	if err != nil {
		return Token{}, err
	}
	if tok.RevokedAt != nil {
		return Token{}, fmt.Errorf("api token %s: %w", tok.Name, ErrTokenRevoked)
	}
	if TokenUseDue(tok.LastUsedAt, time.Now()) {
		at, recorded, err := s.RecordTokenUse(ctx, tok.ID, method, path)
		if err != nil {
			return Token{}, err
		}
		if recorded {
			tok.LastUsedAt = &at
		}
	}
	return tok, nil
}

// TokenUseDue reports whether a use at now is to be recorded for a token
// last recorded at last (nil: never): at most once a minute per token.
func TokenUseDue(last *time.Time, now time.Time) bool {
	return last == nil || now.Sub(*last) >= lastUsedEvery
}

// TokenByHash returns the token, revoked or not, whose HashToken is hash.
// Errors: library.ErrNotFound when there is none; ErrUnavailable when the
// database cannot be reached.
func (s *Store) TokenByHash(ctx context.Context, hash string) (Token, error) {
	tok, err := scanToken(s.db.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE hash = $1`, hash))
	if err != nil {
		return Token{}, dbError(err, "api token")
	}
	return tok, nil
}

// TokensByHash returns every token, revoked ones included, by HashToken
// of its secret: what an in-memory token check is loaded from.
func (s *Store) TokensByHash(ctx context.Context) (map[string]Token, error) {
	rows, err := s.db.Query(ctx, `SELECT hash, `+tokenColumns+` FROM api_tokens`)
	if err != nil {
		return nil, dbError(err, "list api tokens")
	}
	defer rows.Close()
	out := map[string]Token{}
	for rows.Next() {
		var hash string
		var t Token
		if err := rows.Scan(&hash, &t.ID, &t.Name, &t.Scopes, &t.Prefix, &t.CreatedAt, &t.LastUsedAt, &t.RevokedAt); err != nil {
			return nil, dbError(err, "list api tokens")
		}
		out[hash] = t
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(err, "list api tokens")
	}
	return out, nil
}

// RecordTokenUse records a use of the token with id by a request's method
// and path: last_used_at and an audit row (ActionUse, actor
// "token:<name>", After {"method","path"}) in one statement, written only
// when the last record is older than a minute, so a use is in the audit
// log at most once a minute per token. recorded is false when another
// request recorded one within the minute.
func (s *Store) RecordTokenUse(ctx context.Context, id int64, method, path string) (at time.Time, recorded bool, err error) {
	after, err := auditJSON(map[string]string{"method": method, "path": path})
	if err != nil {
		return time.Time{}, false, err
	}
	// One statement: the audit row is written only when the update
	// matched (the condition guards against a concurrent request).
	err = s.db.QueryRow(ctx, `WITH used AS (
			UPDATE api_tokens SET last_used_at = now()
			WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
			RETURNING name, last_used_at
		), logged AS (
			INSERT INTO audit_log (actor, action, subject, subject_id, after)
			SELECT 'token:' || name, $2, $3, name, $4 FROM used
		)
		SELECT last_used_at FROM used`, id, ActionUse, SubjectToken, after).Scan(&at)
	switch {
	case err == nil:
		return at, true, nil
	case errors.Is(err, pgx.ErrNoRows):
		return time.Time{}, false, nil
	}
	return time.Time{}, false, dbError(err, "api token: last use")
}

// ListTokens returns every token, revoked ones included, by name.
func (s *Store) ListTokens(ctx context.Context) ([]Token, error) {
	rows, err := s.db.Query(ctx, `SELECT `+tokenColumns+` FROM api_tokens ORDER BY name`)
	if err != nil {
		return nil, dbError(err, "list api tokens")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Token, error) { return scanToken(r) })
	if err != nil {
		return nil, dbError(err, "list api tokens")
	}
	return list, nil
}

// AlreadyRevoked is the error of revoking a token revoked before (a
// repeated form post, the back button): nothing changes. It matches
// library.ErrConflict.
type AlreadyRevoked struct {
	Name string
	At   time.Time
}

func (e *AlreadyRevoked) Error() string {
	return fmt.Sprintf("API token %s was already revoked (%s)", e.Name, e.At.UTC().Format("2006-01-02 15:04 UTC"))
}

// Is makes an AlreadyRevoked match library.ErrConflict.
func (e *AlreadyRevoked) Is(target error) bool { return target == library.ErrConflict }

// RevokeToken revokes the token called name: from then on Authenticate
// refuses it. The audit row records the actor of ctx. Errors:
// library.ErrNotFound when there is no such token; *AlreadyRevoked
// (matching library.ErrConflict) when it is already revoked.
func (s *Store) RevokeToken(ctx context.Context, name string) (Token, error) {
	var tok Token
	err := s.WithTx(ctx, func(tx *Store) error {
		cur, err := scanToken(tx.db.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE name = $1 FOR UPDATE`, name))
		if err != nil {
			return dbError(err, "api token "+name)
		}
		if cur.RevokedAt != nil {
			return &AlreadyRevoked{Name: name, At: *cur.RevokedAt}
		}
		if tok, err = scanToken(tx.db.QueryRow(ctx, `UPDATE api_tokens SET revoked_at = now() WHERE id = $1 RETURNING `+tokenColumns, cur.ID)); err != nil {
			return dbError(err, "api token "+name)
		}
		before, err := auditJSON(map[string]any{"name": cur.Name, "scopes": cur.Scopes, "prefix": cur.Prefix})
		if err != nil {
			return err
		}
		if err := tx.audit(ctx, AuditEntry{Actor: ActorFrom(ctx), Action: ActionRevoke, Subject: SubjectToken, SubjectID: name, Before: before}); err != nil {
			return err
		}
		return tx.notify(ctx, Change{Subject: SubjectToken, ID: name})
	})
	return tok, err
}

package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// tokenPrefixLen is how many leading characters of a token are stored in
// the clear, to tell tokens apart in lists.
const tokenPrefixLen = 8

const tokenColumns = `id, name, scopes, prefix, created_at, last_used_at, revoked_at`

func scanToken(r pgx.Row) (domain.Token, error) {
	var t domain.Token
	err := r.Scan(&t.ID, &t.Name, &t.Scopes, &t.Prefix, &t.CreatedAt, &t.LastUsedAt, &t.RevokedAt)
	return t, err
}

// CreateToken creates an API token called name with scopes and returns it
// with its secret, "pd_" and 32 random bytes in base64url: the only time
// the secret is available. The audit row records the actor of ctx.
// Errors: library.ErrConflict when the name is taken (revoked tokens
// keep theirs), library.ErrInvalid for a name breaking
// library.NameProblem or a bad scope.
func (s *Store) CreateToken(ctx context.Context, name string, scopes []string) (domain.Token, string, error) {
	name = strings.TrimSpace(name)
	if p := library.NameProblem(name); p != "" {
		return domain.Token{}, "", fmt.Errorf("api token name %q: %s: %w", name, p, library.ErrInvalid)
	}
	scopes, err := domain.NormalizeScopes(scopes)
	if err != nil {
		return domain.Token{}, "", fmt.Errorf("api token %s: %w", name, err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return domain.Token{}, "", fmt.Errorf("api token %s: %w", name, err)
	}
	secret := domain.TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	var tok domain.Token
	err = s.WithTx(ctx, func(tx *Store) error {
		row := tx.db.QueryRow(ctx, `INSERT INTO api_tokens (name, scopes, hash, prefix) VALUES ($1, $2, $3, $4)
			RETURNING `+tokenColumns, name, scopes, domain.HashToken(secret), secret[:tokenPrefixLen])
		if tok, err = scanToken(row); err != nil {
			return dbError(err, "api token "+name)
		}
		after, err := auditJSON(map[string]any{"name": tok.Name, "scopes": tok.Scopes, "prefix": tok.Prefix})
		if err != nil {
			return err
		}
		if err := tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionCreate, Subject: domain.SubjectToken, SubjectID: tok.Name, After: after}); err != nil {
			return err
		}
		return tx.notify(ctx, Change{Subject: domain.SubjectToken, ID: tok.Name})
	})
	if err != nil {
		return domain.Token{}, "", err
	}
	return tok, secret, nil
}

// Authenticate returns the active token whose secret this is, and records
// its use (RecordTokenUse) when the last record is older than a minute.
// The lookup is by hash, so no constant-time comparison is needed.
// Errors: library.ErrNotFound for an unknown secret; ErrTokenRevoked
// (which matches library.ErrNotFound too) for a revoked one; ErrUnavailable
// when the database cannot be reached.
func (s *Store) Authenticate(ctx context.Context, secret, method, path string) (domain.Token, error) {
	if !strings.HasPrefix(secret, domain.TokenPrefix) {
		return domain.Token{}, fmt.Errorf("unknown API token: %w", library.ErrNotFound)
	}
	tok, err := s.TokenByHash(ctx, domain.HashToken(secret))
	if err != nil {
		return domain.Token{}, err
	}
	if tok.RevokedAt != nil {
		return domain.Token{}, fmt.Errorf("api token %s: %w", tok.Name, domain.ErrTokenRevoked)
	}
	if domain.TokenUseDue(tok.LastUsedAt, time.Now()) {
		at, recorded, err := s.RecordTokenUse(ctx, tok.ID, method, path)
		if err != nil {
			return domain.Token{}, err
		}
		if recorded {
			tok.LastUsedAt = &at
		}
	}
	return tok, nil
}

// TokenByHash returns the token, revoked or not, whose HashToken is hash.
// Errors: library.ErrNotFound when there is none; ErrUnavailable when the
// database cannot be reached.
func (s *Store) TokenByHash(ctx context.Context, hash string) (domain.Token, error) {
	tok, err := scanToken(s.db.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE hash = $1`, hash))
	if err != nil {
		return domain.Token{}, dbError(err, "api token")
	}
	return tok, nil
}

// TokensByHash returns every token, revoked ones included, by HashToken
// of its secret: what an in-memory token check is loaded from.
func (s *Store) TokensByHash(ctx context.Context) (map[string]domain.Token, error) {
	rows, err := s.db.Query(ctx, `SELECT hash, `+tokenColumns+` FROM api_tokens`)
	if err != nil {
		return nil, dbError(err, "list api tokens")
	}
	defer rows.Close()
	out := map[string]domain.Token{}
	for rows.Next() {
		var hash string
		var t domain.Token
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
		SELECT last_used_at FROM used`, id, domain.ActionUse, domain.SubjectToken, after).Scan(&at)
	switch {
	case err == nil:
		return at, true, nil
	case errors.Is(err, pgx.ErrNoRows):
		return time.Time{}, false, nil
	}
	return time.Time{}, false, dbError(err, "api token: last use")
}

// ListTokens returns every token, revoked ones included, by name.
func (s *Store) ListTokens(ctx context.Context) ([]domain.Token, error) {
	rows, err := s.db.Query(ctx, `SELECT `+tokenColumns+` FROM api_tokens ORDER BY name`)
	if err != nil {
		return nil, dbError(err, "list api tokens")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Token, error) { return scanToken(r) })
	if err != nil {
		return nil, dbError(err, "list api tokens")
	}
	return list, nil
}

// RevokeToken revokes the token called name: from then on Authenticate
// refuses it. The audit row records the actor of ctx. Errors:
// library.ErrNotFound when there is no such token; *AlreadyRevoked
// (matching library.ErrConflict) when it is already revoked.
func (s *Store) RevokeToken(ctx context.Context, name string) (domain.Token, error) {
	var tok domain.Token
	err := s.WithTx(ctx, func(tx *Store) error {
		cur, err := scanToken(tx.db.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE name = $1 FOR UPDATE`, name))
		if err != nil {
			return dbError(err, "api token "+name)
		}
		if cur.RevokedAt != nil {
			return &domain.AlreadyRevoked{Name: name, At: *cur.RevokedAt}
		}
		if tok, err = scanToken(tx.db.QueryRow(ctx, `UPDATE api_tokens SET revoked_at = now() WHERE id = $1 RETURNING `+tokenColumns, cur.ID)); err != nil {
			return dbError(err, "api token "+name)
		}
		before, err := auditJSON(map[string]any{"name": cur.Name, "scopes": cur.Scopes, "prefix": cur.Prefix})
		if err != nil {
			return err
		}
		if err := tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionRevoke, Subject: domain.SubjectToken, SubjectID: name, Before: before}); err != nil {
			return err
		}
		return tx.notify(ctx, Change{Subject: domain.SubjectToken, ID: name})
	})
	return tok, err
}

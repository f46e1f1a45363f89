package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// Sessions keeps the console's sessions (for scs, whose CtxStore it is)
// in the sessions table, keyed by the SHA-256 of the session token, so
// that a backup or a reader of the table holds no session that logs in.
// Every call honours its context: a request's deadline bounds its
// session's load and save. Get it with Store.Sessions.
type Sessions struct{ s *Store }

// Sessions returns the session store over s's pool.
func (s *Store) Sessions() *Sessions { return &Sessions{s} }

// sessionKey is the key a token is stored under.
func sessionKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// FindCtx returns the data of the session token, found false when there
// is none or it expired. Errors: the database's.
func (ss *Sessions) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var b []byte
	err := ss.s.db.QueryRow(ctx, "SELECT data FROM sessions WHERE token = $1 AND current_timestamp < expiry", sessionKey(token)).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, dbError(err, "console session")
	}
	return b, true, nil
}

// CommitCtx stores the data of the session token until expiry.
func (ss *Sessions) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	_, err := ss.s.db.Exec(ctx, `INSERT INTO sessions (token, data, expiry) VALUES ($1, $2, $3)
		ON CONFLICT (token) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry`, sessionKey(token), b, expiry)
	if err != nil {
		return dbError(err, "console session")
	}
	return nil
}

// DeleteCtx removes the session token; none is not an error.
func (ss *Sessions) DeleteCtx(ctx context.Context, token string) error {
	if _, err := ss.s.db.Exec(ctx, "DELETE FROM sessions WHERE token = $1", sessionKey(token)); err != nil {
		return dbError(err, "console session")
	}
	return nil
}

// Find is FindCtx without a deadline; scs calls the Ctx methods.
func (ss *Sessions) Find(token string) ([]byte, bool, error) {
	return ss.FindCtx(context.Background(), token)
}

// Commit is CommitCtx without a deadline; scs calls the Ctx methods.
func (ss *Sessions) Commit(token string, b []byte, expiry time.Time) error {
	return ss.CommitCtx(context.Background(), token, b, expiry)
}

// Delete is DeleteCtx without a deadline; scs calls the Ctx methods.
func (ss *Sessions) Delete(token string) error {
	return ss.DeleteCtx(context.Background(), token)
}

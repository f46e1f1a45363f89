package state

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// TokenSource is what Tokens reads and writes (*store.Store).
type TokenSource interface {
	ListTokens(ctx context.Context) ([]domain.Token, error)
	CreateToken(ctx context.Context, name string, scopes []string) (domain.Token, string, error)
	TokensByHash(ctx context.Context) (map[string]domain.Token, error)
	RecordTokenUse(ctx context.Context, id int64, method, path string) (time.Time, bool, error)
	RevokeToken(ctx context.Context, name string) (domain.Token, error)
}

// TokenLookupTimeout bounds the load of the token table for a secret
// that is not in memory (one created since the last load).
const TokenLookupTimeout = 2 * time.Second

// UnknownTokenLoadGap is the least time between two loads of the token
// table for secrets not in memory. Every valid token is in memory but
// one another process created in the moment before its notification
// arrived, so such a secret is checked by loading the table again — one
// load for every secret that arrived before it began, and at most one a
// gap, so that a flood of invented secrets is not a flood of queries (it
// waits instead).
const UnknownTokenLoadGap = 200 * time.Millisecond

// tokenUseQueue is how many token uses wait to be recorded at most; a use
// that finds the queue full is not recorded (the next one, a minute later,
// is).
const tokenUseQueue = 1024

// tokenUseTimeout bounds the write of one token use.
const tokenUseTimeout = 5 * time.Second

// Tokens checks API tokens against an in-memory copy of the token table,
// so that the API keeps serving while the database is unreachable: loaded
// by OpenTokens, loaded again after Changed (a token created or revoked,
// announced on store.ChangesChannel) and periodically under Run. A
// secret not in memory is looked up in the database (TokenLookupTimeout),
// so a token works as soon as it is created. Uses are recorded in the
// background (store.RecordTokenUse, at most once a minute per token) and
// never fail or slow a request. Safe for concurrent use.
type Tokens struct {
	src         TokenSource
	log         *slog.Logger
	unreachable func(error)

	byHash   atomic.Pointer[map[string]*cachedToken]
	loadMu   sync.Mutex // serialises loads and additions
	loadedAt atomic.Int64
	stale    chan struct{}
	uses     chan tokenUse
	dropped  atomic.Int64
	// missMu serialises the loads for unknown secrets; missLoad is when
	// the last one began and missErr its error.
	missMu   sync.Mutex
	missLoad time.Time
	missErr  error
}

// cachedToken is a token in memory, with when its last use was queued
// (Unix nanoseconds, 0 for none), which outlives reloads.
type cachedToken struct {
	tok    domain.Token
	queued *atomic.Int64
}

// tokenUse is one use waiting to be recorded.
type tokenUse struct {
	id           int64
	method, path string
}

// OpenTokens loads every token from src. unreachable (may be nil) is
// told every error of the database met later (Served.Unreachable).
// Errors are the store's.
func OpenTokens(ctx context.Context, src TokenSource, log *slog.Logger, unreachable func(error)) (*Tokens, error) {
	if unreachable == nil {
		unreachable = func(error) {}
	}
	t := &Tokens{src: src, log: log, unreachable: unreachable, stale: make(chan struct{}, 1), uses: make(chan tokenUse, tokenUseQueue)}
	if err := t.load(ctx); err != nil {
		return nil, fmt.Errorf("api tokens: %w", err)
	}
	return t, nil
}

// load reads the token table and swaps it in.
func (t *Tokens) load(ctx context.Context) error {
	rows, err := t.src.TokensByHash(ctx)
	if err != nil {
		return err
	}
	t.loadMu.Lock()
	defer t.loadMu.Unlock()
	queued := map[int64]*atomic.Int64{}
	if old := t.byHash.Load(); old != nil {
		for _, c := range *old {
			queued[c.tok.ID] = c.queued
		}
	}
	m := make(map[string]*cachedToken, len(rows))
	for h, tok := range rows {
		q := queued[tok.ID]
		if q == nil {
			q = new(atomic.Int64)
		}
		m[h] = &cachedToken{tok: tok, queued: q}
	}
	t.byHash.Store(&m)
	t.loadedAt.Store(time.Now().UnixNano())
	return nil
}

// LoadedAt returns when the tokens were last loaded in full.
func (t *Tokens) LoadedAt() time.Time { return time.Unix(0, t.loadedAt.Load()) }

// Changed asks Run to load the tokens again (a token was created or
// revoked, by any process). It never blocks.
func (t *Tokens) Changed() {
	select {
	case t.stale <- struct{}{}:
	default:
	}
}

// Run loads the tokens after Changed and every `every`, and records the
// queued uses, until ctx is cancelled. Failures are logged (the copy in
// memory keeps serving) and retried at the next period or Changed.
func (t *Tokens) Run(ctx context.Context, every time.Duration) {
	var wg sync.WaitGroup
	wg.Go(func() { t.recordUses(ctx) })
	defer wg.Wait()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.stale:
		case <-tick.C:
		}
		if err := t.load(ctx); err != nil && ctx.Err() == nil {
			t.unreachable(err)
			t.log.Warn("loading the API tokens failed; the tokens in memory keep serving", "err", err)
		}
	}
}

// recordUses writes the queued uses until ctx is cancelled.
func (t *Tokens) recordUses(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case u := <-t.uses:
			t.record(ctx, u)
		}
	}
}

// record writes one use; a failure is logged, the use is lost.
func (t *Tokens) record(ctx context.Context, u tokenUse) {
	wctx, cancel := context.WithTimeout(ctx, tokenUseTimeout)
	_, _, err := t.src.RecordTokenUse(wctx, u.id, u.method, u.path)
	cancel()
	if err != nil && ctx.Err() == nil {
		t.unreachable(err)
		t.log.Warn("recording an API token's use failed", "token_id", u.id, "err", err)
	}
}

// Flush records the uses queued now, on the caller's goroutine, until
// the queue is empty or ctx ends (shutdown: no use is lost to a clean
// stop).
func (t *Tokens) Flush(ctx context.Context) {
	for ctx.Err() == nil {
		select {
		case u := <-t.uses:
			t.record(ctx, u)
		default:
			return
		}
	}
}

// List returns every token, revoked ones included, as the database
// holds them now (the tokens page shows last uses the copy in memory may
// lack). Errors: the store's.
func (t *Tokens) List(ctx context.Context) ([]domain.Token, error) {
	return t.src.ListTokens(ctx)
}

// Create creates a token called name with scopes (audited with the
// context's actor) and returns it with its secret, the only time the
// secret is available. This process's Authenticate takes the token at
// once, from memory. Errors: library.ErrInvalid for a name breaking
// library.NameProblem or a bad scope; library.ErrConflict when the name
// is taken (revoked tokens keep theirs).
func (t *Tokens) Create(ctx context.Context, name string, scopes []string) (domain.Token, string, error) {
	tok, secret, err := t.src.CreateToken(ctx, name, scopes)
	if err == nil {
		t.add(domain.HashToken(secret), tok)
	}
	return tok, secret, err
}

// Revoke revokes the token called name (store.Store.RevokeToken) and
// reloads the tokens, so that this process refuses it at once; other
// processes follow on the change notification.
func (t *Tokens) Revoke(ctx context.Context, name string) (domain.Token, error) {
	tok, err := t.src.RevokeToken(ctx, name)
	if err != nil {
		return tok, err
	}
	if err := t.load(context.WithoutCancel(ctx)); err != nil {
		return tok, fmt.Errorf("api token %s revoked, but reloading the tokens failed: %w", name, err)
	}
	return tok, nil
}

// Authenticate returns the active token whose secret this is, like
// store.Store.Authenticate, from memory. A secret not in memory is
// checked against a load of the token table begun after it arrived
// (loadAfter), within TokenLookupTimeout. Its use is queued for
// recording. Errors: library.ErrNotFound for an unknown secret;
// domain.ErrTokenRevoked for a revoked one; domain.ErrUnavailable for a
// secret not in memory while the database cannot be reached.
func (t *Tokens) Authenticate(ctx context.Context, secret, method, path string) (domain.Token, error) {
	if !strings.HasPrefix(secret, domain.TokenPrefix) {
		return domain.Token{}, fmt.Errorf("unknown API token: %w", library.ErrNotFound)
	}
	hash := domain.HashToken(secret)
	c := (*t.byHash.Load())[hash]
	if c == nil {
		if err := t.loadAfter(ctx, time.Now()); err != nil {
			return domain.Token{}, err
		}
		if c = (*t.byHash.Load())[hash]; c == nil {
			return domain.Token{}, fmt.Errorf("unknown API token: %w", library.ErrNotFound)
		}
	}
	if c.tok.RevokedAt != nil {
		return domain.Token{}, fmt.Errorf("api token %s: %w", c.tok.Name, domain.ErrTokenRevoked)
	}
	t.queueUse(c, method, path)
	return c.tok, nil
}

// loadAfter makes sure the tokens in memory come from a load of the
// table that began after arrived: it waits for the load under way, or
// begins one, at least UnknownTokenLoadGap after the one before. Errors:
// domain.ErrUnavailable when the database cannot be reached.
func (t *Tokens) loadAfter(ctx context.Context, arrived time.Time) error {
	t.missMu.Lock()
	defer t.missMu.Unlock()
	if t.missLoad.After(arrived) {
		return t.missErr
	}
	if wait := time.Until(t.missLoad.Add(UnknownTokenLoadGap)); wait > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("checking the API token: %w: %w", domain.ErrUnavailable, ctx.Err())
		case <-time.After(wait):
		}
	}
	lctx, cancel := context.WithTimeout(ctx, TokenLookupTimeout)
	defer cancel()
	t.missLoad = time.Now()
	t.missErr = nil
	if err := t.load(lctx); err != nil {
		if errors.Is(err, domain.ErrUnavailable) || lctx.Err() != nil {
			t.unreachable(err)
			err = fmt.Errorf("checking the API token: %w: %w", domain.ErrUnavailable, err)
		}
		t.missErr = err
	}
	return t.missErr
}

// add adds tok, whose secret hashes to hash, to the copy in memory and
// returns it as held there (the one already held, if any).
func (t *Tokens) add(hash string, tok domain.Token) *cachedToken {
	t.loadMu.Lock()
	defer t.loadMu.Unlock()
	old := *t.byHash.Load()
	if c := old[hash]; c != nil {
		return c
	}
	m := make(map[string]*cachedToken, len(old)+1)
	for h, c := range old {
		m[h] = c
	}
	c := &cachedToken{tok: tok, queued: new(atomic.Int64)}
	m[hash] = c
	t.byHash.Store(&m)
	return c
}

// queueUse queues a use of c for recording when its last recorded or
// queued use is older than domain.TokenUseDue allows; a full queue drops it.
func (t *Tokens) queueUse(c *cachedToken, method, path string) {
	now := time.Now()
	last := c.queued.Load()
	prev := c.tok.LastUsedAt
	if last != 0 {
		at := time.Unix(0, last)
		if prev == nil || at.After(*prev) {
			prev = &at
		}
	}
	if !domain.TokenUseDue(prev, now) || !c.queued.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	select {
	case t.uses <- tokenUse{id: c.tok.ID, method: method, path: path}:
	default:
		t.dropped.Add(1)
	}
}

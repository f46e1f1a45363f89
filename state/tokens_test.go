package state_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// lookupCounter is the store with its loads of the token table counted.
type lookupCounter struct {
	*store.Store
	lookups atomic.Int64
}

func (c *lookupCounter) TokensByHash(ctx context.Context) (map[string]domain.Token, error) {
	c.lookups.Add(1)
	return c.Store.TokensByHash(ctx)
}

// Invented secrets from 32 clients cost at most one load of the token
// table per UnknownTokenLoadGap, and all are refused; a token created by
// this process is taken from memory, and one another process has just
// created is found at its first use.
func TestUnknownTokensAreNotAFloodOfQueries(t *testing.T) {
	t.Parallel()
	st, _ := storetest.Open(t)
	src := &lookupCounter{Store: st}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tokens, err := state.OpenTokens(t.Context(), src, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := domain.WithActor(t.Context(), "admin")

	start := time.Now()
	var wg sync.WaitGroup
	var refused atomic.Int64
	for c := range 32 {
		wg.Go(func() {
			for i := range 20 {
				secret := fmt.Sprintf("%sinvented-%d-%d", domain.TokenPrefix, c, i)
				if _, err := tokens.Authenticate(t.Context(), secret, "GET", "/api/v1/modules"); errors.Is(err, library.ErrNotFound) {
					refused.Add(1)
				} else {
					t.Errorf("invented secret: %v, want not found", err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	allowed := int64(elapsed/state.UnknownTokenLoadGap) + 2 // and the first load
	if n := src.lookups.Load(); n > allowed || refused.Load() != 32*20 {
		t.Errorf("%d invented secrets in %v: %d loads (at most %d allowed), %d refused", 32*20, elapsed, n, allowed, refused.Load())
	}

	before := src.lookups.Load()
	tok, secret, err := tokens.Create(ctx, "runtime", []string{domain.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tokens.Authenticate(t.Context(), secret, "GET", "/api/v1/modules"); err != nil || got.ID != tok.ID {
		t.Fatalf("token created here: %+v, %v", got, err)
	}
	if n := src.lookups.Load() - before; n != 0 {
		t.Errorf("a token created by this process cost %d lookups", n)
	}

	// Another process creates one; this one has not reloaded.
	_, other, err := st.CreateToken(ctx, "other-runtime", []string{domain.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tokens.Authenticate(t.Context(), other, "GET", "/api/v1/modules"); err != nil {
		t.Errorf("token created by another process: %v", err)
	}
}

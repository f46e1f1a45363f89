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

// lookupCounter is the store with its lookups of single tokens counted.
type lookupCounter struct {
	*store.Store
	lookups atomic.Int64
}

func (c *lookupCounter) TokenByHash(ctx context.Context, hash string) (domain.Token, error) {
	c.lookups.Add(1)
	return c.Store.TokenByHash(ctx, hash)
}

// Invented secrets from 32 clients cost at most UnknownTokenLookups
// database lookups a second, and all are refused; a token created by
// this process is taken from memory, and one created by another process
// is found by a lookup once the flood is over.
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
			for i := range 200 {
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
	allowed := int64(state.UnknownTokenLookups*elapsed.Seconds()) + state.UnknownTokenLookups + 1
	if n := src.lookups.Load(); n > allowed || refused.Load() != 32*200 {
		t.Errorf("%d invented secrets in %v: %d lookups (at most %d allowed), %d refused", 32*200, elapsed, n, allowed, refused.Load())
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
	time.Sleep(time.Second) // the limiter refills
	if _, err := tokens.Authenticate(t.Context(), other, "GET", "/api/v1/modules"); err != nil {
		t.Errorf("token created by another process: %v", err)
	}
}

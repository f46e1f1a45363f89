package state_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
)

// slowSource is a state.Source whose ListOverrides counts its calls and
// waits for release when gate is set.
type slowSource struct {
	calls atomic.Int32
	fail  atomic.Bool

	mu   sync.Mutex
	gate chan struct{}
}

func (s *slowSource) ReadOperatorState(ctx context.Context) (domain.OperatorState, error) {
	s.calls.Add(1)
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return domain.OperatorState{}, ctx.Err()
		}
	}
	if s.fail.Load() {
		return domain.OperatorState{}, errors.New("database down")
	}
	return domain.OperatorState{}, nil
}

// openServed opens a Served over the builtin library and src, which it
// reads once.
func openServed(t *testing.T, src *slowSource) *state.Served {
	t.Helper()
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(t.Context(), reload.Fixed(lib), src, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitCalls waits until src has been read n times.
func waitCalls(t *testing.T, src *slowSource, n int32) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for src.calls.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d rebuilds, want %d", src.calls.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A burst of changes during a rebuild queues exactly one more; Current
// keeps answering meanwhile; Run returns when its context ends.
func TestServedRunCoalesces(t *testing.T) {
	t.Parallel()
	src := &slowSource{}
	o := openServed(t, src)
	first := o.Current()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { o.Run(ctx, time.Hour); close(done) }()

	gate := make(chan struct{})
	src.mu.Lock()
	src.gate = gate
	src.mu.Unlock()
	o.Changed()
	waitCalls(t, src, 2) // the rebuild is in flight, held at the gate
	for range 100 {
		o.Changed()
	}
	if o.Current() != first {
		t.Error("Current changed before the rebuild finished")
	}
	close(gate)
	waitCalls(t, src, 3)
	time.Sleep(50 * time.Millisecond)
	if n := src.calls.Load(); n != 3 {
		t.Errorf("%d reads after 1 + 101 changes, want 3 (the initial one, the one in flight, one queued)", n)
	}
	if o.Current() == first {
		t.Error("Current was not replaced")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

// Without any change Run still rebuilds periodically, and it retries a
// failed rebuild, keeping the last good View.
func TestServedRunPeriodicAndRetry(t *testing.T) {
	t.Parallel()
	src := &slowSource{}
	o := openServed(t, src)
	good := o.Current()
	src.fail.Store(true)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go o.Run(ctx, 20*time.Millisecond)
	waitCalls(t, src, 4)
	if o.Current() != good {
		t.Error("a failed rebuild replaced the View")
	}
	src.fail.Store(false)
	n := src.calls.Load()
	waitCalls(t, src, n+2)
	if o.Current() == good {
		t.Error("the periodic rebuild did not replace the View once the source answered")
	}
}

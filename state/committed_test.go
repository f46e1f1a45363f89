package state_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library/lint"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
)

// brokenReads is the store as Served reads it, failing every read as an
// unreachable database while down is set; writes go to the store itself.
type brokenReads struct {
	*store.Store
	down atomic.Bool
}

func (b *brokenReads) fail() error {
	if b.down.Load() {
		return fmt.Errorf("read: %w", domain.ErrUnavailable)
	}
	return nil
}

func (b *brokenReads) ReadOperatorState(ctx context.Context) (domain.OperatorState, error) {
	if err := b.fail(); err != nil {
		return domain.OperatorState{}, err
	}
	return b.Store.ReadOperatorState(ctx)
}

func (b *brokenReads) ReadOverrideKey(ctx context.Context, id, locale string) (domain.OverrideKeyState, error) {
	if err := b.fail(); err != nil {
		return domain.OverrideKeyState{}, err
	}
	return b.Store.ReadOverrideKey(ctx, id, locale)
}

func (b *brokenReads) GetProfile(ctx context.Context, id string) (domain.Profile, error) {
	if err := b.fail(); err != nil {
		return domain.Profile{}, err
	}
	return b.Store.GetProfile(ctx, id)
}

// A write whose commit went through answers success with what it stored,
// even when reading the served state back fails after the commit; the
// View is marked stale until a later read repairs it.
func TestCommittedWriteIsASuccessWhenTheReadBackFails(t *testing.T) {
	s := newService(t)
	src := &brokenReads{Store: s.st}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	served, err := state.Open(context.Background(), reload.Fixed(s.lib), src, log)
	if err != nil {
		t.Fatal(err)
	}
	ovr := &state.Overrides{Store: s.st, Served: served, Assembler: assembler.New(assembler.Config{}), Log: log, Checklist: lint.Lint}
	text := s.withLine(t, "base.identity", "Committed before the read failed.")

	src.down.Store(true)
	out, err := ovr.Save(s.ctx, state.Edit{ID: "base.identity", Locale: "en-US", Text: text})
	if err != nil || out.Kind != state.OutcomeStored || out.Saved.Revision != 1 {
		t.Fatalf("save after the commit: %v, %+v; want stored revision 1 and no error", err, out.Kind)
	}
	if _, err := ovr.Publish(s.ctx, "base.identity", "en-US", 1); err != nil {
		t.Fatalf("publish after the commit: %v, want no error", err)
	}
	if _, stale := served.StaleSince(); !stale {
		t.Error("the View is not marked stale after a failed read back")
	}
	if head, err := s.st.GetOverride(context.Background(), "base.identity", "en-US"); err != nil || head.PublishedRevision != 1 {
		t.Fatalf("stored head %+v, %v; want revision 1 published", head, err)
	}

	src.down.Store(false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go served.Run(ctx, time.Hour)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, stale := served.StaleSince()
		if row, ok := served.Current().Rows.Get(assembler.Key("base.identity", "en-US")); ok && row.Revision == 1 && !stale {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the View was not repaired within 10 s of the database answering again")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

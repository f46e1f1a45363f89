package state_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/state/ledger"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// ledgerSize is the catalogue size the ledger is measured at.
const ledgerSize = 10_000

// catalogue is a generated catalogue of n entries, five kinds, texts of
// about 1.5 KB; entries i with i%changeEvery == 0 carry edition's mark,
// so two editions differ in n/changeEvery texts.
func catalogue(n, changeEvery, edition int) []ledger.Fragment {
	kinds := []string{"tool-description", "system-prompt", "agent-prompt", "output-style", "system-reminder"}
	body := strings.Repeat("Use the tool only when the task needs it; say what you did and why. ", 22)
	out := make([]ledger.Fragment, n)
	for i := range out {
		text := fmt.Sprintf("Fragment %d.\n%s", i, body)
		if i%changeEvery == 0 {
			text += fmt.Sprintf("\nEdition %d.", edition)
		}
		out[i] = ledger.Fragment{Name: fmt.Sprintf("%s-%05d", kinds[i%len(kinds)], i), Kind: kinds[i%len(kinds)], Version: "2.0.1", Text: text}
	}
	return out
}

// BenchmarkLedger10000 measures the porting ledger at 10,000 entries
// against real Postgres, a third of them decided (port, merge, do not
// port): the first sync of the whole catalogue, a sync where 100 texts
// changed, a sync where none did, the listing (all, and a text search
// with a flag), and the Markdown export.
func BenchmarkLedger10000(b *testing.B) {
	ctx := domain.WithActor(context.Background(), "bench")
	st, err := store.Open(ctx, storetest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(st.Close)
	l := &state.Ledger{Store: st, Exists: func(string) bool { return true }}
	editions := [2][]ledger.Fragment{catalogue(ledgerSize, 100, 0), catalogue(ledgerSize, 100, 1)}
	if _, err := l.Sync(ctx, "claude-code", editions[0]); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < ledgerSize; i += 3 {
		d := ledger.Decision{Catalogue: "claude-code", Name: editions[0][i].Name, Decision: domain.Decisions[i%3], ModuleID: "base.identity"}
		if d.Decision == domain.DecisionDoNotPort {
			d.ModuleID, d.Reason = "", "describes a tool we do not have"
		}
		if _, err := l.Decide(ctx, d); err != nil {
			b.Fatal(err)
		}
	}

	// Counted across the runs of -count: each first sync has a new
	// catalogue, each changed sync the other edition.
	catalogues, edition := 0, 0
	b.Run("sync/first", func(b *testing.B) {
		for b.Loop() {
			catalogues++
			if _, err := l.Sync(ctx, fmt.Sprintf("first-%d", catalogues), editions[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sync/100-changed", func(b *testing.B) {
		for b.Loop() {
			edition = 1 - edition
			p, err := l.Sync(ctx, "claude-code", editions[edition])
			if err != nil || len(p.Changed) != ledgerSize/100 {
				b.Fatalf("sync: %d changed, %v", len(p.Changed), err)
			}
		}
	})
	b.Run("sync/unchanged", func(b *testing.B) {
		cur := editions[edition]
		for b.Loop() {
			if p, err := l.Sync(ctx, "claude-code", cur); err != nil || p.Unchanged != ledgerSize {
				b.Fatalf("sync: %d unchanged, %v", p.Unchanged, err)
			}
		}
	})
	b.Run("list/all", func(b *testing.B) {
		for b.Loop() {
			if list, err := l.List(ctx, "claude-code", ledger.Filter{}); err != nil || len(list.Entries) != ledgerSize {
				b.Fatalf("list: %d, %v", len(list.Entries), err)
			}
		}
	})
	b.Run("list/search-and-flag", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.List(ctx, "claude-code", ledger.Filter{Q: "TOOL-DESCRIPTION-0", Flag: ledger.FlagDrifted}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("export", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.Export(ctx, "claude-code", ledger.Filter{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

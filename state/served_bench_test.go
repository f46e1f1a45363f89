package state_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// BenchmarkServedUpdate times the update of the served state after one
// published override save, with N published overrides stored: full, the
// whole operator state read and every text parsed (what the periodic
// safety net does, and what each write once did), and by key, the saved
// key read alone and the View composed from the last one (withKey). Each
// iteration saves and times one of each in turn, so that both see the
// same machine; the medians are reported as full-ns/update and
// bykey-ns/update, their ratio as full/bykey (ns/op counts the two saves
// too). The N overrides: one per builtin module (10 or 35, en-US), then
// generated user modules (aux layer, a few hundred bytes each, one in ten
// including the one before it). The by-key figure at 5,000 against the
// one at 10 is the target (at most twice). Figures in BENCHMARKS.md:
//
//	go test ./state -run '^$' -bench '^BenchmarkServedUpdate$' -benchtime 30x -count 3
func BenchmarkServedUpdate(b *testing.B) {
	lib, err := library.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10, 35, 1000, 5000} {
		b.Run(fmt.Sprintf("overrides=%d", n), func(b *testing.B) {
			ctx := domain.WithActor(context.Background(), "bench")
			st, err := store.Open(ctx, storetest.NewDatabase(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(st.Close)
			if err := st.WithTx(ctx, func(tx *store.Store) error { return storetest.PublishOverrides(ctx, tx, lib, n) }); err != nil {
				b.Fatal(err)
			}
			served, err := state.Load(ctx, st, lib, discard())
			if err != nil {
				b.Fatal(err)
			}
			if got := served.Current().State.Overrides.Len(); got != n {
				b.Fatalf("%d overrides served, want %d", got, n)
			}
			m, _ := lib.Module("task.summarize", "en-US")
			head, err := st.GetOverride(ctx, "task.summarize", "en-US")
			if err != nil {
				b.Fatal(err)
			}
			save := func(i int) {
				o := head
				o.Text, o.Action, o.Publish = fmt.Sprintf("%s\n\nEdit %d.\n", strings.TrimRight(m.Text, "\n"), i), "", true
				if head, err = st.SaveOverride(ctx, o, head.Revision); err != nil {
					b.Fatal(err)
				}
			}
			var before, after []time.Duration
			i := 0
			for b.Loop() {
				save(i)
				t0 := time.Now()
				if err := served.FullRebuild(ctx); err != nil {
					b.Fatal(err)
				}
				before = append(before, time.Since(t0))
				save(i + 1)
				t0 = time.Now()
				if err := served.UpdateOverride(ctx, "task.summarize", "en-US"); err != nil {
					b.Fatal(err)
				}
				after = append(after, time.Since(t0))
				i += 2
			}
			if o, _ := served.Current().State.Overrides.Get(assembler.Key("task.summarize", "en-US")); o == nil || o.Revision != head.Revision {
				b.Fatalf("the last save is not served")
			}
			mb, ma := median(before), median(after)
			b.ReportMetric(float64(mb.Nanoseconds()), "full-ns/update")
			b.ReportMetric(float64(ma.Nanoseconds()), "bykey-ns/update")
			b.ReportMetric(float64(mb)/float64(ma), "full/bykey")
		})
	}
}

// median is the middle of ds (the upper one of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

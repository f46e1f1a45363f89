package webhook_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/webhook"
)

// A bounded load with faults: writers save and publish through the write
// path while one write in five fails inside its transaction (the event's
// insert raises) and receivers refuse the first attempt of some events.
// Every publish answered as a success is stored and has exactly one event,
// delivered exactly once to each endpoint; every publish answered as a
// failure left nothing.
func TestLoadWithFaultsLosesNothing(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	served, err := state.Open(context.Background(), reload.Fixed(lib), st, quiet)
	if err != nil {
		t.Fatal(err)
	}
	h := webhook.New(st, sealKeys, quiet, fast)
	ovr := &state.Overrides{Store: st, Served: served, Assembler: assembler.New(assembler.Config{}), Log: quiet, Outbox: h}

	var mu sync.Mutex
	got := map[string]int{} // "<endpoint> <key>" → deliveries answered 2xx
	receiver := func(name string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get(webhook.HeaderIdempotencyKey)
			if r.Header.Get(webhook.HeaderAttempt) == "1" && strings.HasSuffix(key, "1") {
				http.Error(w, "busy", http.StatusServiceUnavailable) // sent again at attempt 2
				return
			}
			mu.Lock()
			got[name+" "+key]++
			mu.Unlock()
		}))
	}
	a, b := receiver("a"), receiver("b")
	defer a.Close()
	defer b.Close()
	addEndpoint(t, h, a.URL)
	addEndpoint(t, h, b.URL)
	run(t, h)

	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), `CREATE FUNCTION flaky_event() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF random() < 0.2 THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER flaky_event BEFORE INSERT ON webhook_events FOR EACH ROW EXECUTE FUNCTION flaky_event();`); err != nil {
		t.Fatal(err)
	}

	const writers, rounds = 4, 12
	deadline := time.Now().Add(8 * time.Second)
	var wg sync.WaitGroup
	acked := make([][]string, writers)   // keys of the publishes answered as success
	refused := make([][]string, writers) // keys of those answered as failure
	for w := range writers {
		id := lib.IDs()[w]
		m, ok := lib.Module(id, "en-US")
		if !ok {
			t.Fatalf("no builtin %s (en-US)", id)
		}
		wg.Go(func() {
			ctx := domain.WithActor(context.Background(), fmt.Sprintf("writer%d", w))
			base := 0
			for i := 0; i < rounds && time.Now().Before(deadline); i++ {
				out, err := ovr.Save(ctx, state.Edit{ID: id, Locale: "en-US", Text: m.Text + fmt.Sprintf("\nEdit %d.\n", i), Revision: base})
				if err != nil || out.Kind != state.OutcomeStored {
					t.Errorf("%s: save %d: %v %v %s", id, i, err, out.Kind, out.Reason)
					return
				}
				base = out.Saved.Revision
				key := fmt.Sprintf("%s:%s:en-us:%d", domain.EventPublished, id, base)
				if _, err := ovr.Publish(ctx, id, "en-US", base); err != nil {
					if !strings.Contains(err.Error(), "injected fault") {
						t.Errorf("%s: publish %d: %v", id, base, err)
						return
					}
					refused[w] = append(refused[w], key)
					continue
				}
				acked[w] = append(acked[w], key)
			}
		})
	}
	wg.Wait()
	if _, err := conn.Exec(t.Context(), `DROP TRIGGER flaky_event ON webhook_events`); err != nil {
		t.Fatal(err)
	}

	published := map[string]bool{} // keys of the publishes in the audit log
	audit, err := st.ListAudit(context.Background(), domain.AuditFilter{Action: domain.ActionPublish, Limit: domain.MaxAuditLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range audit {
		published[fmt.Sprintf("%s:%s:%s:%d", domain.EventPublished, e.SubjectID, strings.ToLower(e.Locale), e.Revision)] = true
	}
	var nAcked, nRefused int
	for w := range writers {
		for _, k := range acked[w] {
			nAcked++
			if !published[k] {
				t.Errorf("%s was answered as published but is not stored", k)
			}
		}
		for _, k := range refused[w] {
			nRefused++
			if published[k] {
				t.Errorf("%s was answered as failed but is stored", k)
			}
		}
	}
	if nAcked+nRefused == 0 || nAcked != len(published) {
		t.Fatalf("%d publishes answered as success, %d as failure, %d stored", nAcked, nRefused, len(published))
	}
	t.Logf("%d publishes stored, %d refused by the injected fault", nAcked, nRefused)

	list := waitDeliveries(t, h, func(l []domain.Delivery) bool {
		for _, d := range l {
			if d.Status != domain.DeliveryDelivered {
				return false
			}
		}
		return len(l) == 2*len(published)
	})
	if len(list) != 2*len(published) {
		t.Fatalf("%d deliveries, want one per endpoint of each of %d publishes", len(list), len(published))
	}
	time.Sleep(3 * fast.Poll) // a second sending would show by now
	mu.Lock()
	defer mu.Unlock()
	for k := range published {
		for _, ep := range []string{"a", "b"} {
			if n := got[ep+" "+k]; n != 1 {
				t.Errorf("%s received %s %d times, want once", ep, k, n)
			}
		}
	}
	if len(got) != 2*len(published) {
		t.Errorf("%d (endpoint, event) received, want %d", len(got), 2*len(published))
	}
}

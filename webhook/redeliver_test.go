package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/webhook"
)

// A failed delivery sent again gets a new round of attempts with the same
// key, its attempt numbers going on and its earlier attempts kept; one
// delivery or every failed one of an endpoint; only failed ones.
func TestRedeliverFailed(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	var up atomic.Bool
	var mu sync.Mutex
	var got []string
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get(webhook.HeaderIdempotencyKey)+" "+r.Header.Get(webhook.HeaderAttempt))
		mu.Unlock()
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
		}
	}))
	defer rs.Close()
	h := webhook.New(st, sealKeys, quiet, fast)
	ep := addEndpoint(t, h, rs.URL)
	run(t, h)
	for _, k := range []string{"r1", "r2"} {
		if err := h.RecordDrift(context.Background(), event(k)); err != nil {
			t.Fatal(err)
		}
	}
	settled := func(l []domain.Delivery) bool {
		return len(l) == 2 && !slices.ContainsFunc(l, func(d domain.Delivery) bool { return d.Status == domain.DeliveryPending })
	}
	byKey := func(l []domain.Delivery) map[string]domain.Delivery {
		m := map[string]domain.Delivery{}
		for _, d := range l {
			m[d.EventKey] = d
		}
		return m
	}
	ds := byKey(waitDeliveries(t, h, settled))
	r1, r2 := ds["r1"], ds["r2"]
	if r1.Status != domain.DeliveryFailed || r1.Attempts != fast.MaxAttempts || r2.Status != domain.DeliveryFailed {
		t.Fatalf("deliveries %+v, want both failed after %d attempts", ds, fast.MaxAttempts)
	}

	ctx := domain.WithActor(context.Background(), "admin")
	// Sent again while the receiver still fails: a whole new round, then failed again.
	if ids, err := h.Redeliver(ctx, ep.ID, r1.ID); err != nil || !slices.Equal(ids, []int64{r1.ID}) {
		t.Fatalf("redeliver %d: %v, %v", r1.ID, ids, err)
	}
	ds = byKey(waitDeliveries(t, h, settled))
	if d := ds["r1"]; d.Status != domain.DeliveryFailed || d.Attempts != 2*fast.MaxAttempts || d.RoundStart != fast.MaxAttempts ||
		d.Redeliveries != 1 || len(d.AttemptLog) != 2*fast.MaxAttempts || d.AttemptLog[2*fast.MaxAttempts-1].Attempt != 2*fast.MaxAttempts {
		t.Fatalf("r1 after a redelivery to a failing receiver: %+v; want failed again after %d more attempts", d, fast.MaxAttempts)
	}
	if d := ds["r2"]; d.Attempts != fast.MaxAttempts || d.Redeliveries != 0 {
		t.Errorf("r2 was sent again with r1 alone: %+v", d)
	}

	up.Store(true)
	if ids, err := h.Redeliver(ctx, ep.ID, 0); err != nil || !slices.Equal(ids, []int64{r1.ID, r2.ID}) {
		t.Fatalf("redeliver every failed one: %v, %v; want %d and %d", ids, err, r1.ID, r2.ID)
	}
	ds = byKey(waitDeliveries(t, h, settled))
	if d := ds["r1"]; d.Status != domain.DeliveryDelivered || d.Attempts != 2*fast.MaxAttempts+1 || d.Redeliveries != 2 {
		t.Errorf("r1: %+v, want delivered at attempt %d, sent again twice", d, 2*fast.MaxAttempts+1)
	}
	if d := ds["r2"]; d.Status != domain.DeliveryDelivered || d.Attempts != fast.MaxAttempts+1 || d.Redeliveries != 1 {
		t.Errorf("r2: %+v, want delivered at attempt %d", d, fast.MaxAttempts+1)
	}
	mu.Lock()
	if last := got[len(got)-2:]; !slices.Contains(last, fmt.Sprintf("r1 %d", 2*fast.MaxAttempts+1)) || !slices.Contains(last, fmt.Sprintf("r2 %d", fast.MaxAttempts+1)) {
		t.Errorf("the last requests %v, want r1 and r2 with their keys and attempt numbers going on", last)
	}
	mu.Unlock()

	if _, err := h.Redeliver(ctx, ep.ID, r1.ID); !errors.Is(err, library.ErrConflict) || !strings.Contains(err.Error(), "delivered") {
		t.Errorf("redeliver a delivered one: %v, want a conflict saying it is delivered", err)
	}
	if ids, err := h.Redeliver(ctx, ep.ID, 0); err != nil || len(ids) != 0 {
		t.Errorf("redeliver every failed one when none is: %v, %v; want none and no error", ids, err)
	}
	if _, err := h.Redeliver(ctx, ep.ID, r1.ID+100); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("redeliver an unknown delivery: %v, want not found", err)
	}
	if _, err := h.Redeliver(ctx, ep.ID+1, 0); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("redeliver for an unknown endpoint: %v, want not found", err)
	}
	audit, err := st.ListAudit(context.Background(), domain.AuditFilter{Action: domain.ActionRedeliver})
	if err != nil || len(audit) != 2 || audit[0].Actor != "admin" || audit[0].After != fmt.Sprintf(`{"deliveries":[%d,%d]}`, r1.ID, r2.ID) {
		t.Errorf("audit of the redeliveries: %+v, %v", audit, err)
	}
}

// The retry schedule the documents state is the one the code follows:
// the waits between the attempts of a round add up to what README.md
// and docs/webhooks.md say, and so does the longest a round can take
// with every attempt running to its timeout.
func TestDocumentedRetrySchedule(t *testing.T) {
	t.Parallel()
	p := webhook.DefaultPolicy
	var waits time.Duration
	for n := 1; n < p.MaxAttempts; n++ { // no wait follows the last attempt
		waits += p.RetryAfter(n)
	}
	longest := waits + time.Duration(p.MaxAttempts)*p.Timeout
	minSec := func(d time.Duration) string {
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	for _, doc := range []string{"../README.md", "../docs/webhooks.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ")
		for _, want := range []string{
			fmt.Sprintf("%d attempts", p.MaxAttempts),
			"the last " + minSec(waits) + " after the first",
			"at most " + minSec(longest),
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not say %q", doc, want)
			}
		}
	}
}

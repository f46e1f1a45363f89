package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/sealed"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/webhook"
)

func TestMain(m *testing.M) {
	if dbURL := os.Getenv(dieAfterCommitEnv); dbURL != "" {
		os.Exit(publishAndDie(dbURL))
	}
	os.Exit(storetest.Main(m))
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// sealKeys seal the endpoint secrets of every test (the processes of one
// test share them, as a deployment's do).
var sealKeys = func() *sealed.Keyring {
	k, err := sealed.NewKeyring(sealed.NewKey())
	if err != nil {
		panic(err)
	}
	return k
}()

// fast is a policy whose retries follow each other quickly.
var fast = webhook.Policy{Timeout: 2 * time.Second, MaxAttempts: 4, FirstRetry: 20 * time.Millisecond, MaxRetry: 80 * time.Millisecond, Poll: 20 * time.Millisecond, PrivateNetworks: true}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// run starts h.Run until the test ends.
func run(t *testing.T, h *webhook.Webhooks) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { h.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
}

func addEndpoint(t *testing.T, h *webhook.Webhooks, url string) domain.Webhook {
	t.Helper()
	w, err := h.Create(domain.WithActor(context.Background(), "admin"), domain.Webhook{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// waitDeliveries waits (up to 10 s) until done says the log is complete,
// and returns it.
func waitDeliveries(t *testing.T, h *webhook.Webhooks, done func([]domain.Delivery) bool) []domain.Delivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		list, err := h.Deliveries(context.Background(), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if done(list) || time.Now().After(deadline) {
			return list
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func event(key string) domain.WebhookEvent {
	return domain.WebhookEvent{IdempotencyKey: key, Type: domain.EventDrifted, OccurredAt: time.Now().UTC(), Module: "task.x", Locale: "en-US", Revision: 1}
}

func TestSignAndVerify(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"override.published"}`)
	now := time.Unix(1_800_000_000, 0)
	sig := webhook.Sign("0123456789abcdef", now.Unix(), body)
	ts := strconv.FormatInt(now.Unix(), 10)
	if err := webhook.Verify("0123456789abcdef", sig, ts, body, now.Add(time.Minute), webhook.DefaultTolerance); err != nil {
		t.Errorf("the right secret: %v", err)
	}
	for what, c := range map[string]struct {
		secret, sig, ts string
		body            []byte
		now             time.Time
	}{
		"wrong secret":   {"0123456789abcdeF", sig, ts, body, now},
		"changed body":   {"0123456789abcdef", sig, ts, []byte(`{"type":"override.deleted"}`), now},
		"other time":     {"0123456789abcdef", sig, strconv.FormatInt(now.Unix()+1, 10), body, now},
		"stale":          {"0123456789abcdef", sig, ts, body, now.Add(6 * time.Minute)},
		"no prefix":      {"0123456789abcdef", sig[len("sha256="):], ts, body, now},
		"bad timestamp":  {"0123456789abcdef", sig, "yesterday", body, now},
		"empty":          {"0123456789abcdef", "", "", body, now},
		"truncated hmac": {"0123456789abcdef", sig[:len(sig)-2], ts, body, now},
	} {
		if err := webhook.Verify(c.secret, c.sig, c.ts, c.body, c.now, webhook.DefaultTolerance); err == nil {
			t.Errorf("%s: verified", what)
		} else if (what == "wrong secret" || what == "changed body" || what == "other time" || what == "truncated hmac") != errors.Is(err, webhook.ErrSignature) {
			t.Errorf("%s: %v", what, err)
		}
	}
}

func TestRetryAfterDoublesUpToTheCap(t *testing.T) {
	t.Parallel()
	p := webhook.DefaultPolicy
	var got []time.Duration
	for n := 1; n <= p.MaxAttempts; n++ {
		got = append(got, p.RetryAfter(n))
	}
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 320 * time.Second, 10 * time.Minute}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("retries %v, want %v", got, want)
	}
}

// TestRetriesUntilSuccess: a receiver answering 500 twice, then 200, gets
// three attempts; the log has each one and the delivery is delivered.
func TestRetriesUntilSuccess(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	var mu sync.Mutex
	var keys []string
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, r.Header.Get(webhook.HeaderIdempotencyKey)+" "+r.Header.Get(webhook.HeaderAttempt))
		if len(keys) <= 2 {
			http.Error(w, "busy", http.StatusInternalServerError)
		}
	}))
	defer rs.Close()
	h := webhook.New(st, sealKeys, quiet, fast)
	addEndpoint(t, h, rs.URL)
	run(t, h)
	if err := h.RecordDrift(context.Background(), event("k1")); err != nil {
		t.Fatal(err)
	}
	list := waitDeliveries(t, h, func(l []domain.Delivery) bool { return len(l) == 1 && l[0].Status != domain.DeliveryPending })
	if len(list) != 1 {
		t.Fatalf("%d deliveries, want 1", len(list))
	}
	d := list[0]
	if d.Status != domain.DeliveryDelivered || d.Attempts != 3 || d.LastStatus != 200 || d.LastError != "" || len(d.AttemptLog) != 3 {
		t.Fatalf("delivery %+v, want delivered at the third attempt", d)
	}
	for i, a := range d.AttemptLog {
		wantStatus, wantErr := 500, "HTTP 500 Internal Server Error"
		if i == 2 {
			wantStatus, wantErr = 200, ""
		}
		if a.Attempt != i+1 || a.Status != wantStatus || a.Error != wantErr || a.At.IsZero() {
			t.Errorf("attempt %d: %+v, want status %d, error %q", i+1, a, wantStatus, wantErr)
		}
	}
	if gap := d.AttemptLog[1].At.Sub(d.AttemptLog[0].At); gap < fast.FirstRetry {
		t.Errorf("the second attempt came %s after the first, before the backoff of %s", gap, fast.FirstRetry)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(keys) != "[k1 1 k1 2 k1 3]" {
		t.Errorf("requests %v, want k1 attempts 1, 2, 3", keys)
	}
}

// TestGivesUpAfterMaxAttempts: an endpoint that never answers 2xx is
// tried MaxAttempts times, then the delivery fails.
func TestGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer rs.Close()
	h := webhook.New(st, sealKeys, quiet, fast)
	addEndpoint(t, h, rs.URL)
	run(t, h)
	if err := h.RecordDrift(context.Background(), event("k2")); err != nil {
		t.Fatal(err)
	}
	list := waitDeliveries(t, h, func(l []domain.Delivery) bool { return len(l) == 1 && l[0].Status != domain.DeliveryPending })
	if len(list) != 1 || list[0].Status != domain.DeliveryFailed || list[0].Attempts != fast.MaxAttempts ||
		len(list[0].AttemptLog) != fast.MaxAttempts || list[0].LastStatus != http.StatusFound {
		t.Fatalf("deliveries %+v, want one failed after %d attempts answered 302", list, fast.MaxAttempts)
	}
}

// TestEachEventOnceAcrossProcesses: three processes deliver from one
// database, each recording the same events (as each sees the same drift):
// every event reaches every endpoint exactly once.
func TestEachEventOnceAcrossProcesses(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	var mu sync.Mutex
	count := map[string]int{}
	endpoint := func(name string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			count[name+" "+r.Header.Get(webhook.HeaderIdempotencyKey)]++
			mu.Unlock()
		}))
	}
	a, b := endpoint("a"), endpoint("b")
	defer a.Close()
	defer b.Close()
	var procs []*webhook.Webhooks
	for range 3 {
		procs = append(procs, webhook.New(st, sealKeys, quiet, fast))
	}
	addEndpoint(t, procs[0], a.URL)
	addEndpoint(t, procs[0], b.URL)
	for _, p := range procs {
		run(t, p)
	}
	const events = 30
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() {
			for i := range events {
				if err := p.RecordDrift(context.Background(), event(fmt.Sprintf("e%d", i))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	list := waitDeliveries(t, procs[0], func(l []domain.Delivery) bool {
		for _, d := range l {
			if d.Status != domain.DeliveryDelivered {
				return false
			}
		}
		return len(l) == 2*events
	})
	if len(list) != 2*events {
		t.Fatalf("%d deliveries, want %d", len(list), 2*events)
	}
	time.Sleep(3 * fast.Poll) // a second sending would show by now
	mu.Lock()
	defer mu.Unlock()
	if len(count) != 2*events {
		t.Errorf("%d distinct (endpoint, event) received, want %d", len(count), 2*events)
	}
	for k, n := range count {
		if n != 1 {
			t.Errorf("%s received %d times, want once", k, n)
		}
	}
}

// TestSurvivesARestart: an event recorded while no process delivers is
// sent once one starts; a delivery whose process died during its attempt
// is sent again when its lease ends, with the same idempotency key.
func TestSurvivesARestart(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	got := make(chan string, 4)
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get(webhook.HeaderIdempotencyKey)
	}))
	defer rs.Close()
	h := webhook.New(st, sealKeys, quiet, fast)
	addEndpoint(t, h, rs.URL)
	if err := h.RecordDrift(context.Background(), event("before-start")); err != nil {
		t.Fatal(err)
	}
	// A process claims it and dies: no attempt recorded.
	claimed, err := st.ClaimDeliveries(context.Background(), 10, 300*time.Millisecond, nil)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	run(t, webhook.New(st, sealKeys, quiet, fast))
	select {
	case k := <-got:
		if k != "before-start" {
			t.Errorf("received %q", k)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the event was not sent after the lease ended")
	}
	list := waitDeliveries(t, h, func(l []domain.Delivery) bool { return len(l) == 1 && l[0].Status == domain.DeliveryDelivered })
	if len(list) != 1 || list[0].Status != domain.DeliveryDelivered || list[0].Attempts != 2 || len(list[0].AttemptLog) != 1 {
		t.Errorf("deliveries %+v, want delivered at attempt 2 (the first died), one attempt logged", list)
	}
}

// TestEndpointChecks: a refused field is named.
func TestEndpointChecks(t *testing.T) {
	t.Parallel()
	h := webhook.New(openStore(t), sealKeys, quiet, fast)
	for _, c := range []struct {
		w          domain.Webhook
		field, say string
	}{
		{domain.Webhook{}, "url", "required"},
		{domain.Webhook{URL: "example.com/hook"}, "url", "http://"},
		{domain.Webhook{URL: "ftp://example.com/hook"}, "url", "http://"},
		{domain.Webhook{URL: "https://"}, "url", "with a host"},
		{domain.Webhook{URL: "https://exa mple.com/hook"}, "url", `"https://exa mple.com/hook" is not a URL: invalid character " " in host name`},
		{domain.Webhook{URL: "https://user:pass@example.com/hook"}, "url", "user name or password"},
		{domain.Webhook{URL: "https://example.com", Secret: "too short"}, "secret", "at least"},
		{domain.Webhook{URL: "https://example.com", Secret: " padded secret value "}, "secret", "space"},
	} {
		_, err := h.Create(context.Background(), c.w)
		var fe *webhook.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Error(), c.say) {
			t.Errorf("%+v: %v, want an error on %s saying %q", c.w, err, c.field, c.say)
		}
	}
	w, err := h.Create(context.Background(), domain.Webhook{URL: "https://example.com/hook"})
	if err != nil || len(w.Secret) < webhook.MinSecret {
		t.Errorf("no secret given: %+v %v, want one made", w, err)
	}
}

// TestDriftEventOnce: two processes watch a served override based on a
// builtin version the library no longer has (it was rolled back); the endpoint gets one override.drifted event
// saying so, and none again after a restart.
func TestDriftEventOnce(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	ctx := domain.WithActor(context.Background(), "test")
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	b, ok := lib.Module("base.identity", "en-US")
	if !ok {
		t.Fatal("no builtin base.identity (en-US)")
	}
	if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: "base.identity", Locale: "en-US", Text: b.Text + "\nMine.\n",
		Title: b.Title, Version: b.Version, BasedOnVersion: b.Version + 1, BaseSnapshot: b.Text, Publish: true}, 0); err != nil {
		t.Fatal(err)
	}
	got := make(chan domain.WebhookEvent, 4)
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e domain.WebhookEvent
		if err := json.NewDecoder(r.Body).Decode(&e); err != nil {
			t.Error(err)
		}
		got <- e
	}))
	defer rs.Close()
	addEndpoint(t, webhook.New(st, sealKeys, quiet, fast), rs.URL)

	watch := func() (stop func()) {
		served, err := state.Open(context.Background(), reload.Fixed(lib), st, quiet)
		if err != nil {
			t.Fatal(err)
		}
		h := webhook.New(st, sealKeys, quiet, fast)
		wctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { h.Run(wctx) })
		wg.Go(func() { h.WatchDrift(wctx, served) })
		return func() { cancel(); wg.Wait() }
	}
	stopA, stopB := watch(), watch()
	select {
	case e := <-got:
		want := domain.WebhookDrift{Reason: string(assembler.DriftVersionLowered), BasedOnVersion: b.Version + 1, BuiltinVersion: b.Version}
		if e.Type != domain.EventDrifted || e.Module != "base.identity" || e.Revision != 1 || e.Drift == nil || *e.Drift != want {
			t.Errorf("event %+v, want override.drifted %+v", e, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no drift event")
	}
	stopA()
	stopB()
	stopC := watch() // a restart
	defer stopC()
	select {
	case e := <-got:
		t.Errorf("a second drift event: %+v", e)
	case <-time.After(10 * fast.Poll):
	}
}

// TestPruneKeepsPending: pruning deletes old finished events with their
// log and keeps those still being delivered.
func TestPruneKeepsPending(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	ctx := context.Background()
	h := webhook.New(st, sealKeys, quiet, fast)
	addEndpoint(t, h, "http://127.0.0.1:9/")
	for _, k := range []string{"done", "waiting"} {
		if err := h.RecordDrift(ctx, event(k)); err != nil {
			t.Fatal(err)
		}
	}
	claimed, err := st.ClaimDeliveries(ctx, 1, time.Minute, nil)
	if err != nil || len(claimed) != 1 || claimed[0].EventKey != "done" {
		t.Fatalf("claim: %+v %v", claimed, err)
	}
	if ok, err := st.FinishAttempt(ctx, claimed[0].ID, domain.DeliveryAttempt{Attempt: 1, At: time.Now(), Status: 200}, domain.AttemptOutcome{Delivered: true}); !ok || err != nil {
		t.Fatalf("finish: %v %v", ok, err)
	}
	if n, err := st.PruneWebhookEvents(ctx, time.Hour); n != 0 || err != nil {
		t.Errorf("prune of events older than an hour: %d %v, want none", n, err)
	}
	if n, err := st.PruneWebhookEvents(ctx, 0); n != 1 || err != nil {
		t.Errorf("prune: %d %v, want the delivered event", n, err)
	}
	list, err := h.Deliveries(ctx, 0, 10)
	if err != nil || len(list) != 1 || list[0].EventKey != "waiting" {
		t.Errorf("left: %+v %v, want the pending delivery", list, err)
	}
	// A pruned key may be recorded again (a drift still there after the
	// log forgot it is announced again).
	if err := h.RecordDrift(ctx, event("done")); err != nil {
		t.Fatal(err)
	}
	if list, _ := h.Deliveries(ctx, 0, 10); len(list) != 2 {
		t.Errorf("%d deliveries after recording the pruned key again, want 2", len(list))
	}
}

// TestSlowEndpointHoldsUpNoOther: while one endpoint takes its time over
// every request (as long as the policy's timeout), the events of another
// endpoint are delivered at once, each as soon as it is recorded; the
// slow endpoint gets one request at a time.
func TestSlowEndpointHoldsUpNoOther(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	release := make(chan struct{})
	var slowInFlight, slowMost atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := slowInFlight.Add(1)
		defer slowInFlight.Add(-1)
		if n > slowMost.Load() {
			slowMost.Store(n)
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	var mu sync.Mutex
	got := map[string]time.Time{}
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get(webhook.HeaderIdempotencyKey)] = time.Now()
		mu.Unlock()
	}))
	defer healthy.Close()
	policy := fast
	policy.Timeout = 10 * time.Second
	h := webhook.New(st, sealKeys, quiet, policy)
	addEndpoint(t, h, slow.URL)
	addEndpoint(t, h, healthy.URL)
	run(t, h)
	for i := range 5 {
		key := fmt.Sprintf("k%d", i)
		sent := time.Now()
		if err := h.RecordDrift(context.Background(), event(key)); err != nil {
			t.Fatal(err)
		}
		deadline := sent.Add(2 * time.Second)
		for {
			mu.Lock()
			at, ok := got[key]
			mu.Unlock()
			if ok {
				if wait := at.Sub(sent); wait > time.Second {
					t.Errorf("event %s reached the healthy endpoint after %v", key, wait)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("event %s did not reach the healthy endpoint within 2 s while the slow one hangs", key)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if n := slowMost.Load(); n != 1 {
		t.Errorf("the slow endpoint had %d requests in flight at once, want 1", n)
	}
}

package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/webhook"
)

// dieAfterCommitEnv, set to a database URL, makes the test binary a
// process that publishes revision 1 of base.identity (en-US) there
// through the write path and exits with dieAfterCommitCode the moment
// the store has committed it, before anything else runs.
const (
	dieAfterCommitEnv  = "PROMPTDESK_TEST_DIE_AFTER_COMMIT"
	dieAfterCommitCode = 3
)

// dyingStore is the store of a process that dies as soon as a publish has
// committed.
type dyingStore struct{ *store.Store }

func (d dyingStore) Publish(ctx context.Context, id, locale string, revision int) (domain.Override, error) {
	o, err := d.Store.Publish(ctx, id, locale, revision)
	if err == nil {
		os.Exit(dieAfterCommitCode)
	}
	return o, err
}

// publishAndDie is the process of dieAfterCommitEnv; it returns the exit
// code of a failure before the commit.
func publishAndDie(dbURL string) int {
	ctx := domain.WithActor(context.Background(), "ada")
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return 1
	}
	lib, err := library.Builtin()
	if err != nil {
		return 1
	}
	served, err := state.Open(ctx, reload.Fixed(lib), st, quiet)
	if err != nil {
		return 1
	}
	ovr := &state.Overrides{Store: dyingStore{st}, Served: served, Assembler: assembler.New(assembler.Config{}), Log: quiet}
	if _, err := ovr.Publish(ctx, "base.identity", "en-US", 1); err != nil {
		return 2
	}
	return 0
}

// A process that dies the moment its publish has committed leaves the
// publish's event with a delivery to each endpoint, and any process that
// delivers afterwards sends each exactly once.
func TestCommittedPublishKeepsItsEventWhenTheProcessDies(t *testing.T) {
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
	b, _ := lib.Module("base.identity", "en-US")
	if _, err := st.SaveOverride(domain.WithActor(context.Background(), "ada"), domain.Override{ModuleID: "base.identity", Locale: "en-US",
		Text: b.Text + "\nMine.\n", Title: b.Title, Version: b.Version, BasedOnVersion: b.Version, BaseSnapshot: b.Text}, 0); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]int{}
	receiver := func(name string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got[name+" "+r.Header.Get(webhook.HeaderIdempotencyKey)]++
			mu.Unlock()
		}))
	}
	a, c := receiver("a"), receiver("c")
	defer a.Close()
	defer c.Close()
	h := webhook.New(st, sealKeys, quiet, fast)
	addEndpoint(t, h, a.URL)
	addEndpoint(t, h, c.URL)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), dieAfterCommitEnv+"="+dbURL)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != dieAfterCommitCode {
		t.Fatalf("the publishing process ended with %v, want exit code %d right after the commit; output:\n%s", err, dieAfterCommitCode, out)
	}
	list, err := h.Deliveries(context.Background(), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	const key = "override.published:base.identity:en-us:1"
	if len(list) != 2 || list[0].EventKey != key || list[1].EventKey != key || list[0].WebhookID == list[1].WebhookID {
		t.Fatalf("deliveries after the crash: %+v; want one of %s to each of the 2 endpoints", list, key)
	}

	run(t, h)
	waitDeliveries(t, h, func(l []domain.Delivery) bool {
		return len(l) == 2 && l[0].Status == domain.DeliveryDelivered && l[1].Status == domain.DeliveryDelivered
	})
	time.Sleep(3 * fast.Poll) // a second sending would show by now
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got["a "+key] != 1 || got["c "+key] != 1 {
		t.Errorf("received %v, want %s once at a and once at c", got, key)
	}
}

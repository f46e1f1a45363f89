package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/sealed"
	"github.com/promptdesk/promptdesk/webhook"
)

func newKeys(t *testing.T, current string, previous ...string) *sealed.Keyring {
	t.Helper()
	k, err := sealed.NewKeyring(current, previous...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// signedWith starts a receiver and returns its URL and a channel of
// whether each delivery's signature verifies with secret.
func signedWith(t *testing.T, secret string) (string, <-chan bool) {
	t.Helper()
	got := make(chan bool, 4)
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, r.ContentLength)
		_, _ = r.Body.Read(body)
		err := webhook.Verify(secret, r.Header.Get(webhook.HeaderSignature), r.Header.Get(webhook.HeaderTimestamp), body, time.Now(), webhook.DefaultTolerance)
		got <- err == nil
	}))
	t.Cleanup(rs.Close)
	return rs.URL, got
}

func received(t *testing.T, got <-chan bool) bool {
	t.Helper()
	select {
	case ok := <-got:
		return ok
	case <-time.After(10 * time.Second):
		t.Fatal("nothing delivered in 10 s")
		return false
	}
}

// TestSecretsStoredSealed: the secret an endpoint is created with is
// stored sealed, never in plain text, shown once, and still signs.
func TestSecretsStoredSealed(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	h := webhook.New(st, sealKeys, quiet, fast)
	const secret = "whsec_the-one-given-by-the-admin"
	url, got := signedWith(t, secret)
	created, err := h.Create(domain.WithActor(context.Background(), "admin"), domain.Webhook{URL: url, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	if created.Secret != secret {
		t.Errorf("Create returned secret %q; want the plain secret, shown this once", created.Secret)
	}
	stored, err := st.GetWebhook(context.Background(), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored.Secret, secret) || !strings.HasPrefix(stored.Secret, "sealed:v1:"+sealKeys.ID()+":") {
		t.Errorf("stored secret %q; want it sealed under key %s", stored.Secret, sealKeys.ID())
	}
	if w, _ := h.Get(context.Background(), created.ID); w.Secret != "" {
		t.Errorf("Get returned secret %q; want none", w.Secret)
	}
	run(t, h)
	if err := h.RecordDrift(context.Background(), event("sealed")); err != nil {
		t.Fatal(err)
	}
	if !received(t, got) {
		t.Error("the delivery's signature does not verify with the endpoint's secret")
	}
}

// TestResealFinishesARotation: a secret stored in plain text (before
// secrets were sealed) and one sealed under the previous key are sealed
// again under the current key when the server starts, and sign as before;
// a ring without the previous key then opens them.
func TestResealFinishesARotation(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	ctx := domain.WithActor(context.Background(), "admin")
	oldKey, newKey := sealed.NewKey(), sealed.NewKey()
	plain, err := st.CreateWebhook(ctx, domain.Webhook{URL: "https://example.com/plain", Secret: "plain-text-secret-123"})
	if err != nil {
		t.Fatal(err)
	}
	url, got := signedWith(t, "sealed-under-old-key")
	old, err := webhook.New(st, newKeys(t, oldKey), quiet, fast).Create(ctx, domain.Webhook{URL: url, Secret: "sealed-under-old-key"})
	if err != nil {
		t.Fatal(err)
	}

	rotated := newKeys(t, newKey, oldKey)
	h := webhook.New(st, rotated, quiet, fast)
	n, err := h.Reseal(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("Reseal = %d, %v; want 2, nil", n, err)
	}
	if n, err := h.Reseal(context.Background()); err != nil || n != 0 {
		t.Errorf("Reseal again = %d, %v; want 0, nil", n, err)
	}
	only := newKeys(t, newKey)
	for id, want := range map[int64]string{plain.ID: "plain-text-secret-123", old.ID: "sealed-under-old-key"} {
		w, err := st.GetWebhook(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if s, current, err := only.Open(w.Secret); err != nil || s != want || !current {
			t.Errorf("endpoint %d after Reseal: %q, %v, %v; want %q under the new key", id, s, current, err, want)
		}
	}
	if err := st.DeleteWebhook(ctx, plain.ID); err != nil {
		t.Fatal(err)
	}
	run(t, webhook.New(st, only, quiet, fast))
	if err := h.RecordDrift(context.Background(), event("rotated")); err != nil {
		t.Fatal(err)
	}
	if !received(t, got) {
		t.Error("after the rotation the delivery's signature does not verify")
	}
}

// TestResealRefuses: without the key a secret was sealed under, or
// without any key while endpoints exist, Reseal fails naming the cause
// and writes nothing; without a key no endpoint can be added.
func TestResealRefuses(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	ctx := domain.WithActor(context.Background(), "admin")
	noKey := webhook.New(st, nil, quiet, fast)
	if n, err := noKey.Reseal(context.Background()); err != nil || n != 0 {
		t.Errorf("Reseal without key or endpoints = %d, %v; want 0, nil", n, err)
	}
	if _, err := noKey.Create(ctx, domain.Webhook{URL: "https://example.com/a"}); !errors.Is(err, webhook.ErrNoKey) || !errors.Is(err, domain.ErrNotConfigured) {
		t.Errorf("Create without a key: %v; want ErrNoKey (not configured)", err)
	}

	first := newKeys(t, sealed.NewKey())
	w, err := webhook.New(st, first, quiet, fast).Create(ctx, domain.Webhook{URL: "https://example.com/a"})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := st.GetWebhook(context.Background(), w.ID)

	if _, err := noKey.Reseal(context.Background()); !errors.Is(err, webhook.ErrNoKey) || !strings.Contains(err.Error(), "1 webhook endpoints") {
		t.Errorf("Reseal without a key, one endpoint: %v; want ErrNoKey counting 1", err)
	}
	_, err = webhook.New(st, newKeys(t, sealed.NewKey()), quiet, fast).Reseal(context.Background())
	var unknown *sealed.UnknownKeyError
	if !errors.As(err, &unknown) || unknown.ID != first.ID() {
		t.Errorf("Reseal with another key: %v; want UnknownKeyError naming %s", err, first.ID())
	}
	if after, _ := st.GetWebhook(context.Background(), w.ID); after.Secret != before.Secret {
		t.Error("a refused Reseal changed the stored secret")
	}
}

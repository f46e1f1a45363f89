package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/webhook"
)

// Without PrivateNetworks an endpoint on an internal address is refused
// when saved (an address literal or localhost in its URL, field url,
// naming the flag) and when a delivery connects (a name that resolves to
// one, or an endpoint stored before): the receiver hears nothing, the
// delivery fails at its first attempt and the log says why.
func TestInternalEndpointsRefused(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	public := fast
	public.PrivateNetworks = false
	h := webhook.New(st, sealKeys, quiet, public)
	ctx := domain.WithActor(context.Background(), "admin")
	for _, u := range []string{
		"http://127.0.0.1:5432/", "http://[::1]/hook", "http://localhost:8080/", "http://api.localhost/",
		"http://169.254.169.254/latest/meta-data/", "http://0.0.0.0/", "http://10.1.2.3/", "http://192.168.0.9/",
		"http://172.16.5.5/", "http://[fd00::1]/", "http://100.64.0.1/", "http://[::ffff:127.0.0.1]/",
	} {
		_, err := h.Create(ctx, domain.Webhook{URL: u})
		var fe *webhook.FieldError
		if !errors.As(err, &fe) || fe.Field != "url" || !strings.Contains(fe.Msg, webhook.PrivateNetworksFlag) {
			t.Errorf("%s: %v, want refused on field url naming %s", u, err, webhook.PrivateNetworksFlag)
		}
	}
	// IPv4 shorthands some resolvers read as 127.0.0.1 are refused by
	// their form, as is a fragment, never sent.
	for u, want := range map[string]string{
		"http://2130706433/x": "four decimal numbers", "http://0x7f.1/x": "four decimal numbers", "http://0x7f000001/": "four decimal numbers",
		"https://hooks.example.com/promptdesk#x": "fragment",
	} {
		_, err := h.Create(ctx, domain.Webhook{URL: u})
		var fe *webhook.FieldError
		if !errors.As(err, &fe) || fe.Field != "url" || !strings.Contains(fe.Msg, want) {
			t.Errorf("%s: %v, want refused on field url saying %q", u, err, want)
		}
	}
	for _, u := range []string{"https://hooks.example.com/promptdesk", "http://203.0.113.7:8080/", "https://cafe.be/x", "https://0x.example.com/"} {
		if _, err := h.Create(ctx, domain.Webhook{URL: u}); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	// The same receiver written another way is the endpoint added above.
	for _, u := range []string{"https://HOOKS.example.com:443/promptdesk", "HTTPS://hooks.example.com/promptdesk"} {
		var dup *domain.DuplicateWebhook
		if _, err := h.Create(ctx, domain.Webhook{URL: u}); !errors.As(err, &dup) || dup.ID != 1 {
			t.Errorf("%s: %v, want the duplicate of endpoint 1", u, err)
		}
	}
	if _, err := h.Update(ctx, domain.Webhook{ID: 1, URL: "http://127.0.0.1/"}); err == nil {
		t.Error("an update to a loopback URL was taken")
	}

	// Stored without the check (a name resolving to loopback, as a name
	// made to resolve inward would): the delivery does not connect.
	var heard atomic.Int64
	rs := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { heard.Add(1) }))
	defer rs.Close()
	inward := strings.Replace(rs.URL, "127.0.0.1", "localhost", 1)
	if _, err := st.CreateWebhook(ctx, domain.Webhook{URL: inward, Secret: sealKeys.Seal(webhook.NewSecret())}); err != nil {
		t.Fatal(err)
	}
	run(t, h)
	if err := h.RecordDrift(context.Background(), event("inward")); err != nil {
		t.Fatal(err)
	}
	list := waitDeliveries(t, h, func(l []domain.Delivery) bool {
		for _, d := range l {
			if d.URL == inward && d.Status != domain.DeliveryPending {
				return true
			}
		}
		return false
	})
	for _, d := range list {
		if d.URL != inward {
			continue
		}
		if d.Status != domain.DeliveryFailed || !strings.Contains(d.LastError, "loopback") || !strings.Contains(d.LastError, webhook.PrivateNetworksFlag) {
			t.Errorf("delivery to %s: %s, last error %q; want failed, refused as loopback", inward, d.Status, d.LastError)
		}
		if d.Attempts != 1 {
			t.Errorf("a refused receiver was tried %d times; the address does not change by trying again", d.Attempts)
		}
	}
	if n := heard.Load(); n != 0 {
		t.Errorf("the loopback receiver was reached %d times", n)
	}
}

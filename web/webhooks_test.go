package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/webhook"
)

// received is one request a test's webhook receiver got.
type received struct {
	at     time.Time
	header http.Header
	body   []byte
}

// receiver starts a webhook endpoint on 127.0.0.1 answering 200 and
// handing on every request it gets.
func receiver(t *testing.T) (*httptest.Server, <-chan received) {
	t.Helper()
	got := make(chan received, 16)
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{at: time.Now(), header: r.Header.Clone(), body: body}
	}))
	t.Cleanup(rs.Close)
	return rs, got
}

// TestWebhookOnPublish: an admin adds an endpoint through the API; a
// publish through the API reaches it, signed, within a second; the
// signature verifies with the endpoint's secret and not with another;
// the delivery log (API and console page) shows it delivered.
func TestWebhookOnPublish(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	h := srv.Handler()
	rs, got := receiver(t)

	admin := newToken(t, st, "hooks", domain.ScopeAdmin)
	const secret = "a-secret-of-the-runtime-team"
	rec := serveAPI(h, http.MethodPost, "/api/v1/webhooks", `{"url":"`+rs.URL+`/events","secret":"`+secret+`","description":"runtime cache"}`, admin)
	var hook handlers.APIWebhook
	if err := json.Unmarshal(rec.Body.Bytes(), &hook); err != nil || rec.Code != http.StatusCreated || hook.Secret != secret || hook.URL != rs.URL+"/events" {
		t.Fatalf("POST /api/v1/webhooks: %d %s", rec.Code, rec.Body.String())
	}
	if rec := serveAPI(h, http.MethodGet, "/api/v1/webhooks/1", "", admin); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), secret) {
		t.Errorf("GET /api/v1/webhooks/1: %d %s, want 200 without the secret", rec.Code, rec.Body.String())
	}
	wantAPIError(t, "a bad URL", serveAPI(h, http.MethodPost, "/api/v1/webhooks", `{"url":"ftp://example.com/x"}`, admin), http.StatusUnprocessableEntity, "invalid_request", "http://")
	wantAPIError(t, "a short secret", serveAPI(h, http.MethodPost, "/api/v1/webhooks", `{"url":"https://example.com/x","secret":"short"}`, admin), http.StatusUnprocessableEntity, "invalid_request", "at least 16")
	wantAPIError(t, "a URL taken", serveAPI(h, http.MethodPost, "/api/v1/webhooks", `{"url":"`+rs.URL+`/events"}`, admin), http.StatusConflict, "conflict", "sends to "+rs.URL+"/events already")

	builtin, ok := srv.served.Current().Library.Module("base.identity", "en-US")
	if !ok {
		t.Fatal("no builtin base.identity (en-US)")
	}
	writer := newToken(t, st, "editor", domain.ScopeWrite)
	if rec := serveAPI(h, http.MethodPut, "/api/v1/overrides/base.identity?locale=en-US", builtin.Text+"\nOne more line.\n", writer); rec.Code != http.StatusOK && rec.Code != http.StatusCreated {
		t.Fatalf("PUT override: %d %s", rec.Code, rec.Body.String())
	}
	req := authorize(httptest.NewRequest(http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=en-US", nil), writer)
	req.Header.Set("If-Match", `"1"`)
	pub := httptest.NewRecorder()
	published := time.Now()
	h.ServeHTTP(pub, req)
	if pub.Code != http.StatusOK {
		t.Fatalf("publish: %d %s", pub.Code, pub.Body.String())
	}

	var r received
	select {
	case r = <-got:
	case <-time.After(time.Second):
		t.Fatal("no webhook within 1 s of the publish")
	}
	t.Logf("webhook arrived %s after the publish answered", r.at.Sub(published))
	sig, ts := r.header.Get(webhook.HeaderSignature), r.header.Get(webhook.HeaderTimestamp)
	if err := webhook.Verify(secret, sig, ts, r.body, time.Now(), webhook.DefaultTolerance); err != nil {
		t.Errorf("the signature does not verify with the endpoint's secret: %v", err)
	}
	if err := webhook.Verify("another-secret-entirely", sig, ts, r.body, time.Now(), webhook.DefaultTolerance); !errors.Is(err, webhook.ErrSignature) {
		t.Errorf("verified with a wrong secret: %v, want ErrSignature", err)
	}
	var e domain.WebhookEvent
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatal(err)
	}
	if e.Type != domain.EventPublished || e.Module != "base.identity" || e.Locale != "en-US" || e.Revision != 1 || e.Action != domain.ActionPublish ||
		e.Actor != "token:editor" || e.IdempotencyKey == "" || r.header.Get(webhook.HeaderIdempotencyKey) != e.IdempotencyKey ||
		r.header.Get(webhook.HeaderEvent) != domain.EventPublished {
		t.Errorf("event %+v with headers %v", e, r.header)
	}

	// The log: delivered at the first attempt, with the receiver's 200.
	var log []handlers.APIDelivery
	for deadline := time.Now().Add(5 * time.Second); ; {
		rec := serveAPI(h, http.MethodGet, "/api/v1/webhooks/1/deliveries", "", admin)
		if err := json.Unmarshal(rec.Body.Bytes(), &log); err != nil {
			t.Fatalf("deliveries: %d %s", rec.Code, rec.Body.String())
		}
		if len(log) == 1 && log[0].Status == domain.DeliveryDelivered || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(log) != 1 || log[0].Status != domain.DeliveryDelivered || log[0].Attempts != 1 || len(log[0].AttemptLog) != 1 ||
		log[0].AttemptLog[0].Status != http.StatusOK || log[0].Event.IdempotencyKey != e.IdempotencyKey {
		t.Errorf("delivery log %+v, want one delivered at the first attempt", log)
	}

	page := serve(h, http.MethodGet, "/webhooks")
	doc, err := goquery.NewDocumentFromReader(page.Body)
	if err != nil || page.Code != http.StatusOK {
		t.Fatalf("GET /webhooks: %d %v", page.Code, err)
	}
	if got := doc.Find(`[data-testid="webhook-row"]`).AttrOr("data-url", ""); got != rs.URL+"/events" {
		t.Errorf("endpoint listed: %q", got)
	}
	row := doc.Find(`[data-testid="delivery-row"]`)
	if row.Length() != 1 || row.AttrOr("data-status", "") != domain.DeliveryDelivered || row.AttrOr("data-key", "") != e.IdempotencyKey ||
		!strings.Contains(row.Text(), domain.EventPublished) || row.Find(`[data-testid="delivery-attempt"]`).Length() != 1 {
		t.Errorf("delivery rows: %d, status %q, text %q", row.Length(), row.AttrOr("data-status", ""), row.Text())
	}
	if strings.Contains(doc.Text(), secret) {
		t.Error("the page shows the secret")
	}
}

// TestWebhooksPageForms: the console adds an endpoint (a secret made and
// shown once), keeps what was typed next to a refused field, deletes one,
// and answers 404 for an unknown one; viewers and editors do not get the
// page.
func TestWebhooksPageForms(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	v, _ := clients.Load(h)
	admin := v.(*client)

	rec := admin.do(h, admin.form(http.MethodPost, "/webhooks", url.Values{"url": {"https://example.com/a b"}, "secret": {"short"}, "description": {"kept"}}))
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil || rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("a short secret: %d %v", rec.Code, err)
	}
	if got := doc.Find(`[data-testid="field-error"][data-field="secret"]`).Text(); !strings.Contains(got, "at least 16") {
		t.Errorf("secret error %q", got)
	}
	if got := doc.Find(`#webhook-description`).AttrOr("value", ""); got != "kept" {
		t.Errorf("description kept as %q", got)
	}

	rec = admin.do(h, admin.form(http.MethodPost, "/webhooks", url.Values{"url": {"https://example.com/hook"}}))
	doc, err = goquery.NewDocumentFromReader(rec.Body)
	if err != nil || rec.Code != http.StatusOK {
		t.Fatalf("add: %d %v", rec.Code, err)
	}
	secret := doc.Find(`[data-testid="webhook-secret"]`).Text()
	hooks, err := st.ListWebhooks(context.Background())
	if err != nil || len(hooks) != 1 || !strings.HasPrefix(secret, "whsec_") || hooks[0].CreatedBy != testUser {
		t.Fatalf("stored %+v %v; shown secret %q", hooks, err, secret)
	}
	if opened, _, err := testKeys.Open(hooks[0].Secret); err != nil || opened != secret {
		t.Fatalf("stored secret %q opens to %q, %v; want the one shown, sealed", hooks[0].Secret, opened, err)
	}
	if page := serve(h, http.MethodGet, "/webhooks"); strings.Contains(page.Body.String(), secret) {
		t.Error("the page shows the secret again")
	}
	// The form posted again (a double click, a reload) adds nothing: the
	// URL is taken, and the form says by which endpoint, keeping it.
	rec = admin.do(h, admin.form(http.MethodPost, "/webhooks", url.Values{"url": {"https://example.com/hook"}, "description": {"again"}}))
	doc, err = goquery.NewDocumentFromReader(rec.Body)
	if err != nil || rec.Code != http.StatusConflict {
		t.Fatalf("the same URL again: %d %v, want 409", rec.Code, err)
	}
	if got := doc.Find(`[data-testid="field-error"][data-field="url"]`).Text(); !strings.Contains(got, "webhook "+strconv.FormatInt(hooks[0].ID, 10)+" sends to https://example.com/hook already") {
		t.Errorf("URL error %q", got)
	}
	if got := doc.Find(`#webhook-description`).AttrOr("value", ""); got != "again" {
		t.Errorf("description kept as %q", got)
	}
	if again, _ := st.ListWebhooks(context.Background()); len(again) != 1 {
		t.Errorf("%d endpoints after the form was posted twice, want 1", len(again))
	}
	if page := serve(h, http.MethodGet, "/audit?subject=webhook"); page.Code != http.StatusOK ||
		!strings.Contains(page.Body.String(), "https://example.com/hook") || strings.Contains(page.Body.String(), secret) {
		t.Errorf("the audit log of webhooks: %d, want the endpoint's creation without its secret", page.Code)
	}
	if rec := admin.do(h, admin.form(http.MethodPost, "/webhooks/999/delete", nil)); rec.Code != http.StatusNotFound {
		t.Errorf("delete an unknown endpoint: %d, want 404", rec.Code)
	}
	target := "/webhooks/" + strconv.FormatInt(hooks[0].ID, 10) + "/delete"
	if rec := admin.do(h, admin.form(http.MethodPost, target, nil)); rec.Code != http.StatusSeeOther {
		t.Errorf("delete: %d, want 303", rec.Code)
	}
	if hooks, _ := st.ListWebhooks(context.Background()); len(hooks) != 0 {
		t.Errorf("left after the delete: %+v", hooks)
	}
	newUser(t, st, "ed", domain.RoleEditor)
	if rec := login(t, h, "ed").do(h, httptest.NewRequest(http.MethodGet, "/webhooks", nil)); rec.Code != http.StatusForbidden {
		t.Errorf("an editor on /webhooks: %d, want 403", rec.Code)
	}
}

// A NUL in the description is refused under that field, the form kept,
// like the other fields' refusals, and nothing is stored.
func TestWebhookFormRefusesNUL(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	v, _ := clients.Load(h)
	admin := v.(*client)

	rec := admin.do(h, admin.form(http.MethodPost, "/webhooks", url.Values{"url": {"https://example.com/hook"}, "description": {"nul\x00here"}}))
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil || rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("a NUL in the description: %d %v", rec.Code, err)
	}
	if got := doc.Find(`[data-testid="field-error"][data-field="description"]`).Text(); !strings.Contains(got, "the description contains the control character U+0000") {
		t.Errorf("description error %q", got)
	}
	if got := doc.Find(`input[name="url"]`).AttrOr("value", ""); got != "https://example.com/hook" {
		t.Errorf("URL kept as %q", got)
	}
	// Any control character, a bell as well as a NUL.
	bell := admin.do(h, admin.form(http.MethodPost, "/webhooks", url.Values{"url": {"https://example.com/hook"}, "description": {"a\u0007b"}}))
	if doc, _ := goquery.NewDocumentFromReader(bell.Body); bell.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(doc.Find(`[data-testid="field-error"][data-field="description"]`).Text(), "U+0007") {
		t.Errorf("a bell in the description: %d, want 422 naming U+0007", bell.Code)
	}
	if hooks, err := st.ListWebhooks(context.Background()); err != nil || len(hooks) != 0 {
		t.Errorf("stored %+v %v, want nothing", hooks, err)
	}
}

// failedDelivery records a drift event (to builtinVersion) to every endpoint and fails its
// delivery to endpoint id, as the dispatcher does after its last attempt,
// returning the delivery's id.
func failedDelivery(t *testing.T, st *store.Store, endpoint int64, builtinVersion int) int64 {
	t.Helper()
	ctx := context.Background()
	e := domain.DriftEvent("base.identity", "en-US", 1, domain.WebhookDrift{Reason: "builtin-version-raised", BasedOnVersion: 1, BuiltinVersion: builtinVersion}, time.Now())
	if _, _, err := st.RecordDriftEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	list, err := st.ClaimDeliveries(ctx, 10, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range list {
		if d.WebhookID != endpoint || d.EventKey != e.IdempotencyKey {
			continue
		}
		a := domain.DeliveryAttempt{Attempt: d.Attempts, At: time.Now(), Status: http.StatusBadGateway, Error: "HTTP 502 Bad Gateway"}
		if ok, err := st.FinishAttempt(ctx, d.ID, a, domain.AttemptOutcome{}); err != nil || !ok {
			t.Fatalf("fail delivery %d: %v %v", d.ID, ok, err)
		}
		return d.ID
	}
	t.Fatalf("no delivery of %s to endpoint %d claimed: %+v", e.IdempotencyKey, endpoint, list)
	return 0
}

// An admin sends failed deliveries again, one or all of an endpoint, from
// the console (CSRF-checked forms on the webhooks page, admins only) and
// from the API; the log then shows them pending with their next attempt
// and how often they were sent again; a delivery that has not failed is
// refused with 409 and an unknown one with 404 naming the field.
func TestRedeliverFromConsoleAndAPI(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil) // not started: no dispatcher touches the log
	h := srv.Handler()
	v, _ := clients.Load(h)
	admin := v.(*client)
	ctx := domain.WithActor(context.Background(), "admin")
	hook, err := st.CreateWebhook(ctx, domain.Webhook{URL: "https://receiver.example.com/hook", Secret: "0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	one := failedDelivery(t, st, hook.ID, 2)
	two := failedDelivery(t, st, hook.ID, 3)
	three := failedDelivery(t, st, hook.ID, 4)
	hookPath := "/webhooks/" + strconv.FormatInt(hook.ID, 10)
	deliveryPath := func(id int64) string { return hookPath + "/deliveries/" + strconv.FormatInt(id, 10) + "/redeliver" }

	page := admin.do(h, httptest.NewRequest(http.MethodGet, "/webhooks", nil))
	doc, err := goquery.NewDocumentFromReader(page.Body)
	if err != nil || page.Code != http.StatusOK {
		t.Fatalf("GET /webhooks: %d %v", page.Code, err)
	}
	if got := doc.Find(`[data-testid="delivery-redeliver-form"]`).Length(); got != 3 {
		t.Errorf("%d resend buttons, want one per failed delivery (3)", got)
	}
	if got := doc.Find(`[data-testid="webhook-redeliver-form"]`).AttrOr("action", ""); got != hookPath+"/redeliver" {
		t.Errorf("the endpoint's resend form posts to %q", got)
	}
	if doc.Find(`[data-testid="delivery-redeliver-form"] input[name="_csrf"]`).Length() != 3 {
		t.Error("a resend form carries no CSRF token")
	}

	if rec := admin.do(h, admin.form(http.MethodPost, deliveryPath(one), url.Values{"_csrf": {"forged"}})); rec.Code != http.StatusForbidden {
		t.Errorf("resend with a wrong CSRF token: %d, want 403", rec.Code)
	}
	newUser(t, st, "ed", domain.RoleEditor)
	editor := login(t, h, "ed")
	if rec := editor.do(h, editor.form(http.MethodPost, deliveryPath(one), nil)); rec.Code != http.StatusForbidden {
		t.Errorf("an editor resends: %d, want 403", rec.Code)
	}
	if rec := admin.do(h, admin.form(http.MethodPost, deliveryPath(one), nil)); rec.Code != http.StatusSeeOther {
		t.Fatalf("resend one: %d %s", rec.Code, rec.Body.String())
	}
	page = admin.do(h, httptest.NewRequest(http.MethodGet, "/webhooks", nil))
	doc, _ = goquery.NewDocumentFromReader(page.Body)
	if got := doc.Find(`[data-testid="flash"]`).Text(); !strings.Contains(got, "being sent again") {
		t.Errorf("flash %q", got)
	}
	row := doc.Find(`[data-testid="delivery-row"][data-status="pending"]`)
	if row.Length() != 1 || !strings.Contains(row.Find(`[data-testid="delivery-next"]`).Text(), "next attempt") ||
		!strings.Contains(row.Find(`[data-testid="delivery-redeliveries"]`).Text(), "sent again 1×") {
		t.Errorf("the resent delivery's row: %d, %q", row.Length(), row.Text())
	}
	if rec := admin.do(h, admin.form(http.MethodPost, deliveryPath(one), nil)); rec.Code != http.StatusConflict {
		t.Errorf("resend one that is pending: %d, want 409", rec.Code)
	}

	token := newToken(t, st, "hooks", domain.ScopeAdmin)
	api := "/api/v1" + hookPath
	wantAPIError(t, "a pending delivery", serveAPI(h, http.MethodPost, "/api/v1"+deliveryPath(one), "", token), http.StatusConflict, "conflict", "pending, not failed")
	wantAPIError(t, "an unknown delivery", serveAPI(h, http.MethodPost, "/api/v1"+deliveryPath(999), "", token), http.StatusNotFound, "not_found", "delivery")
	wantAPIError(t, "an unknown endpoint", serveAPI(h, http.MethodPost, "/api/v1/webhooks/999/redeliver", "", token), http.StatusNotFound, "not_found", "webhook")
	rec := serveAPI(h, http.MethodPost, "/api/v1"+deliveryPath(two), "", token)
	var d handlers.APIDelivery
	if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil || rec.Code != http.StatusOK || d.ID != two || d.Status != domain.DeliveryPending ||
		d.Attempts != 1 || d.RoundAttempts != 0 || d.Redeliveries != 1 || d.NextAttemptAt == nil || len(d.AttemptLog) != 1 {
		t.Errorf("API resend one: %d %s", rec.Code, rec.Body.String())
	}
	rec = serveAPI(h, http.MethodPost, api+"/redeliver", "", token)
	if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != `{"redelivered":[`+strconv.FormatInt(three, 10)+`]}` {
		t.Errorf("API resend every failed one: %d %s, want only %d (the others are pending)", rec.Code, rec.Body.String(), three)
	}
	if rec := serveAPI(h, http.MethodPost, api+"/redeliver", "", token); rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != `{"redelivered":[]}` {
		t.Errorf("API resend with none failed: %d %s", rec.Code, rec.Body.String())
	}
	if rec := admin.do(h, admin.form(http.MethodPost, hookPath+"/redeliver", nil)); rec.Code != http.StatusSeeOther {
		t.Errorf("console resend every failed one: %d", rec.Code)
	}
}

// TestWebhookWithoutSecretKey: a server started without the key webhook
// secrets are sealed with refuses a new endpoint with 503 not_configured
// naming the setting, and stores nothing.
func TestWebhookWithoutSecretKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, st := newServerWith(t, nil, func(c *Config) { c.SecretKeys = nil })
	admin := newToken(t, st, "hooks", domain.ScopeAdmin)
	wantAPIError(t, "an endpoint without a secret key", serveAPI(srv.Handler(), http.MethodPost, "/api/v1/webhooks", `{"url":"https://example.com/hook"}`, admin),
		http.StatusServiceUnavailable, "not_configured", "secret key setting")
	v, _ := clients.Load(srv.Handler())
	admins := v.(*client)
	rec := admins.do(srv.Handler(), admins.form(http.MethodPost, "/webhooks", url.Values{"url": {"https://example.com/typed"}, "description": {"typed by hand"}}))
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil || rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("console add without a key: %d %v; want 503", rec.Code, err)
	}
	if got := doc.Find(`[data-field="form"]`).Text(); !strings.Contains(got, "secret key setting") || strings.HasSuffix(got, "not configured for this") {
		t.Errorf("the form says %q; want the reason, in words", got)
	}
	if doc.Find(`#webhook-url`).AttrOr("value", "") != "https://example.com/typed" || doc.Find(`#webhook-description`).AttrOr("value", "") != "typed by hand" {
		t.Error("the form did not keep what was typed")
	}
	if list, err := st.ListWebhooks(ctx); err != nil || len(list) != 0 {
		t.Errorf("endpoints stored: %v, %v; want none", list, err)
	}
}

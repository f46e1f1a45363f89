// Package webhook sends promptdesk's events to the endpoints an admin
// sets: a publish, delete or restore of an override, whose event the
// store writes in the change's own transaction (the write path only calls
// Wake once it committed), and a drift found in what is served
// (WatchDrift). Each event is stored with an idempotency key and one
// delivery per endpoint, so that any number of processes send it once
// between them and a restart loses nothing; Run delivers, signed
// with HMAC-SHA256 (Sign, Verify), retrying failures with a capped
// exponential backoff and logging every attempt.
package webhook

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/sealed"
)

// Store is what Webhooks needs from the store.
type Store interface {
	ListWebhooks(ctx context.Context) ([]domain.Webhook, error)
	GetWebhook(ctx context.Context, id int64) (domain.Webhook, error)
	CreateWebhook(ctx context.Context, w domain.Webhook) (domain.Webhook, error)
	UpdateWebhook(ctx context.Context, w domain.Webhook) (domain.Webhook, error)
	DeleteWebhook(ctx context.Context, id int64) error
	RecordDriftEvent(ctx context.Context, e domain.WebhookEvent) (deliveries int, recorded bool, err error)
	ClaimDeliveries(ctx context.Context, limit int, lease time.Duration, busy []int64) ([]domain.Delivery, error)
	FinishAttempt(ctx context.Context, id int64, a domain.DeliveryAttempt, outcome domain.AttemptOutcome) (bool, error)
	ListDeliveries(ctx context.Context, webhookID int64, limit int) ([]domain.Delivery, error)
	GetDelivery(ctx context.Context, webhookID, id int64) (domain.Delivery, error)
	Redeliver(ctx context.Context, webhookID, id int64) ([]int64, error)
	PruneWebhookEvents(ctx context.Context, olderThan time.Duration) (int64, error)
	RewriteWebhookSecrets(ctx context.Context, fn func(id int64, stored string) (string, error)) (int, error)
}

// Webhooks records events and manages the endpoints; Run and WatchDrift
// deliver and find drift. Create it with New. It is safe for concurrent
// use.
type Webhooks struct {
	store  Store
	keys   *sealed.Keyring // nil: no secret can be stored (ErrNoKey)
	log    *slog.Logger
	policy Policy
	now    func() time.Time
	// wake has one token when this process recorded an event that Run has
	// not looked for yet, so that it is sent at once rather than at the
	// next poll.
	wake chan struct{}
}

// New returns the Webhooks over st with policy (zero fields take the
// defaults, DefaultPolicy). Endpoint secrets are stored sealed with keys;
// with nil keys no endpoint can be added (ErrNoKey), and Reseal refuses
// a database that holds some already.
func New(st Store, keys *sealed.Keyring, log *slog.Logger, policy Policy) *Webhooks {
	return &Webhooks{store: st, keys: keys, log: log, policy: policy.withDefaults(), now: time.Now, wake: make(chan struct{}, 1)}
}

// Limits of an endpoint's fields.
const (
	MinSecret      = 16  // characters of a secret
	MaxSecret      = 200 // characters of a secret
	MaxURL         = 2000
	MaxDescription = 200
)

// FieldError is a refused endpoint field: Field names it ("url", "secret",
// "description"). It matches library.ErrInvalid.
type FieldError struct {
	Field, Msg string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Unwrap makes a FieldError match library.ErrInvalid.
func (e *FieldError) Unwrap() error { return library.ErrInvalid }

// check refuses a URL that is not absolute http(s), carries credentials
// or a fragment or, unless privateNetworks, names an internal host (hostProblem), a
// secret (unless
// empty) shorter than MinSecret, longer than MaxSecret or padded with
// spaces, an over-long description, a NUL in the secret (the database
// cannot store it) and a control character in the description (trimmed
// of white space first).
func check(w domain.Webhook, privateNetworks bool) error {
	u, err := url.Parse(w.URL)
	internal := ""
	if err == nil && !privateNetworks {
		internal = hostProblem(u.Hostname())
	}
	switch {
	case w.URL == "":
		return &FieldError{"url", "the endpoint's URL is required"}
	case len(w.URL) > MaxURL:
		return &FieldError{"url", fmt.Sprintf("the URL has %d bytes; at most %d", len(w.URL), MaxURL)}
	case err != nil:
		return &FieldError{"url", fmt.Sprintf("%q is not a URL: %v", w.URL, urlProblem(err))}
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return &FieldError{"url", fmt.Sprintf("%q is not an http:// or https:// URL with a host", w.URL)}
	case u.Fragment != "" || strings.Contains(w.URL, "#"):
		return &FieldError{"url", "the URL has a fragment (#…), which is never sent to the receiver: leave it out"}
	case u.User != nil:
		return &FieldError{"url", "the URL carries a user name or password, which the webhooks page would show: leave them out and check the signature (the secret) instead"}
	case internal != "":
		return &FieldError{"url", internal}
	case w.Secret != "" && utf8.RuneCountInString(w.Secret) < MinSecret:
		return &FieldError{"secret", fmt.Sprintf("the secret has %d characters; at least %d", utf8.RuneCountInString(w.Secret), MinSecret)}
	case utf8.RuneCountInString(w.Secret) > MaxSecret:
		return &FieldError{"secret", fmt.Sprintf("the secret has %d characters; at most %d", utf8.RuneCountInString(w.Secret), MaxSecret)}
	case strings.TrimSpace(w.Secret) != w.Secret:
		return &FieldError{"secret", "the secret starts or ends with a space"}
	case utf8.RuneCountInString(w.Description) > MaxDescription:
		return &FieldError{"description", fmt.Sprintf("the description has %d characters; at most %d", utf8.RuneCountInString(w.Description), MaxDescription)}
	case strings.ContainsRune(w.Secret, 0):
		return &FieldError{"secret", "the secret contains the NUL character (U+0000), which cannot be stored"}
	case strings.ContainsFunc(w.Description, unicode.IsControl):
		r, _ := utf8.DecodeRuneInString(w.Description[strings.IndexFunc(w.Description, unicode.IsControl):])
		return &FieldError{"description", fmt.Sprintf("the description contains the control character U+%04X; write it on one line of plain text", r)}
	}
	return nil
}

// urlProblem is what url.Parse found wrong, without its repetition of
// the URL.
func urlProblem(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// NewSecret returns a random secret: "whsec_" and 32 random bytes in
// base64url.
func NewSecret() string {
	var b [32]byte
	rand.Read(b[:]) // never fails
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// List returns every endpoint, oldest first, their Secret "".
func (h *Webhooks) List(ctx context.Context) ([]domain.Webhook, error) {
	list, err := h.store.ListWebhooks(ctx)
	for i := range list {
		list[i].Secret = ""
	}
	return list, err
}

// Get returns the endpoint id, its Secret "". Errors: library.ErrNotFound.
func (h *Webhooks) Get(ctx context.Context, id int64) (domain.Webhook, error) {
	w, err := h.store.GetWebhook(ctx, id)
	w.Secret = ""
	return w, err
}

// Create adds the endpoint w (URL, Secret, Description); an empty Secret
// gets NewSecret. The secret is stored sealed; the endpoint returned
// carries it in plain text, the one time it is shown. The endpoint
// receives the events recorded from then on. Errors: *FieldError for a
// refused field; ErrNoKey; else the store's.
func (h *Webhooks) Create(ctx context.Context, w domain.Webhook) (domain.Webhook, error) {
	w.Description = strings.TrimSpace(w.Description)
	if err := check(w, h.policy.PrivateNetworks); err != nil {
		return domain.Webhook{}, err
	}
	if h.keys == nil {
		return domain.Webhook{}, ErrNoKey
	}
	if w.Secret == "" {
		w.Secret = NewSecret()
	}
	plain := w.Secret
	w.Secret = h.keys.Seal(plain)
	saved, err := h.store.CreateWebhook(ctx, w)
	if err != nil {
		return domain.Webhook{}, err
	}
	saved.Secret = plain
	return saved, nil
}

// Update sets the URL, description and (unless empty) secret of the
// endpoint w.ID; the endpoint returned has Secret "". Errors:
// *FieldError; ErrNoKey for a new secret; library.ErrNotFound; else the
// store's.
func (h *Webhooks) Update(ctx context.Context, w domain.Webhook) (domain.Webhook, error) {
	w.Description = strings.TrimSpace(w.Description)
	if err := check(w, h.policy.PrivateNetworks); err != nil {
		return domain.Webhook{}, err
	}
	if w.Secret != "" {
		if h.keys == nil {
			return domain.Webhook{}, ErrNoKey
		}
		w.Secret = h.keys.Seal(w.Secret)
	}
	saved, err := h.store.UpdateWebhook(ctx, w)
	saved.Secret = ""
	return saved, err
}

// Delete removes the endpoint id and its delivery log. Errors:
// library.ErrNotFound; else the store's.
func (h *Webhooks) Delete(ctx context.Context, id int64) error { return h.store.DeleteWebhook(ctx, id) }

// Deliveries returns the newest limit deliveries (1 to 1000) of the
// endpoint webhookID, or of every endpoint for 0, with their attempts.
func (h *Webhooks) Deliveries(ctx context.Context, webhookID int64, limit int) ([]domain.Delivery, error) {
	return h.store.ListDeliveries(ctx, webhookID, limit)
}

// Delivery returns the delivery id of the endpoint webhookID with its
// attempts. Errors: library.ErrNotFound.
func (h *Webhooks) Delivery(ctx context.Context, webhookID, id int64) (domain.Delivery, error) {
	return h.store.GetDelivery(ctx, webhookID, id)
}

// Redeliver sends the failed delivery id of the endpoint webhookID again,
// or every failed delivery of it when id is 0, and wakes Run: each gets a
// new round of Policy.MaxAttempts attempts with the same event and
// idempotency key, its earlier attempts kept in the log. Returns the ids
// sent again. Errors: library.ErrNotFound for an unknown endpoint or
// delivery; library.ErrConflict for a delivery that is not failed.
func (h *Webhooks) Redeliver(ctx context.Context, webhookID, id int64) ([]int64, error) {
	ids, err := h.store.Redeliver(ctx, webhookID, id)
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		h.log.Info("webhook deliveries sent again", "webhook", webhookID, "deliveries", ids, "by", domain.ActorFrom(ctx))
		h.Wake()
	}
	return ids, nil
}

// Wake tells Run that an event was recorded, so that it is sent at once
// rather than at the next poll. The write path calls it once a change has
// committed: the store wrote the change's event in the change's own
// transaction, and nothing is left to record. It never blocks.
func (h *Webhooks) Wake() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// RecordDrift stores the drift event e (domain.DriftEvent) with a
// delivery to every endpoint, unless an event of its key is stored
// already, and wakes Run. Errors are the store's (library.ErrInvalid for
// an event that is not a drift).
func (h *Webhooks) RecordDrift(ctx context.Context, e domain.WebhookEvent) error {
	n, recorded, err := h.store.RecordDriftEvent(ctx, e)
	if err != nil {
		return err
	}
	if recorded {
		h.log.Info("webhook event recorded", "key", e.IdempotencyKey, "deliveries", n)
	}
	if n > 0 {
		h.Wake()
	}
	return nil
}

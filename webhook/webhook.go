// Package webhook sends promptdesk's events to the endpoints an admin
// sets: a publish, delete or restore of an override (from the write path,
// state.Overrides, through OverrideChanged) and a drift found in what is
// served (WatchDrift). Each event is stored with an idempotency key and
// one delivery per endpoint (store), so that any number of processes send
// it once between them and a restart loses nothing; Run delivers, signed
// with HMAC-SHA256 (Sign, Verify), retrying failures with a capped
// exponential backoff and logging every attempt.
package webhook

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// Event types, the body's "type".
const (
	TypePublished = "override.published" // a revision serves now (publish, or the drift review's keep mine)
	TypeDeleted   = "override.deleted"   // the override no longer serves (delete, or the drift review's take builtin)
	TypeRestored  = "override.restored"  // an old revision was restored as a draft
	TypeDrifted   = "override.drifted"   // the builtin under a served override changed
)

// Event is the JSON body of a delivery.
type Event struct {
	// IdempotencyKey is the same for every delivery and attempt of one
	// event, and differs between events; also the Idempotency-Key header.
	IdempotencyKey string    `json:"idempotencyKey"`
	Type           string    `json:"type"`
	OccurredAt     time.Time `json:"occurredAt"`
	Module         string    `json:"module"`
	Locale         string    `json:"locale"`
	// Revision is the override's revision the event is about: the one
	// published, restored as a draft, drifted, or the delete's.
	Revision int `json:"revision"`
	// Action is the revision action behind the event (publish, keep-mine,
	// delete, take-builtin, restore); "" for a drift.
	Action string `json:"action,omitempty"`
	// Actor is who made the change; "" for a drift.
	Actor string `json:"actor,omitempty"`
	Drift *Drift `json:"drift,omitempty"`
}

// Drift is what a drift event reports: why, and the builtin versions the
// override was based on and has now (0 when removed).
type Drift struct {
	Reason         string `json:"reason"`
	BasedOnVersion int    `json:"basedOnVersion"`
	BuiltinVersion int    `json:"builtinVersion"`
}

// Store is what Webhooks needs from the store.
type Store interface {
	ListWebhooks(ctx context.Context) ([]domain.Webhook, error)
	GetWebhook(ctx context.Context, id int64) (domain.Webhook, error)
	CreateWebhook(ctx context.Context, w domain.Webhook) (domain.Webhook, error)
	UpdateWebhook(ctx context.Context, w domain.Webhook) (domain.Webhook, error)
	DeleteWebhook(ctx context.Context, id int64) error
	RecordWebhookEvent(ctx context.Context, key, typ string, body []byte) (deliveries int, recorded bool, err error)
	ClaimDeliveries(ctx context.Context, limit int, lease time.Duration, busy []int64) ([]domain.Delivery, error)
	FinishAttempt(ctx context.Context, id int64, a domain.DeliveryAttempt, outcome domain.AttemptOutcome) (bool, error)
	ListDeliveries(ctx context.Context, webhookID int64, limit int) ([]domain.Delivery, error)
	PruneWebhookEvents(ctx context.Context, olderThan time.Duration) (int64, error)
}

// Webhooks records events and manages the endpoints; Run and WatchDrift
// deliver and find drift. Create it with New. It is safe for concurrent
// use.
type Webhooks struct {
	store  Store
	log    *slog.Logger
	policy Policy
	now    func() time.Time
	// wake has one token when this process recorded an event that Run has
	// not looked for yet, so that it is sent at once rather than at the
	// next poll.
	wake chan struct{}
}

// New returns the Webhooks over st with policy (zero fields take the
// defaults, DefaultPolicy).
func New(st Store, log *slog.Logger, policy Policy) *Webhooks {
	return &Webhooks{store: st, log: log, policy: policy.withDefaults(), now: time.Now, wake: make(chan struct{}, 1)}
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

// check refuses a URL that is not absolute http(s) or carries
// credentials, a secret (unless
// empty) shorter than MinSecret, longer than MaxSecret or padded with
// spaces, an over-long description, and a NUL in the secret or the
// description (the database cannot store it).
func check(w domain.Webhook) error {
	u, err := url.Parse(w.URL)
	switch {
	case w.URL == "":
		return &FieldError{"url", "the endpoint's URL is required"}
	case len(w.URL) > MaxURL:
		return &FieldError{"url", fmt.Sprintf("the URL has %d bytes; at most %d", len(w.URL), MaxURL)}
	case err != nil:
		return &FieldError{"url", fmt.Sprintf("%q is not a URL: %v", w.URL, urlProblem(err))}
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return &FieldError{"url", fmt.Sprintf("%q is not an http:// or https:// URL with a host", w.URL)}
	case u.User != nil:
		return &FieldError{"url", "the URL carries a user name or password, which the webhooks page would show: leave them out and check the signature (the secret) instead"}
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
	case strings.ContainsRune(w.Description, 0):
		return &FieldError{"description", "the description contains the NUL character (U+0000), which cannot be stored"}
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

// List returns every endpoint, oldest first.
func (h *Webhooks) List(ctx context.Context) ([]domain.Webhook, error) {
	return h.store.ListWebhooks(ctx)
}

// Get returns the endpoint id. Errors: library.ErrNotFound.
func (h *Webhooks) Get(ctx context.Context, id int64) (domain.Webhook, error) {
	return h.store.GetWebhook(ctx, id)
}

// Create adds the endpoint w (URL, Secret, Description); an empty Secret
// gets NewSecret. The endpoint receives the events recorded from then on.
// Errors: *FieldError for a refused field; else the store's.
func (h *Webhooks) Create(ctx context.Context, w domain.Webhook) (domain.Webhook, error) {
	w.Description = strings.TrimSpace(w.Description)
	if err := check(w); err != nil {
		return domain.Webhook{}, err
	}
	if w.Secret == "" {
		w.Secret = NewSecret()
	}
	return h.store.CreateWebhook(ctx, w)
}

// Update sets the URL, description and (unless empty) secret of the
// endpoint w.ID. Errors: *FieldError; library.ErrNotFound; else the
// store's.
func (h *Webhooks) Update(ctx context.Context, w domain.Webhook) (domain.Webhook, error) {
	w.Description = strings.TrimSpace(w.Description)
	if err := check(w); err != nil {
		return domain.Webhook{}, err
	}
	return h.store.UpdateWebhook(ctx, w)
}

// Delete removes the endpoint id and its delivery log. Errors:
// library.ErrNotFound; else the store's.
func (h *Webhooks) Delete(ctx context.Context, id int64) error { return h.store.DeleteWebhook(ctx, id) }

// Deliveries returns the newest limit deliveries (1 to 1000) of the
// endpoint webhookID, or of every endpoint for 0, with their attempts.
func (h *Webhooks) Deliveries(ctx context.Context, webhookID int64, limit int) ([]domain.Delivery, error) {
	return h.store.ListDeliveries(ctx, webhookID, limit)
}

// OverrideChanged records the event of a committed change of the write
// path (state.Events). A failure is logged: the change stands, and a
// receiver that missed it can read the change feed.
func (h *Webhooks) OverrideChanged(ctx context.Context, c state.OverrideChange) {
	typ := ""
	switch c.Action {
	case domain.ActionPublish, domain.ActionKeepMine:
		typ = TypePublished
	case domain.ActionDelete, domain.ActionTakeBuiltin:
		typ = TypeDeleted
	case domain.ActionRestore:
		typ = TypeRestored
	default:
		return
	}
	e := Event{Type: typ, OccurredAt: h.now().UTC(), Module: c.ID, Locale: c.Locale, Revision: c.Revision, Action: c.Action, Actor: c.Actor}
	// A revision is published, deleted or restored once: the key is the
	// override's revision.
	e.IdempotencyKey = fmt.Sprintf("%s:%s:%s:%d", typ, c.ID, strings.ToLower(c.Locale), c.Revision)
	if err := h.Record(context.WithoutCancel(ctx), e); err != nil {
		h.log.Error("webhook event not recorded", "key", e.IdempotencyKey, "err", err)
	}
}

// Record stores e (whose IdempotencyKey must be set) with a delivery to
// every endpoint, unless an event of that key is stored already, and
// wakes Run. Errors are the store's.
func (h *Webhooks) Record(ctx context.Context, e Event) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("webhook event %s: %w", e.IdempotencyKey, err)
	}
	n, recorded, err := h.store.RecordWebhookEvent(ctx, e.IdempotencyKey, e.Type, body)
	if err != nil {
		return err
	}
	if recorded {
		h.log.Info("webhook event recorded", "key", e.IdempotencyKey, "deliveries", n)
	}
	if n > 0 {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

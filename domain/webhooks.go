package domain

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// SubjectWebhook is the audit subject of webhook endpoints.
const SubjectWebhook = "webhook"

// Webhook is an endpoint every event is sent to (package webhook).
type Webhook struct {
	ID  int64
	URL string // http or https
	// Secret is the HMAC-SHA256 key of the signature, 16 characters or
	// more; kept as given, since signing needs it.
	Secret      string
	Description string
	CreatedBy   string
	CreatedAt   time.Time
}

// Delivery states.
const (
	DeliveryPending   = "pending"   // due at NextAttemptAt
	DeliveryDelivered = "delivered" // an attempt got a 2xx answer
	DeliveryFailed    = "failed"    // every attempt failed
)

// Delivery is one event to one endpoint, with its attempts (newest last).
type Delivery struct {
	ID        int64
	WebhookID int64
	URL       string
	Secret    string // only from ClaimDeliveries
	EventKey  string // the idempotency key
	EventType string
	Body      []byte
	Status    string // DeliveryPending, DeliveryDelivered or DeliveryFailed
	// Attempts counts every attempt made, across redeliveries: the
	// attempt log's numbers go on after a redelivery.
	Attempts int
	// RoundStart is how many attempts were made before the latest
	// redelivery (0 when never redelivered): the attempt limit and the
	// backoff count the attempts after it (Round).
	RoundStart int
	// Redeliveries is how many times the delivery was sent again after
	// it failed (Redeliver).
	Redeliveries int
	LastStatus   int // HTTP status of the last attempt, 0 for none
	LastError    string
	// NextAttemptAt is when a pending delivery is due (a retry, or the end
	// of the lease of the attempt in flight).
	NextAttemptAt time.Time
	CreatedAt     time.Time // of the event
	UpdatedAt     time.Time
	AttemptLog    []DeliveryAttempt // only from ListDeliveries
}

// Round is the number of d's latest attempt within its round (from 1):
// the attempts since the latest redelivery, or since it was recorded.
func (d Delivery) Round() int { return d.Attempts - d.RoundStart }

// ActionRedeliver is the audit action of sending failed deliveries of a
// webhook endpoint again.
const ActionRedeliver = "redeliver"

// DeliveryAttempt is one try of a delivery.
type DeliveryAttempt struct {
	Attempt  int // from 1
	At       time.Time
	Duration time.Duration // until the answer or the failure, in milliseconds
	Status   int           // HTTP status, 0 when none came
	Error    string        // "" for a 2xx answer
}

// AttemptOutcome is what to do with a delivery after an attempt.
type AttemptOutcome struct {
	Delivered bool
	// RetryIn is the wait before the next attempt of an undelivered
	// delivery; 0 gives up: the delivery fails.
	RetryIn time.Duration
}

// Webhook event types, the body's "type".
const (
	EventPublished = "override.published" // a revision serves now (publish, or the drift review's keep mine)
	EventDeleted   = "override.deleted"   // the override no longer serves (delete, or the drift review's take builtin)
	EventRestored  = "override.restored"  // an old revision was restored as a draft
	EventDrifted   = "override.drifted"   // the builtin under a served override changed
	// EventChangeRequested, EventChangeApproved and EventChangeRejected
	// follow a change request (change review); an approved one is
	// followed by the event of the change itself.
	EventChangeRequested = "override.change-requested"
	EventChangeApproved  = "override.change-approved"
	EventChangeRejected  = "override.change-rejected"
)

// WebhookEvent is the JSON body of a webhook delivery:
// {"idempotencyKey","type","occurredAt","module","locale","revision",
// "action","actor","note","drift"}, the last four left out when empty.
type WebhookEvent struct {
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
	// Note is the note given with the change (why it was made); left out
	// when none was given, and for a drift.
	Note  string        `json:"note,omitempty"`
	Drift *WebhookDrift `json:"drift,omitempty"`
	// Request is the change request of a change-request event.
	Request *WebhookRequest `json:"request,omitempty"`
}

// WebhookRequest is the change request a change-request event is about:
// its id, the serving change asked for, who asked with which note, and,
// once decided, its status, who decided and the reason.
type WebhookRequest struct {
	ID        int64  `json:"id"`
	Action    string `json:"action"`
	Author    string `json:"author"`
	Note      string `json:"note,omitempty"`
	Status    string `json:"status"`
	DecidedBy string `json:"decidedBy,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// RequestEvent is the event of type typ about change request r, made by
// actor at time at; its key names the request and its status, so each
// step of a request is one event:
// "<type>:<module>:<lower-case locale>:request-<id>".
func RequestEvent(typ string, r ChangeRequest, actor string, at time.Time) WebhookEvent {
	return WebhookEvent{
		IdempotencyKey: fmt.Sprintf("%s:%s:%s:request-%d", typ, r.ModuleID, strings.ToLower(r.Locale), r.ID),
		Type:           typ, OccurredAt: at.UTC(), Module: r.ModuleID, Locale: r.Locale, Revision: r.Revision,
		Action: r.Action, Actor: actor, Note: r.Note,
		Request: &WebhookRequest{ID: r.ID, Action: r.Action, Author: r.Author, Note: r.Note, Status: r.Status, DecidedBy: r.DecidedBy, Reason: r.Reason},
	}
}

// WebhookDrift is what a drift event reports: why, and the builtin
// versions the override was based on and has now (0 when removed).
type WebhookDrift struct {
	Reason         string `json:"reason"`
	BasedOnVersion int    `json:"basedOnVersion"`
	BuiltinVersion int    `json:"builtinVersion"`
}

// OverrideEvent is the webhook event of a committed change of an
// override, described by the audit entry e written with it (any other
// subject has none), at time at:
// publish and keep-mine are EventPublished, delete and take-builtin
// EventDeleted, restore EventRestored; ok is false for the actions that
// change nothing served and announce nothing (create, save, import,
// rebase, discard). A revision is published, deleted or restored once, so
// the key is the type and the override's revision:
// "<type>:<module>:<lower-case locale>:<revision>".
func OverrideEvent(e AuditEntry, at time.Time) (ev WebhookEvent, ok bool) {
	if e.Subject != SubjectOverride {
		return WebhookEvent{}, false
	}
	var typ string
	switch e.Action {
	case ActionPublish, ActionKeepMine:
		typ = EventPublished
	case ActionDelete, ActionTakeBuiltin:
		typ = EventDeleted
	case ActionRestore:
		typ = EventRestored
	default:
		return WebhookEvent{}, false
	}
	return WebhookEvent{
		IdempotencyKey: fmt.Sprintf("%s:%s:%s:%d", typ, e.SubjectID, strings.ToLower(e.Locale), e.Revision),
		Type:           typ, OccurredAt: at.UTC(), Module: e.SubjectID, Locale: e.Locale, Revision: e.Revision,
		Action: e.Action, Actor: e.Actor, Note: e.Note,
	}, true
}

// DriftEvent is the event of a drift d of the override of module in
// locale at revision, found at time at. Its key names the revision, the
// drift's reason and the builtin version,
// "override.drifted:<module>:<lower-case locale>:<revision>:<reason>:<builtin version>",
// so that one drift seen by many processes, or again after a restart, is
// one event.
func DriftEvent(module, locale string, revision int, d WebhookDrift, at time.Time) WebhookEvent {
	return WebhookEvent{
		IdempotencyKey: fmt.Sprintf("%s:%s:%s:%d:%s:%d", EventDrifted, module, strings.ToLower(locale), revision, d.Reason, d.BuiltinVersion),
		Type:           EventDrifted, OccurredAt: at.UTC(), Module: module, Locale: locale, Revision: revision, Drift: &d,
	}
}

// DuplicateWebhook is the error of adding an endpoint, or moving one, to
// a URL another endpoint has already: each event would be sent there
// twice (a form posted twice makes exactly that). It matches
// library.ErrConflict.
type DuplicateWebhook struct {
	URL string
	ID  int64 // the endpoint that has the URL
}

func (e *DuplicateWebhook) Error() string {
	return fmt.Sprintf("webhook %d sends to %s already: change or delete that endpoint instead of adding another", e.ID, e.URL)
}

// Is makes a DuplicateWebhook match library.ErrConflict.
func (e *DuplicateWebhook) Is(target error) bool { return target == library.ErrConflict }

// SameReceiver reports whether the webhook URLs a and b reach the same
// receiver: equal but for the case of the scheme and host and a default
// port written out (https://Example.com:443/x is https://example.com/x).
// The path and query are compared as written.
func SameReceiver(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return receiverKey(ua) == receiverKey(ub)
}

// receiverKey is u as SameReceiver compares it.
func receiverKey(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	}
	return scheme + "://" + host + u.EscapedPath() + "?" + u.RawQuery
}

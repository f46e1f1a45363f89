package domain

import "time"

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
	ID         int64
	WebhookID  int64
	URL        string
	Secret     string // only from ClaimDeliveries
	EventKey   string // the idempotency key
	EventType  string
	Body       []byte
	Status     string // DeliveryPending, DeliveryDelivered or DeliveryFailed
	Attempts   int
	LastStatus int // HTTP status of the last attempt, 0 for none
	LastError  string
	// NextAttemptAt is when a pending delivery is due (a retry, or the end
	// of the lease of the attempt in flight).
	NextAttemptAt time.Time
	CreatedAt     time.Time // of the event
	UpdatedAt     time.Time
	AttemptLog    []DeliveryAttempt // only from ListDeliveries
}

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

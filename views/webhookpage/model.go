// Package webhookpage is the admins' webhooks page: the endpoints events
// are sent to, the form adding one, a new endpoint's secret shown once,
// and the delivery log.
package webhookpage

// Endpoint is one endpoint in the list; Created is formatted.
type Endpoint struct {
	ID          int64
	URL         string
	Description string
	CreatedBy   string
	Created     string
}

// Form is the add form as submitted, with its errors next to the fields.
type Form struct {
	URL, Secret, Description                string
	URLError, SecretError, DescriptionError string
	// Problem is why the server could not add the endpoint, no field
	// being at fault (say, it has no key to encrypt secrets with).
	Problem string
}

// Created is an endpoint just added: its secret is shown on this page
// only.
type Created struct {
	URL    string
	Secret string
}

// Delivery is one line of the delivery log: the event, where it went,
// its state, how many attempts (and redeliveries), the last answer's
// status ("" for none), the last error, and the attempts (times
// formatted). A failed one has a button to send it again.
type Delivery struct {
	ID        int64
	WebhookID int64
	Event     string // the event type
	Key       string // the idempotency key
	URL       string
	Status    string // pending, delivered or failed
	Attempts  int    // every attempt, across redeliveries
	// RoundAttempts is the attempts since the latest redelivery, which the
	// attempt limit counts.
	RoundAttempts int
	Redeliveries  int  // times sent again after failing
	Failed        bool // every attempt of its round failed: it can be sent again
	LastStatus    string
	LastError     string
	Created       string // when the event was recorded
	Updated       string // when the delivery last changed
	Next          string // when a pending one is due, else ""
	AttemptLog    []Attempt
}

// Attempt is one attempt of a delivery.
type Attempt struct {
	N        int
	At       string
	Duration string
	Status   string // "" when no answer came
	Error    string
}

// Model is the webhooks page.
type Model struct {
	Endpoints  []Endpoint
	Deliveries []Delivery
	Form       Form
	Created    *Created
	// Flash reports the redelivery just asked for.
	Flash string
}

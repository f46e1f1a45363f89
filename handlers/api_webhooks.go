package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/webhook"
)

// APIWebhooks serves /api/v1/webhooks (admin scope): list, create, read,
// change and delete the endpoints events are sent to, and read an
// endpoint's delivery log. Changes are audited with the actor of the
// token. Besides the errors documented on API it answers 404 not_found
// (field id) for an unknown endpoint and 422 invalid_request naming the
// field (url, secret, description, limit).
type APIWebhooks struct {
	Service *webhook.Webhooks
}

// APIWebhook is an endpoint as the API shows it: never its secret, except
// in the answer that created it (Secret).
type APIWebhook struct {
	ID          int64     `json:"id"`
	URL         string    `json:"url"`
	Description string    `json:"description"`
	CreatedBy   string    `json:"createdBy"`
	CreatedAt   time.Time `json:"createdAt"`
	Secret      string    `json:"secret,omitempty"`
}

// APIWebhookBody is the body of POST /api/v1/webhooks and PUT
// /api/v1/webhooks/{id}: URL is required; an empty Secret generates one on
// POST and keeps the secret on PUT.
type APIWebhookBody struct {
	URL         string `json:"url"`
	Secret      string `json:"secret"`
	Description string `json:"description"`
}

// APIDelivery is one event to one endpoint with its attempts: Status
// pending, delivered or failed; Attempts every attempt made, across
// redeliveries (the attempt log's numbers go on after one);
// RoundAttempts those since the latest redelivery, which the attempt
// limit counts; Redeliveries how many times it was sent again after
// failing; LastStatus the HTTP status of the last attempt (0 for none);
// NextAttemptAt when a pending one is due (the next retry); Event the
// JSON body sent.
type APIDelivery struct {
	ID             int64               `json:"id"`
	WebhookID      int64               `json:"webhookId"`
	EventType      string              `json:"eventType"`
	IdempotencyKey string              `json:"idempotencyKey"`
	Status         string              `json:"status"`
	Attempts       int                 `json:"attempts"`
	RoundAttempts  int                 `json:"roundAttempts"`
	Redeliveries   int                 `json:"redeliveries"`
	LastStatus     int                 `json:"lastStatus"`
	LastError      string              `json:"lastError"`
	NextAttemptAt  *time.Time          `json:"nextAttemptAt,omitempty"`
	CreatedAt      time.Time           `json:"createdAt"`
	UpdatedAt      time.Time           `json:"updatedAt"`
	Event          domain.WebhookEvent `json:"event"`
	AttemptLog     []APIAttempt        `json:"attemptLog"`
}

// APIRedelivered is the answer of POST /api/v1/webhooks/{id}/redeliver:
// the ids of the deliveries sent again, oldest first (empty when none
// had failed).
type APIRedelivered struct {
	Redelivered []int64 `json:"redelivered"`
}

// APIAttempt is one attempt of a delivery: when, how long (milliseconds),
// the HTTP status (0 when no answer came) and the error ("" for 2xx).
type APIAttempt struct {
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	DurationMS int64     `json:"durationMs"`
	Status     int       `json:"status"`
	Error      string    `json:"error"`
}

// Page sizes of the delivery log.
const (
	defaultDeliveries = 50
	maxDeliveries     = 1000
)

func apiWebhook(w domain.Webhook) APIWebhook {
	return APIWebhook{ID: w.ID, URL: w.URL, Description: w.Description, CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt}
}

// apiDelivery is the APIDelivery of d. Errors: its stored body is not an
// event.
func apiDelivery(d domain.Delivery) (APIDelivery, error) {
	out := APIDelivery{ID: d.ID, WebhookID: d.WebhookID, EventType: d.EventType, IdempotencyKey: d.EventKey, Status: d.Status,
		Attempts: d.Attempts, RoundAttempts: d.Round(), Redeliveries: d.Redeliveries, LastStatus: d.LastStatus, LastError: d.LastError, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
		AttemptLog: []APIAttempt{}}
	if err := json.Unmarshal(d.Body, &out.Event); err != nil {
		return APIDelivery{}, fmt.Errorf("webhook delivery %d: its event: %w", d.ID, err)
	}
	if d.Status == domain.DeliveryPending {
		out.NextAttemptAt = &d.NextAttemptAt
	}
	for _, a := range d.AttemptLog {
		out.AttemptLog = append(out.AttemptLog, APIAttempt{Attempt: a.Attempt, At: a.At, DurationMS: a.Duration.Milliseconds(), Status: a.Status, Error: a.Error})
	}
	return out, nil
}

// webhookID reads the path's id; one that is not a positive number names
// no endpoint (404).
func webhookID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, apiNoWebhook(c.Param("id"))
	}
	return id, nil
}

func apiNoWebhook(id string) error {
	return &library.Error{Code: library.CodeNotFound, Field: "id", Msg: fmt.Sprintf("no webhook %q", id)}
}

// webhookErr turns the service's errors into the API's.
func webhookErr(id string, err error) error {
	var fe *webhook.FieldError
	var dup *domain.DuplicateWebhook
	switch {
	case errors.As(err, &fe):
		return &library.Error{Code: library.CodeInvalidRequest, Field: fe.Field, Msg: fe.Msg}
	case errors.As(err, &dup):
		return &library.Error{Code: library.CodeConflict, Field: "url", Msg: dup.Error()}
	case errors.Is(err, library.ErrNotFound):
		return apiNoWebhook(id)
	}
	return err
}

func readWebhookBody(c echo.Context) (APIWebhookBody, error) {
	var body APIWebhookBody
	data, err := readBody(c)
	if err != nil {
		return body, err
	}
	return body, decodeBody(data, &body)
}

// List handles GET /api/v1/webhooks: 200 with every APIWebhook, oldest
// first.
func (h *APIWebhooks) List(c echo.Context) error {
	list, err := h.Service.List(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]APIWebhook, len(list))
	for i, w := range list {
		out[i] = apiWebhook(w)
	}
	return WriteJSON(c, http.StatusOK, out)
}

// Create handles POST /api/v1/webhooks with an APIWebhookBody: 201 with
// the APIWebhook and its secret (shown this once), and its URL as
// Location. Errors: 422 naming the field; 400, 413, 415 for the body.
func (h *APIWebhooks) Create(c echo.Context) error {
	body, err := readWebhookBody(c)
	if err != nil {
		return err
	}
	w, err := h.Service.Create(c.Request().Context(), domain.Webhook{URL: body.URL, Secret: body.Secret, Description: body.Description})
	if err != nil {
		return webhookErr("", err)
	}
	out := apiWebhook(w)
	out.Secret = w.Secret
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/webhooks/"+strconv.FormatInt(w.ID, 10))
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return WriteJSON(c, http.StatusCreated, out)
}

// Get handles GET /api/v1/webhooks/{id}: 200 with the APIWebhook. Errors:
// 404.
func (h *APIWebhooks) Get(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	w, err := h.Service.Get(c.Request().Context(), id)
	if err != nil {
		return webhookErr(c.Param("id"), err)
	}
	return WriteJSON(c, http.StatusOK, apiWebhook(w))
}

// Put handles PUT /api/v1/webhooks/{id} with an APIWebhookBody: the URL,
// description and (when given) secret replace the endpoint's; 200 with
// the APIWebhook. Errors: 404; 422 naming the field; 400, 413, 415.
func (h *APIWebhooks) Put(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	body, err := readWebhookBody(c)
	if err != nil {
		return err
	}
	w, err := h.Service.Update(c.Request().Context(), domain.Webhook{ID: id, URL: body.URL, Secret: body.Secret, Description: body.Description})
	if err != nil {
		return webhookErr(c.Param("id"), err)
	}
	return WriteJSON(c, http.StatusOK, apiWebhook(w))
}

// Delete handles DELETE /api/v1/webhooks/{id}: 204; the endpoint's
// delivery log goes with it. Errors: 404.
func (h *APIWebhooks) Delete(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	if err := h.Service.Delete(c.Request().Context(), id); err != nil {
		return webhookErr(c.Param("id"), err)
	}
	return c.NoContent(http.StatusNoContent)
}

// Deliveries handles GET /api/v1/webhooks/{id}/deliveries?limit=: 200
// with the endpoint's newest APIDelivery entries (limit 1 to 1000,
// default 50), newest event first. Errors: 404; 422 on field limit.
func (h *APIWebhooks) Deliveries(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	limit, err := queryIntOr(c, "limit", 1, maxDeliveries, defaultDeliveries)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := h.Service.Get(ctx, id); err != nil {
		return webhookErr(c.Param("id"), err)
	}
	list, err := h.Service.Deliveries(ctx, id, int(limit))
	if err != nil {
		return err
	}
	out := make([]APIDelivery, len(list))
	for i, d := range list {
		if out[i], err = apiDelivery(d); err != nil {
			return err
		}
	}
	return WriteJSON(c, http.StatusOK, out)
}

// Redeliver handles POST /api/v1/webhooks/{id}/deliveries/{delivery}/redeliver:
// the failed delivery is sent again, with its event and idempotency key,
// as a new round of attempts; 200 with the APIDelivery, pending and due
// now. Errors: 404 (field id for the endpoint, delivery for the
// delivery); 409 conflict (field delivery) when it is pending or
// delivered, not failed.
func (h *APIWebhooks) Redeliver(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	did, err := strconv.ParseInt(c.Param("delivery"), 10, 64)
	if err != nil || did < 1 {
		return apiNoDelivery(c.Param("delivery"))
	}
	ctx := c.Request().Context()
	if _, err := h.Service.Get(ctx, id); err != nil {
		return webhookErr(c.Param("id"), err)
	}
	_, err = h.Service.Redeliver(ctx, id, did)
	switch {
	case errors.Is(err, library.ErrNotFound):
		return apiNoDelivery(c.Param("delivery"))
	case errors.Is(err, library.ErrConflict):
		return &library.Error{Code: library.CodeConflict, Field: "delivery", Msg: library.KindText(err)}
	case err != nil:
		return err
	}
	d, err := h.Service.Delivery(ctx, id, did)
	if err != nil {
		return err
	}
	out, err := apiDelivery(d)
	if err != nil {
		return err
	}
	return WriteJSON(c, http.StatusOK, out)
}

// RedeliverFailed handles POST /api/v1/webhooks/{id}/redeliver: every
// failed delivery of the endpoint is sent again as Redeliver does; 200
// with APIRedelivered. Errors: 404.
func (h *APIWebhooks) RedeliverFailed(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	ids, err := h.Service.Redeliver(c.Request().Context(), id, 0)
	if err != nil {
		return webhookErr(c.Param("id"), err)
	}
	return WriteJSON(c, http.StatusOK, APIRedelivered{Redelivered: append([]int64{}, ids...)})
}

func apiNoDelivery(id string) error {
	return &library.Error{Code: library.CodeNotFound, Field: "delivery", Msg: fmt.Sprintf("no delivery %q of this webhook", id)}
}

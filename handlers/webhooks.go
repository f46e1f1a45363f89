package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/views/webhookpage"
	"github.com/promptdesk/promptdesk/webhook"
)

// Webhooks is the admins' webhooks page: the endpoints (add, with the
// secret shown once; delete; send their failed deliveries again) and the
// delivery log of the newest deliveries with their attempts, next retry
// and redeliveries (a failed one can be sent again).
type Webhooks struct {
	Service *webhook.Webhooks
}

// deliveriesShown is how many deliveries the page lists.
const deliveriesShown = 100

// List handles GET /webhooks.
func (h *Webhooks) List(c echo.Context) error {
	return h.render(c, http.StatusOK, webhookpage.Model{Flash: flashFor(c)})
}

func (h *Webhooks) render(c echo.Context, status int, m webhookpage.Model) error {
	ctx := c.Request().Context()
	list, err := h.Service.List(ctx)
	if err != nil {
		return err
	}
	for _, w := range list {
		m.Endpoints = append(m.Endpoints, webhookpage.Endpoint{ID: w.ID, URL: w.URL, Description: w.Description,
			CreatedBy: w.CreatedBy, Created: w.CreatedAt.UTC().Format(tokenTime)})
	}
	deliveries, err := h.Service.Deliveries(ctx, 0, deliveriesShown)
	if err != nil {
		return err
	}
	const at = "2006-01-02 15:04:05"
	for _, d := range deliveries {
		row := webhookpage.Delivery{ID: d.ID, WebhookID: d.WebhookID, Event: d.EventType, Key: d.EventKey, URL: d.URL, Status: d.Status,
			Attempts: d.Attempts, RoundAttempts: d.Round(), Redeliveries: d.Redeliveries, Failed: d.Status == domain.DeliveryFailed, LastStatus: statusText(d.LastStatus), LastError: d.LastError,
			Created: d.CreatedAt.UTC().Format(at), Updated: d.UpdatedAt.UTC().Format(at)}
		if d.Status == domain.DeliveryPending {
			row.Next = d.NextAttemptAt.UTC().Format(at)
		}
		for _, a := range d.AttemptLog {
			row.AttemptLog = append(row.AttemptLog, webhookpage.Attempt{N: a.Attempt, At: a.At.UTC().Format(at),
				Duration: a.Duration.String(), Status: statusText(a.Status), Error: a.Error})
		}
		m.Deliveries = append(m.Deliveries, row)
	}
	return Render(c, status, webhookpage.Page(m))
}

// statusText is an HTTP status as the log shows it, "" for none.
func statusText(status int) string {
	if status == 0 {
		return ""
	}
	return strconv.Itoa(status)
}

// Create handles POST /webhooks (url, secret, description): the page then
// shows the secret, once. A refused field answers 422 with the form kept
// and the error next to the field, a URL another endpoint has 409 (a form
// posted twice adds one endpoint); a server without the key to encrypt
// secrets with answers 503 with the form kept and the reason.
func (h *Webhooks) Create(c echo.Context) error {
	f := webhookpage.Form{URL: strings.TrimSpace(c.FormValue("url")), Secret: c.FormValue("secret"), Description: c.FormValue("description")}
	w, err := h.Service.Create(c.Request().Context(), domain.Webhook{URL: f.URL, Secret: f.Secret, Description: f.Description})
	var fe *webhook.FieldError
	var dup *domain.DuplicateWebhook
	switch {
	case errors.As(err, &fe):
		switch fe.Field {
		case "secret":
			f.SecretError = fe.Msg
		case "description":
			f.DescriptionError = fe.Msg
		default:
			f.URLError = fe.Msg
		}
		return h.render(c, http.StatusUnprocessableEntity, webhookpage.Model{Form: f})
	case errors.As(err, &dup):
		f.URLError = dup.Error()
		return h.render(c, http.StatusConflict, webhookpage.Model{Form: f})
	case errors.Is(err, domain.ErrNotConfigured):
		f.Problem = err.Error()
		return h.render(c, http.StatusServiceUnavailable, webhookpage.Model{Form: f})
	case err != nil:
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return h.render(c, http.StatusOK, webhookpage.Model{Created: &webhookpage.Created{URL: w.URL, Secret: w.Secret}})
}

// Delete handles POST /webhooks/:id/delete: the endpoint and its
// deliveries are gone. Errors: 404 for an unknown endpoint.
func (h *Webhooks) Delete(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return fmt.Errorf("webhook %q does not exist: %w", c.Param("id"), library.ErrNotFound)
	}
	if err := h.Service.Delete(c.Request().Context(), id); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/webhooks")
}

// Redeliver handles POST /webhooks/:id/deliveries/:delivery/redeliver:
// the failed delivery is sent again (a new round of attempts, the same
// event and idempotency key) and the page says so. Errors: 404 for an
// unknown endpoint or delivery, 409 for one that is not failed.
func (h *Webhooks) Redeliver(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return fmt.Errorf("webhook %q does not exist: %w", c.Param("id"), library.ErrNotFound)
	}
	did, err := strconv.ParseInt(c.Param("delivery"), 10, 64)
	if err != nil {
		return fmt.Errorf("webhook delivery %q does not exist: %w", c.Param("delivery"), library.ErrNotFound)
	}
	if _, err := h.Service.Redeliver(c.Request().Context(), id, did); err != nil {
		return err
	}
	setFlash(c, fmt.Sprintf("Delivery %d is being sent again.", did))
	return seeOther(c, "/webhooks")
}

// RedeliverFailed handles POST /webhooks/:id/redeliver: every failed
// delivery of the endpoint is sent again, and the page says how many.
// Errors: 404 for an unknown endpoint.
func (h *Webhooks) RedeliverFailed(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return fmt.Errorf("webhook %q does not exist: %w", c.Param("id"), library.ErrNotFound)
	}
	ids, err := h.Service.Redeliver(c.Request().Context(), id, 0)
	if err != nil {
		return err
	}
	switch len(ids) {
	case 0:
		setFlash(c, "No delivery to that endpoint had failed; nothing was sent again.")
	case 1:
		setFlash(c, "1 failed delivery is being sent again.")
	default:
		setFlash(c, fmt.Sprintf("%d failed deliveries are being sent again.", len(ids)))
	}
	return seeOther(c, "/webhooks")
}

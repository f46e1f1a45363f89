package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
)

// Pinger is what the readiness check needs from the store.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Health serves the liveness and readiness probes (S11).
type Health struct {
	DB Pinger
}

// Live handles GET /healthz: 200 "ok" while the process serves.
func (h *Health) Live(c echo.Context) error {
	return c.String(http.StatusOK, "ok")
}

// Ready handles GET /readyz: 200 "ready" when the database answers, else
// 503 with the reason.
func (h *Health) Ready(c echo.Context) error {
	if err := h.DB.Ping(c.Request().Context()); err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "database unavailable").SetInternal(err)
	}
	return c.String(http.StatusOK, "ready")
}

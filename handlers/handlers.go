// Package handlers holds the console's HTTP handlers, one file per
// resource. Each handler type declares the narrow store interface it
// needs, and every action goes bind → validate → call → view model →
// render. Assembly reads the served state in memory, never the database.
package handlers

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// Render writes component as an HTML response with status. It renders to
// a buffer first, so that a failing render becomes an error (and a 500
// page) instead of a half-written 200.
func Render(c echo.Context, status int, component templ.Component) error {
	var buf bytes.Buffer
	if err := component.Render(c.Request().Context(), &buf); err != nil {
		return fmt.Errorf("render %s: %w", c.Path(), err)
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// isPartial reports whether the request came from htmx and wants only the
// fragment it swaps in (not a history restore, which needs the page).
func isPartial(c echo.Context) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-History-Restore-Request") != "true"
}

// WantsJSON reports whether a console request asks for a JSON answer
// (its Accept header names application/json), as the override editor's
// live check does: its refusals, a missing session included, are then
// JSON errors with their status rather than pages or redirects.
func WantsJSON(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get(echo.HeaderAccept), echo.MIMEApplicationJSON)
}

// formRevision reads a revision form field: a whole number up to
// domain.MaxRevision; empty is 0. Errors: library.ErrInvalid.
func formRevision(c echo.Context, name string) (int, error) {
	v := strings.TrimSpace(c.FormValue(name))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n > domain.MaxRevision {
		return 0, fmt.Errorf("%s must be a revision, a whole number up to %d, got %q: %w", name, domain.MaxRevision, v, library.ErrInvalid)
	}
	return n, nil
}

// seeOther redirects after a successful POST (post/redirect/get).
func seeOther(c echo.Context, url string) error {
	return c.Redirect(http.StatusSeeOther, url)
}

package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/views/errorpage"
)

// apiError is the JSON body of a failed /api/ request (S11).
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// classify maps an error to a status, a stable code and a message safe to
// show: library.ErrNotFound → 404, ErrInvalid → 422, ErrConflict → 409,
// an *echo.HTTPError as it is, anything else 500 with a generic message.
func classify(err error) (status int, code, msg string) {
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok {
			msg = m
		}
		return he.Code, strings.ReplaceAll(strings.ToLower(http.StatusText(he.Code)), " ", "_"), msg
	case errors.Is(err, library.ErrNotFound):
		return http.StatusNotFound, "not_found", err.Error()
	case errors.Is(err, library.ErrInvalid):
		return http.StatusUnprocessableEntity, "invalid", err.Error()
	case errors.Is(err, library.ErrConflict):
		return http.StatusConflict, "conflict", err.Error()
	}
	return http.StatusInternalServerError, "internal", "Something went wrong on the server; the details are in its log."
}

// handleError is the server's one HTTPErrorHandler: it logs server
// errors and writes an HTML error page, or JSON under /api/.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, code, msg := classify(err)
	if status >= http.StatusInternalServerError {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "err", err)
	}
	var werr error
	switch {
	case c.Request().Method == http.MethodHead:
		werr = c.NoContent(status)
	case strings.HasPrefix(c.Request().URL.Path, "/api/"):
		werr = c.JSON(status, apiError{Code: code, Message: msg})
	default:
		m := errorpage.Model{Status: status, Title: http.StatusText(status), Message: msg}
		if werr = handlers.Render(c, status, errorpage.Page(m)); werr != nil {
			werr = c.String(status, fmt.Sprintf("%d %s: %s", status, m.Title, msg))
		}
	}
	if werr != nil {
		s.log.Error("writing the error response failed", "path", c.Request().URL.Path, "err", werr)
	}
}

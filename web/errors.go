package web

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/errorpage"
)

// apiErrorBody is the JSON body of a failed /api/ request:
// {"error":{"code","message","field"}}; field is "" when no request field
// is at fault.
type apiErrorBody struct {
	Error apiError `json:"error"`
}

// apiError is the error object of apiErrorBody.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// classifyAPI maps an error of the runtime API to a status and its JSON
// error (documented on handlers.API): a *handlers.APIError as it is; an
// *assembler.Error by code — not_found 404, limit_exceeded 413 for the
// body size (no field) and 422 for a count limit, every other code 422;
// an *echo.HTTPError by status (404 not_found, 405 method_not_allowed…);
// anything else as classify does, ErrInvalid becoming invalid_request.
func classifyAPI(err error, c echo.Context) (int, apiError) {
	var ae *handlers.APIError
	var asm *assembler.Error
	var he *echo.HTTPError
	switch {
	case errors.As(err, &ae):
		return ae.Status, apiError{Code: ae.Code, Message: ae.Message, Field: ae.Field}
	case errors.As(err, &asm):
		status := http.StatusUnprocessableEntity
		switch {
		case asm.Code == assembler.CodeNotFound:
			status = http.StatusNotFound
		case asm.Code == assembler.CodeInvalidJSON:
			status = http.StatusBadRequest
		case asm.Code == assembler.CodeLimitExceeded && asm.Field == "":
			status = http.StatusRequestEntityTooLarge
		}
		field := asm.Field
		if field == "" && asm.Placeholder != "" && (asm.Code == assembler.CodeMissingVariable || asm.Code == assembler.CodeExtraVariable) {
			field = "variables." + asm.Placeholder
		}
		return status, apiError{Code: asm.Code, Message: strings.TrimPrefix(asm.Error(), asm.Code+": "), Field: field}
	case errors.As(err, &he) && he.Code == http.StatusNotFound && he.Internal == nil && he.Message == http.StatusText(http.StatusNotFound):
		return he.Code, apiError{Code: "not_found", Message: fmt.Sprintf("no API route %s %s", c.Request().Method, c.Request().URL.Path)}
	case errors.As(err, &he) && he.Code == http.StatusMethodNotAllowed:
		return he.Code, apiError{Code: "method_not_allowed", Message: fmt.Sprintf("%s is not allowed on %s; allowed: %s",
			c.Request().Method, c.Request().URL.Path, c.Response().Header().Get(echo.HeaderAllow))}
	}
	status, code, msg := classify(err)
	if code == "invalid" {
		code = assembler.CodeInvalidRequest
	}
	return status, apiError{Code: code, Message: msg}
}

// CodeDatabaseUnavailable is the API error code, with status 503, of a
// request that needs the database while it cannot be reached.
const CodeDatabaseUnavailable = "database_unavailable"

// unavailableMessage is the message of CodeDatabaseUnavailable.
const unavailableMessage = "The database is unreachable, so this could not be done and nothing was saved; try again in a moment. Assembly keeps serving the last state read."

// classify maps an error to a status, a stable code and a message safe to
// show: an unreachable database (store.IsUnavailable) → 503
// database_unavailable, library.ErrNotFound → 404, ErrInvalid → 422,
// ErrConflict → 409, an *echo.HTTPError as it is, anything else 500 with
// a generic message.
func classify(err error) (status int, code, msg string) {
	var he *echo.HTTPError
	switch {
	case store.IsUnavailable(err):
		return http.StatusServiceUnavailable, CodeDatabaseUnavailable, unavailableMessage
	case errors.As(err, &he):
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok {
			msg = m
		}
		return he.Code, strings.ReplaceAll(strings.ToLower(http.StatusText(he.Code)), " ", "_"), msg
	case errors.Is(err, library.ErrNotFound):
		return http.StatusNotFound, "not_found", message(err, library.ErrNotFound)
	case errors.Is(err, library.ErrInvalid):
		return http.StatusUnprocessableEntity, "invalid", message(err, library.ErrInvalid)
	case errors.Is(err, library.ErrConflict):
		return http.StatusConflict, "conflict", message(err, library.ErrConflict)
	case errors.Is(err, library.ErrForbidden):
		return http.StatusForbidden, "forbidden", message(err, library.ErrForbidden)
	}
	return http.StatusInternalServerError, "internal", "Something went wrong on the server; the details are in its log."
}

// message is err's text without the trailing ": <sentinel>" that wrapping
// adds: the status and code already say it.
func message(err, sentinel error) string {
	return strings.TrimSuffix(err.Error(), ": "+sentinel.Error())
}

// handleError is the server's one HTTPErrorHandler: it logs server
// errors and writes an HTML error page, or under /api/ the JSON error of
// classifyAPI, HTML escaping off like every API response; a console
// request asking for JSON (handlers.WantsJSON) gets classify's code and
// message in the same JSON shape.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, code, msg := classify(err)
	api := isAPI(c)
	var body apiErrorBody
	switch {
	case api:
		status, body.Error = classifyAPI(err, c)
	case handlers.WantsJSON(c):
		api, body.Error = true, apiError{Code: code, Message: msg}
	}
	if code == CodeDatabaseUnavailable {
		s.served.Unreachable(err)
		s.log.Warn("request failed: database unreachable", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	} else if status >= http.StatusInternalServerError {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "err", err)
	}
	var werr error
	switch {
	case api:
		werr = handlers.WriteJSON(c, status, body)
	default:
		m := errorpage.Model{Status: status, Title: http.StatusText(status), Message: msg}
		if code == CodeDatabaseUnavailable {
			m.Title, m.Retry = "Database unreachable", retryOf(c)
		}
		if werr = handlers.Render(c, status, errorpage.Page(m)); werr != nil {
			werr = c.String(status, fmt.Sprintf("%d %s: %s", status, m.Title, msg))
		}
	}
	if werr != nil {
		s.log.Error("writing the error response failed", "path", c.Request().URL.Path, "err", werr)
	}
}

// retryOf is the request of c to send again from the error page: a GET
// as a link, a POST as a form with every field it had, the text fields
// shown and the CSRF token and revision hidden, passwords left out (never
// written into a page); nil for other methods or a multipart form.
func retryOf(c echo.Context) *errorpage.Retry {
	r := c.Request()
	switch r.Method {
	case http.MethodGet:
		return &errorpage.Retry{Method: http.MethodGet, URL: r.URL.RequestURI()}
	case http.MethodPost:
	default:
		return nil
	}
	if strings.HasPrefix(r.Header.Get(echo.HeaderContentType), echo.MIMEMultipartForm) {
		return nil
	}
	form, err := c.FormParams()
	if err != nil {
		return nil
	}
	retry := &errorpage.Retry{Method: http.MethodPost, URL: r.URL.RequestURI()}
	names := slices.Sorted(maps.Keys(form))
	for _, name := range names {
		if strings.Contains(name, "password") {
			continue
		}
		for _, v := range form[name] {
			f := errorpage.Field{Name: name, Value: v}
			if name == components.CSRFField || name == "revision" {
				retry.Hidden = append(retry.Hidden, f)
			} else {
				retry.Typed = append(retry.Typed, f)
			}
		}
	}
	return retry
}

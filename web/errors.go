package web

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
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

// kinds is the one table from an error's kind to its HTTP status, and
// to the code of an error of that kind that carries none of its own
// (one not a *library.Error). The first kind err matches wins: an
// unreachable database before anything else it may wrap.
var kinds = []struct {
	kind   error
	status int
	code   string
}{
	{domain.ErrResources, http.StatusServiceUnavailable, CodeDatabaseResources},
	{domain.ErrUnavailable, http.StatusServiceUnavailable, CodeDatabaseUnavailable},
	{domain.ErrNotConfigured, http.StatusServiceUnavailable, CodeNotConfigured},
	{library.ErrNotFound, http.StatusNotFound, library.CodeNotFound},
	{library.ErrUnreadable, http.StatusBadRequest, library.CodeInvalidRequest},
	{library.ErrUnauthorized, http.StatusUnauthorized, library.CodeUnauthorized},
	{library.ErrForbidden, http.StatusForbidden, library.CodeForbidden},
	{library.ErrConflict, http.StatusConflict, library.CodeConflict},
	{library.ErrStale, http.StatusPreconditionFailed, library.CodePreconditionFailed},
	{library.ErrTooLarge, http.StatusRequestEntityTooLarge, library.CodeLimitExceeded},
	{library.ErrUnsupported, http.StatusUnsupportedMediaType, library.CodeUnsupportedMediaType},
	{library.ErrInvalid, http.StatusUnprocessableEntity, library.CodeInvalidRequest},
	{library.ErrUnconditional, http.StatusPreconditionRequired, library.CodePreconditionRequired},
}

// CodeDatabaseUnavailable is the error code, with status 503, of a
// request that needs the database while it cannot be reached.
const CodeDatabaseUnavailable = "database_unavailable"

// CodeNotConfigured is the error code, with status 503, of a request
// the server cannot do as it was started (domain.ErrNotConfigured): the
// message names the setting it needs.
const CodeNotConfigured = "not_configured"

// CodeDatabaseResources is the error code, with status 503, of a request
// the database refused for want of resources (a full disk, no memory, too
// many connections): it answers, but cannot do the work.
const CodeDatabaseResources = "database_out_of_resources"

// resourcesMessage is the message of CodeDatabaseResources, given the
// cause in words and its SQLSTATE.
const resourcesMessage = "The database is out of resources (%s, SQLSTATE %s), so this could not be done and nothing was saved; it works again once an operator frees them. Assembly keeps serving the last state read."

// unavailableMessage is the message of CodeDatabaseUnavailable for a
// request that changes something; unavailableReadMessage for a GET or
// HEAD, which had nothing to save.
const (
	unavailableMessage     = "The database is unreachable, so this could not be done and nothing was saved; try again in a moment. Assembly keeps serving the last state read."
	unavailableReadMessage = "The database is unreachable, so this could not be read; try again in a moment. Assembly keeps serving the last state read."
)

// internalMessage is the message of a 500: the error itself goes to the
// log, never to the client.
const internalMessage = "Something went wrong on the server; the details are in its log."

// describe maps err to its status and the error a client is shown, for
// pages, fragments and JSON alike: a database out of resources
// (domain.ResourceError, SQLSTATE class 53) is 503
// database_out_of_resources naming the cause; an unreachable database
// (store.IsUnavailable) is 503 database_unavailable; a *library.Error
// has the status of its kind and its own code, field and message (the
// field of a missing or extra variable is "variables.<name>"); an
// *echo.HTTPError of the router or of Echo itself keeps its status (an
// unknown API route and a method not allowed are said in words); an
// error of a kind (errors.Is) gets the kind's status and code, its text
// as the message; anything else is 500 internal.
func describe(err error, c echo.Context) (int, apiError) {
	var le *library.Error
	var he *echo.HTTPError
	var re *domain.ResourceError
	switch {
	case errors.As(err, &re):
		return http.StatusServiceUnavailable, apiError{Code: CodeDatabaseResources, Message: fmt.Sprintf(resourcesMessage, re.Cause, re.Code)}
	case store.IsUnavailable(err):
		msg := unavailableMessage
		if m := c.Request().Method; m == http.MethodGet || m == http.MethodHead {
			msg = unavailableReadMessage
		}
		return http.StatusServiceUnavailable, apiError{Code: CodeDatabaseUnavailable, Message: msg}
	case errors.As(err, &le):
		field := le.Field
		if field == "" && le.Placeholder != "" && (le.Code == library.CodeMissingVariable || le.Code == library.CodeExtraVariable) {
			field = "variables." + le.Placeholder
		}
		status, _ := kindOf(le)
		return status, apiError{Code: le.Code, Message: le.Message(), Field: field}
	case errors.As(err, &he):
		return httpError(he, c)
	}
	for _, k := range kinds {
		if errors.Is(err, k.kind) {
			return k.status, apiError{Code: k.code, Message: library.KindText(err)}
		}
	}
	return http.StatusInternalServerError, apiError{Code: "internal", Message: internalMessage}
}

// kindOf returns the status and default code of e's kind.
func kindOf(e *library.Error) (int, string) {
	kind := e.KindOf()
	for _, k := range kinds {
		if k.kind == kind {
			return k.status, k.code
		}
	}
	return http.StatusInternalServerError, "internal"
}

// withHead adds HEAD to a 405's Allow header that has GET: every GET
// route answers HEAD too (headAsGet), though the router lists only the
// methods it has routes for. Under /api/ it drops OPTIONS, which the
// router lists but apiOptions refuses.
func withHead(h http.Header, api bool) {
	allow := h.Get(echo.HeaderAllow)
	if allow == "" {
		return
	}
	methods := strings.Split(allow, ", ")
	if api {
		methods = slices.DeleteFunc(methods, func(m string) bool { return m == http.MethodOptions })
	}
	if slices.Contains(methods, http.MethodGet) && !slices.Contains(methods, http.MethodHead) {
		methods = append(methods, http.MethodHead)
	}
	h.Set(echo.HeaderAllow, strings.Join(methods, ", "))
}

// apiOptions answers OPTIONS under /api/ like any method a path does not
// list: 405 with Allow. The router would answer 204 by itself; the API
// serves no cross-origin browser calls, so there is no preflight to
// answer, and the document describes every answer.
func apiOptions() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Request().Method != http.MethodOptions || !isAPI(c) {
				return next(c)
			}
			if allow, ok := c.Get(echo.ContextKeyHeaderAllow).(string); ok && allow != "" {
				c.Response().Header().Set(echo.HeaderAllow, allow)
				return echo.ErrMethodNotAllowed
			}
			return next(c)
		}
	}
}

// httpError describes an *echo.HTTPError: the router's 404 of an unknown
// API route and its 405 in words, any other by its status, the code
// being the status text in snake case.
func httpError(he *echo.HTTPError, c echo.Context) (int, apiError) {
	r := c.Request()
	switch {
	case isAPI(c) && he.Code == http.StatusNotFound && he.Internal == nil && he.Message == http.StatusText(http.StatusNotFound):
		return he.Code, apiError{Code: library.CodeNotFound, Message: fmt.Sprintf("no API route %s %s", r.Method, r.URL.Path)}
	case isAPI(c) && he.Code == http.StatusMethodNotAllowed:
		return he.Code, apiError{Code: "method_not_allowed", Message: fmt.Sprintf("%s is not allowed on %s; allowed: %s",
			r.Method, r.URL.Path, c.Response().Header().Get(echo.HeaderAllow))}
	}
	msg := http.StatusText(he.Code)
	if m, ok := he.Message.(string); ok {
		msg = m
	}
	return he.Code, apiError{Code: strings.ReplaceAll(strings.ToLower(http.StatusText(he.Code)), " ", "_"), Message: msg}
}

// handleError is the server's one HTTPErrorHandler: it logs server
// errors and writes what describe says of err as an HTML error page, or
// under /api/ and for a console request asking for JSON
// (handlers.WantsJSON) as the JSON error, HTML escaping off like every
// API response.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	// The page is written even when the request's deadline has passed
	// or its client has gone: that is often why it failed.
	c.SetRequest(c.Request().WithContext(context.WithoutCancel(c.Request().Context())))
	withHead(c.Response().Header(), isAPI(c))
	status, body := describe(err, c)
	api := isAPI(c) || isMCP(c) || handlers.WantsJSON(c)
	if body.Code == CodeDatabaseUnavailable {
		s.served.Unreachable(err)
		s.log.Warn("request failed: database unreachable", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	} else if status >= http.StatusInternalServerError {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "err", err)
	}
	var werr error
	switch {
	case api:
		werr = handlers.WriteJSON(c, status, apiErrorBody{Error: body})
	default:
		m := errorpage.Model{Status: status, Title: http.StatusText(status), Message: body.Message}
		switch body.Code {
		case CodeDatabaseUnavailable:
			m.Title, m.Retry = "Database unreachable", retryOf(c)
		case CodeDatabaseResources:
			m.Title, m.Retry = "Database out of resources", retryOf(c)
		}
		if werr = handlers.Render(c, status, errorpage.Page(m)); werr != nil {
			werr = c.String(status, fmt.Sprintf("%d %s: %s", status, m.Title, body.Message))
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

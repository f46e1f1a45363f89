package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// TestDescribe is the table of every error code with its one status, as
// the API and the console answer it, and of errors that carry no code.
func TestDescribe(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err    error
		path   string // default /api/v1/x
		method string // default GET
		status int
		want   apiError
	}{
		// Every code once, with its status.
		{err: &library.Error{Code: library.CodeNotFound, Field: "profile", Msg: "gone"}, status: 404, want: apiError{"not_found", "field profile: gone", "profile"}},
		{err: &library.Error{Code: library.CodeInvalidRequest, Field: "locale", Msg: "bad"}, status: 422, want: apiError{"invalid_request", "field locale: bad", "locale"}},
		{err: &library.Error{Code: library.CodeInvalidJSON, Field: "request", Msg: "not JSON"}, status: 422, want: apiError{"invalid_json", "field request: not JSON", "request"}},
		{err: &library.Error{Code: library.CodeLimitExceeded, Field: "skills", Msg: "201 skills; the limit is 200"}, status: 422, want: apiError{"limit_exceeded", "field skills: 201 skills; the limit is 200", "skills"}},
		{err: &library.Error{Code: library.CodeLimitExceeded, Module: "base.x", Msg: "over 8 MiB"}, status: 422, want: apiError{"limit_exceeded", "module base.x: over 8 MiB", ""}},
		{err: &library.Error{Code: library.CodeMissingVariable, Module: "aux.polish", Placeholder: "text", Msg: "x"}, status: 422,
			want: apiError{"missing_variable", "module aux.polish: placeholder {{text}}: x", "variables.text"}},
		{err: &library.Error{Code: library.CodeExtraVariable, Placeholder: "y", Field: "variables.y"}, status: 422, want: apiError{"extra_variable", "placeholder {{y}}: field variables.y", "variables.y"}},
		{err: &library.Error{Code: library.CodeUnknownPlaceholder, Module: "m", Placeholder: "p"}, status: 422, want: apiError{"unknown_placeholder", "module m: placeholder {{p}}", ""}},
		{err: &library.Error{Code: library.CodeIncludeCycle, Module: "a", Path: []string{"a", "b", "a"}}, status: 422, want: apiError{"include_cycle", "module a: a → b → a", ""}},
		{err: &library.Error{Code: library.CodeIncludeTooDeep, Module: "a", Path: []string{"a", "b"}}, status: 422, want: apiError{"include_too_deep", "module a: a → b", ""}},
		{err: &library.Error{Code: library.CodeConflict, Field: "id", Msg: "taken"}, status: 409, want: apiError{"conflict", "field id: taken", "id"}},
		{err: &library.Error{Code: library.CodeForbidden, Field: "Authorization", Msg: "scope"}, status: 403, want: apiError{"forbidden", "field Authorization: scope", "Authorization"}},
		{err: &library.Error{Code: library.CodeUnauthorized, Field: "Authorization", Msg: "no token"}, status: 401, want: apiError{"unauthorized", "field Authorization: no token", "Authorization"}},
		{err: &library.Error{Code: library.CodeUnsupportedMediaType, Field: "Content-Type", Msg: "m"}, status: 415, want: apiError{"unsupported_media_type", "field Content-Type: m", "Content-Type"}},
		{err: &library.Error{Code: library.CodePreconditionFailed, Field: "If-Match", Msg: "moved"}, status: 412, want: apiError{"precondition_failed", "field If-Match: moved", "If-Match"}},
		{err: &library.Error{Code: library.CodePreconditionRequired, Field: "If-Match", Msg: "send it"}, status: 428, want: apiError{"precondition_required", "field If-Match: send it", "If-Match"}},
		{err: echo.ErrMethodNotAllowed, status: 405, want: apiError{"method_not_allowed", "GET is not allowed on /api/v1/x; allowed: ", ""}},
		{err: errors.New("disk on fire"), status: 500, want: apiError{"internal", internalMessage, ""}},
		{err: fmt.Errorf("list: %w", &pgconn.ConnectError{}), status: 503, want: apiError{CodeDatabaseUnavailable, unavailableReadMessage, ""}},
		{err: fmt.Errorf("save: %w", domain.ErrUnavailable), method: http.MethodPut, status: 503, want: apiError{CodeDatabaseUnavailable, unavailableMessage, ""}},

		{err: &library.Error{Code: library.CodeInvalidRequest, Field: "name", Msg: "name: required"}, status: 422, want: apiError{"invalid_request", "name: required", "name"}},
		// A code whose status depends on its kind: an HTTP request that
		// could not be read, or is over a limit of the transport.
		{err: &library.Error{Kind: library.ErrUnreadable, Code: library.CodeInvalidJSON, Msg: "the body is not valid JSON"}, status: 400, want: apiError{"invalid_json", "the body is not valid JSON", ""}},
		{err: &library.Error{Kind: library.ErrUnreadable, Code: library.CodeInvalidRequest, Field: "x", Msg: "twice"}, status: 400, want: apiError{"invalid_request", "field x: twice", "x"}},
		{err: &library.Error{Kind: library.ErrTooLarge, Code: library.CodeLimitExceeded, Msg: "body"}, status: 413, want: apiError{"limit_exceeded", "body", ""}},

		// Errors of a kind, with no code of their own.
		{err: fmt.Errorf("wrapped: %w", &library.Error{Code: library.CodeNotFound, Field: "profile", Msg: "gone"}), status: 404, want: apiError{"not_found", "field profile: gone", "profile"}},
		{err: fmt.Errorf("profile p does not exist: %w", library.ErrNotFound), status: 404, want: apiError{"not_found", "profile p does not exist", ""}},
		{err: fmt.Errorf("x: %w", library.ErrInvalid), status: 422, want: apiError{"invalid_request", "x", ""}},
		{err: &library.FileError{File: "f", Line: 3, Msg: "bad"}, status: 422, want: apiError{"invalid_request", "f:3: bad", ""}},
		{err: fmt.Errorf("x: %w", library.ErrConflict), status: 409, want: apiError{"conflict", "x", ""}},
		{err: fmt.Errorf("only admins: %w", library.ErrForbidden), status: 403, want: apiError{"forbidden", "only admins", ""}},
		{err: echo.ErrNotFound, status: 404, want: apiError{"not_found", "no API route GET /api/v1/x", ""}},
		{err: echo.ErrNotFound, path: "/nothing", status: 404, want: apiError{"not_found", "Not Found", ""}},
	} {
		path := c.path
		if path == "" {
			path = "/api/v1/x"
		}
		method := c.method
		if method == "" {
			method = http.MethodGet
		}
		ctx := echo.New().NewContext(httptest.NewRequest(method, path, nil), httptest.NewRecorder())
		status, got := describe(c.err, ctx)
		if status != c.status || got != c.want {
			t.Errorf("describe(%v) = %d %+v, want %d %+v", c.err, status, got, c.status, c.want)
		}
	}
}

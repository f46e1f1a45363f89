package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
)

func TestClassifyAPI(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err    error
		status int
		want   apiError
	}{
		{&handlers.APIError{Status: 415, Code: "unsupported_media_type", Field: "Content-Type", Message: "m"}, 415, apiError{"unsupported_media_type", "m", "Content-Type"}},
		{&assembler.Error{Code: assembler.CodeMissingVariable, Module: "aux.polish", Placeholder: "text", Msg: "x"}, 422,
			apiError{"missing_variable", "module aux.polish: placeholder {{text}}: x", "variables.text"}},
		{&assembler.Error{Code: assembler.CodeExtraVariable, Placeholder: "y", Field: "variables.y"}, 422, apiError{"extra_variable", "placeholder {{y}}: field variables.y", "variables.y"}},
		{&assembler.Error{Code: assembler.CodeIncludeCycle, Module: "a", Path: []string{"a", "b", "a"}}, 422, apiError{"include_cycle", "module a: a → b → a", ""}},
		{fmt.Errorf("wrapped: %w", &assembler.Error{Code: assembler.CodeNotFound, Field: "profile", Msg: "gone"}), 404, apiError{"not_found", "field profile: gone", "profile"}},
		{&assembler.Error{Code: assembler.CodeLimitExceeded, Msg: "body"}, 413, apiError{"limit_exceeded", "body", ""}},
		{&assembler.Error{Code: assembler.CodeLimitExceeded, Field: "skills", Msg: "201 skills; the limit is 200"}, 422, apiError{"limit_exceeded", "field skills: 201 skills; the limit is 200", "skills"}},
		{echo.ErrNotFound, 404, apiError{"not_found", "no API route GET /api/v1/x", ""}},
		{fmt.Errorf("x: %w", library.ErrInvalid), 422, apiError{"invalid_request", "x", ""}},
		{fmt.Errorf("x: %w", library.ErrConflict), 409, apiError{"conflict", "x", ""}},
		{fmt.Errorf("profile p does not exist: %w", library.ErrNotFound), 404, apiError{"not_found", "profile p does not exist", ""}},
		{errors.New("disk on fire"), 500, apiError{"internal", "Something went wrong on the server; the details are in its log.", ""}},
	} {
		c2 := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/api/v1/x", nil), httptest.NewRecorder())
		status, got := classifyAPI(c.err, c2)
		if status != c.status || got != c.want {
			t.Errorf("classifyAPI(%v) = %d %+v, want %d %+v", c.err, status, got, c.status, c.want)
		}
	}
}

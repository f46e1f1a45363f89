package handlers

import (
	"bytes"
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDoc is the OpenAPI 3.1 document of the runtime API, written
// by hand in openapi.json beside this file. web's tests hold it to the
// route table (every /api/v1 route, same methods) and to the JSON shapes of
// the Go types (assembler.Request, Result, the API* types, the error body).
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI handles GET /api/v1/openapi.json: 200 with the OpenAPI document
// of every /api/v1 route, as application/json.
func (h *API) OpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDoc)
}

// OpenAPIDocument returns a copy of the document GET /api/v1/openapi.json
// serves, for tools and tests that hold the API to it.
func OpenAPIDocument() []byte { return bytes.Clone(openAPIDoc) }

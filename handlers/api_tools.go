package handlers

import (
	"github.com/labstack/echo/v4"
)

// Tools handles GET /api/v1/tools[?locale=L]: 200 with a JSON object that
// maps each tool name (the module id without "tool.", e.g.
// "knowledge_search") to its assembler.Tool, rendered for L through the
// override chain (default: the fallback locale), with an ETag
// (WriteCachedJSON). Errors: 422 invalid_request for a locale that is
// not a BCP 47 tag; a tool module that cannot render without variables
// is a server error (500), logged.
func (h *API) Tools(c echo.Context) error {
	locale, err := h.queryLocale(c)
	if err != nil {
		return err
	}
	v := h.Served.Current().Published()
	out, err := h.Assembler.Tools(v.Library, v.State, locale, h.Now())
	if err != nil {
		return err
	}
	return WriteCachedJSON(c, out)
}

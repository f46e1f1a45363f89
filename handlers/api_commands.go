package handlers

import (
	"github.com/labstack/echo/v4"
)

// Commands handles GET /api/v1/commands[?locale=L]: 200 with a JSON array
// of assembler.Command from the command triggers of every task module
// (builtin and user modules) as served for L through the override chain
// (default: the fallback locale), sorted by command, then module, with
// an ETag (WriteCachedJSON). Errors: 422 invalid_request for a locale
// that is not a BCP 47 tag.
func (h *API) Commands(c echo.Context) error {
	locale, err := h.queryLocale(c)
	if err != nil {
		return err
	}
	v := h.Served.Current().Published()
	return WriteCachedJSON(c, h.Assembler.Commands(v.Library, v.State, locale))
}

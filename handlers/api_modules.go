package handlers

import (
	"errors"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// APIModule is one entry of GET /api/v1/modules (state.ModuleSummary).
type APIModule = state.ModuleSummary

// APIModuleDetail is GET /api/v1/modules/{id} (state.ModuleDetail).
type APIModuleDetail = state.ModuleDetail

// Modules handles GET /api/v1/modules: 200 with a JSON array of
// APIModule, the builtin and user modules sorted by id, with an ETag
// (WriteCachedJSON: If-None-Match answers 304). A user module whose only
// override rows no longer parse is left out, as on the library page. The
// query parameters layer, locale, status and q filter the list like the
// library page (state.ModuleFilter; status draft: a draft is pending);
// limit (1 to MaxModulesPage) pages it: when more modules follow, the
// Link header (rel="next") and X-Next-Cursor give the cursor of the next
// page, which ?cursor= takes. Errors: 422 invalid_request naming the
// parameter for an unknown layer or status, a malformed locale, limit or
// cursor.
func (h *API) Modules(c echo.Context) error {
	f := state.ModuleFilter{Layer: c.QueryParam("layer"), Status: c.QueryParam("status"), Q: strings.TrimSpace(c.QueryParam("q"))}
	if err := f.Check(); err != nil {
		var fe *state.FilterError
		errors.As(err, &fe)
		return &library.Error{Code: library.CodeInvalidRequest, Field: fe.Field, Msg: fe.Msg}
	}
	var err error
	if f.Locale, err = localeParam(c, ""); err != nil {
		return err
	}
	limit, err := queryIntOr(c, "limit", 1, MaxModulesPage, 0)
	if err != nil {
		return err
	}
	after, err := state.ParseModuleCursor(c.QueryParam("cursor"), "cursor")
	if err != nil {
		return err
	}
	out, more := h.Served.Current().ModulePage(h.Assembler, f, after, int(limit))
	if more {
		next := state.ModuleCursor(out[len(out)-1].ID)
		q := c.QueryParams()
		q.Set("cursor", next)
		c.Response().Header().Set("Link", "<"+c.Request().URL.Path+"?"+q.Encode()+`>; rel="next"`)
		c.Response().Header().Set(HeaderNextCursor, next)
	}
	return WriteCachedJSON(c, out)
}

// MaxModulesPage is the largest limit of GET /api/v1/modules.
const MaxModulesPage = 500

// HeaderNextCursor carries the cursor of the next page of a listing.
const HeaderNextCursor = "X-Next-Cursor"

// Module handles GET /api/v1/modules/{id}[?locale=L]: 200 with the
// APIModuleDetail served for L (default: the fallback locale), with an
// ETag (WriteCachedJSON). Errors: 404
// not_found for an unknown id or one with no text in L nor the fallback
// locale; 422 invalid_request for a locale that is not a BCP 47 tag.
func (h *API) Module(c echo.Context) error {
	locale, err := h.queryLocale(c)
	if err != nil {
		return err
	}
	d, err := h.Served.Current().ModuleDetail(h.Assembler, c.Param("id"), locale)
	if err != nil {
		return err
	}
	return WriteCachedJSON(c, d)
}

package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
)

// Render handles POST /api/v1/render: one module by id, through
// the override chain, with caller variables — the "named scenario" use
// (title generation, polishing, injection…). The body is an
// assembler.RenderRequest {"module","locale","variables"} (optionally
// "model", "timeZone", "now", "format", "revisions"), decoded strictly: an
// unknown field is a 422 naming it. The answer is 200 with
// assembler.Rendered: {"text","tokens","module","version","source",
// "revision","locale","fallback"} (and "messages" with "format":
// "messages"), and while the
// database is unreachable a "report" with the stale warning of Assemble.
// A token of the staging channel is rendered what Assemble serves it
// (pending drafts, open removals applied), with the channel's warnings
// in "report". Errors: see API;
// typically 404 not_found for the module, 422 missing_variable or
// extra_variable with field "variables.<name>".
func (h *API) Render(c echo.Context) error {
	data, err := readBody(c)
	if err != nil {
		return err
	}
	var req assembler.RenderRequest
	if err := decodeBody(data, &req); err != nil {
		return err
	}
	if req.Locale != "" {
		if req.Locale, err = checkLocale(req.Locale); err != nil {
			return err
		}
	}
	channel := ""
	if tok, ok := APIToken(c); ok {
		channel = tok.Channel()
	}
	out, report, err := h.Assembly.Render(c.Request().Context(), &req, channel, h.Now())
	if err != nil {
		return err
	}
	out.Report = report
	return WriteJSON(c, http.StatusOK, out)
}

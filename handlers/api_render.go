package handlers

import (
	"net/http"
	"time"

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
// database is unreachable a "report" with the stale warning of Assemble. Errors: see API;
// typically 404 not_found for the module, 422 missing_variable or
// extra_variable with field "variables.<name>".
func (h *API) Render(c echo.Context) error {
	data, err := readBody(c)
	if err != nil {
		return err
	}
	var req assembler.RenderRequest
	if err := assembler.DecodeJSON(data, &req); err != nil {
		return err
	}
	if req.Locale != "" {
		if req.Locale, err = checkLocale(req.Locale); err != nil {
			return err
		}
	}
	v := h.Served.Current().Published()
	st, err := h.pinned(c, v, v.State, req.Revisions)
	if err != nil {
		return err
	}
	out, err := h.Assembler.Render(v.Library, st, &req, h.Now())
	if err != nil {
		return err
	}
	if w, ok := h.staleWarning(); ok {
		return WriteJSON(c, http.StatusOK, staleRendered{Rendered: out, Report: []assembler.ReportEntry{w}})
	}
	return WriteJSON(c, http.StatusOK, out)
}

// staleRendered is a render's answer while the database is unreachable.
type staleRendered struct {
	*assembler.Rendered
	Report []assembler.ReportEntry `json:"report"`
}

// staleWarning is the report entry saying that the served state is the
// last one read before the database became unreachable: kind warning,
// module "database", reason "stale-since:<RFC 3339 time>"; ok is false
// while the database answers.
func (h *API) staleWarning() (assembler.ReportEntry, bool) {
	since, ok := h.Served.StaleSince()
	if !ok {
		return assembler.ReportEntry{}, false
	}
	e := assembler.ReportEntry{Kind: assembler.KindWarning, Module: "database", Reason: "stale-since:" + since.UTC().Format(time.RFC3339)}
	e.Line = e.TextForm()
	return e, true
}

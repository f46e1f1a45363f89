package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/state"
)

// Assemble handles POST /api/v1/assemble. The body is an
// assemble request (assembler.DecodeRequest: camelCase, unknown fields
// rejected, the size limits checked); the answer is 200 with the
// assembler.Result, the same JSON the CLI's `assemble` prints: segments
// [{layer,text,modules,tokens}], text, report [{kind,module,version,source,
// revision,locale,fallback,reason,tokens,line}], tokens, encoding, tables, locale,
// profile. While the database is unreachable the last state read serves
// and the report ends with a warning entry "database · stale-since:<RFC
// 3339 time>" (staleWarning). With ?builtinOnly=true the operator overrides are left out
// (profiles still apply), as in the preview. "revisions" pins overrides
// to past revisions (pinned); "format": "messages" adds the system
// messages. Errors: see API.
func (h *API) Assemble(c echo.Context) error {
	builtinOnly, err := queryBool(c, "builtinOnly")
	if err != nil {
		return err
	}
	data, err := readBody(c)
	if err != nil {
		return err
	}
	req, err := assembler.DecodeRequest(data)
	if err != nil {
		return err
	}
	v := h.Served.Current().Published()
	st := v.State
	if builtinOnly {
		st = &assembler.State{Profiles: v.State.Profiles}
	}
	if st, err = h.pinned(c, v, st, req.Revisions); err != nil {
		return err
	}
	res, err := h.Assembler.Assemble(v.Library, st, req, h.Now())
	if err != nil {
		return err
	}
	if w, ok := h.staleWarning(); ok {
		res.Report = append(res.Report, w)
	}
	return WriteJSON(c, http.StatusOK, res)
}

// pinned is st with the request's pinned revisions (state.Pinned).
func (h *API) pinned(c echo.Context, v *state.View, st *assembler.State, revisions map[string]int) (*assembler.State, error) {
	if len(revisions) == 0 {
		return st, nil
	}
	pins, err := assembler.Pins(revisions)
	if err != nil {
		return nil, err
	}
	return state.Pinned(c.Request().Context(), h.Revisions, v, st, pins)
}

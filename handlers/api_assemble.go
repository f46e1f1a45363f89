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
// 3339 time>" (state.Assembly). With ?builtinOnly=true the operator overrides are left out
// (state.Mode: profiles still apply), as in the preview and the CLI. "revisions" pins overrides
// to past revisions; "format": "messages" adds the system
// messages. A token of the staging channel (domain.ChannelStaging) is
// served the pending drafts on top of what is published, and its report
// ends with the warning "channel · channel:staging". Errors: see API.
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
		return unreadable(err)
	}
	mode := state.Mode{BuiltinOnly: builtinOnly}
	if tok, ok := APIToken(c); ok {
		mode.Channel = tok.Channel()
	}
	out, err := h.Assembly.Assemble(c.Request().Context(), req, mode, h.Now())
	if err != nil {
		return err
	}
	return WriteJSON(c, http.StatusOK, out.Result)
}

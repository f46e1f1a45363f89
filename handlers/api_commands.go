package handlers

import (
	"cmp"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/library"
)

// APICommand is one slash command of a chat client's `/` menu: the
// command with its slash, the task module it fires, and that module's
// title and description in the served locale.
type APICommand struct {
	Command     string `json:"command"`
	Module      string `json:"module"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// Commands handles GET /api/v1/commands[?locale=L]: 200 with a JSON array
// of APICommand from the command triggers of every task module (builtin
// and user modules) as served for L through the override chain (default:
// the fallback locale), sorted by command, then module, with an ETag
// (WriteCachedJSON). Errors: 422
// invalid_request for a locale that is not a BCP 47 tag.
func (h *API) Commands(c echo.Context) error {
	locale, err := h.queryLocale(c)
	if err != nil {
		return err
	}
	v := h.Served.Current().Published()
	out := []APICommand{}
	for _, id := range v.IDs() {
		s, ok := h.Assembler.Resolve(v.Library, v.State, id, locale)
		if !ok || s.Module.Layer != library.LayerTask {
			continue
		}
		for _, cmd := range s.Module.Commands() {
			out = append(out, APICommand{Command: cmd, Module: id, Title: s.Module.Title, Description: s.Module.Description})
		}
	}
	slices.SortFunc(out, func(a, b APICommand) int {
		return cmp.Or(cmp.Compare(a.Command, b.Command), cmp.Compare(a.Module, b.Module))
	})
	return WriteCachedJSON(c, out)
}

package handlers

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// APITool is the model-facing description of one tool (a tool-layer module):
// the module it comes from, its title and description, the module
// rendered with no variables (Text) and that text's token count (0 when
// counting is off).
type APITool struct {
	Module      string `json:"module"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Text        string `json:"text"`
	Tokens      int    `json:"tokens"`
}

// Tools handles GET /api/v1/tools[?locale=L]: 200 with a JSON object that
// maps each tool name (the module id without "tool.", e.g.
// "knowledge_search") to its APITool, rendered for L through the override
// chain (default: the fallback locale), with an ETag (WriteCachedJSON).
// Errors: 422 invalid_request for a
// locale that is not a BCP 47 tag; a tool module that cannot render
// without variables is a server error (500), logged.
func (h *API) Tools(c echo.Context) error {
	locale, err := h.queryLocale(c)
	if err != nil {
		return err
	}
	v := h.Served.Current().Published()
	out := map[string]APITool{}
	for _, id := range v.IDs() {
		s, ok := h.Assembler.Resolve(v.Library, v.State, id, locale)
		if !ok || s.Module.Layer != library.LayerTool {
			continue
		}
		r, err := h.Assembler.Render(v.Library, v.State, &assembler.RenderRequest{Module: id, Locale: locale}, h.Now())
		if err != nil {
			// Not the caller's fault: the library serves a tool text that needs variables.
			return fmt.Errorf("tool module %s does not render without variables: %v", id, err)
		}
		out[s.Module.Name()] = APITool{Module: id, Title: s.Module.Title, Description: s.Module.Description, Text: r.Text, Tokens: r.Tokens}
	}
	return WriteCachedJSON(c, out)
}

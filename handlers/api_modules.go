package handlers

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// APIModule is one entry of GET /api/v1/modules: a builtin or user module
// with the fields every locale shares. Title and description are those
// of the text served for the fallback locale (else the first locale that
// has one); Version is the builtin's, or the user module's own; Status is
// builtin, overridden, drifted or user, as on the library page.
type APIModule struct {
	ID          string       `json:"id"`
	Layer       string       `json:"layer"`
	Version     int          `json:"version"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	Locales     []string     `json:"locales"`
	Status      state.Status `json:"status"`
}

// APIModuleDetail is GET /api/v1/modules/{id}: the module text served for
// the requested locale through the override chain, its frontmatter
// fields and raw body, where it came from (Source: builtin, override,
// override-drifted, file, user-module; Revision the served override's
// revision, absent for a builtin; Locale and Fallback as in the
// composition report), every locale the module exists in, and its status.
type APIModuleDetail struct {
	ID                  string             `json:"id"`
	Layer               string             `json:"layer"`
	Version             int                `json:"version"`
	Title               string             `json:"title"`
	Description         string             `json:"description"`
	Priority            int                `json:"priority"`
	RequiresAttachments bool               `json:"requiresAttachments"`
	Variables           []library.Variable `json:"variables"`
	OutputContract      string             `json:"outputContract"`
	Triggers            []library.Trigger  `json:"triggers"`
	Body                string             `json:"body"`
	Source              string             `json:"source"`
	Revision            int                `json:"revision,omitempty"`
	Locale              string             `json:"locale"`
	Fallback            bool               `json:"fallback"`
	Locales             []string           `json:"locales"`
	Status              state.Status       `json:"status"`
}

// Modules handles GET /api/v1/modules: 200 with a JSON array of APIModule,
// every builtin and user module sorted by id, with an ETag
// (WriteCachedJSON: If-None-Match answers 304). A user module whose only
// override rows no longer parse is left out, as on the library page.
func (h *API) Modules(c echo.Context) error {
	v := h.Served.Current().Published()
	out := []APIModule{}
	for _, id := range v.IDs() {
		pm, _, ok := v.Primary(h.Assembler, id)
		if !ok {
			continue
		}
		m := APIModule{ID: id, Layer: string(pm.Layer), Version: pm.Version, Title: pm.Title, Description: pm.Description,
			Locales: v.Locales(id), Status: v.ModuleStatus(id)}
		if b, ok := v.Library.Any(id); ok {
			m.Version = b.Version
		}
		out = append(out, m)
	}
	return WriteCachedJSON(c, out)
}

// Module handles GET /api/v1/modules/{id}[?locale=L]: 200 with the
// APIModuleDetail served for L (default: the fallback locale), with an
// ETag (WriteCachedJSON). Errors: 404
// not_found for an unknown id or one with no text in L nor the fallback
// locale; 422 invalid_request for a locale that is not a BCP 47 tag.
func (h *API) Module(c echo.Context) error {
	id := c.Param("id")
	locale, err := h.queryLocale(c)
	if err != nil {
		return err
	}
	v := h.Served.Current().Published()
	if !v.Exists(id) {
		return &assembler.Error{Code: assembler.CodeNotFound, Module: id, Field: "id", Msg: "no builtin or user module has this id"}
	}
	s, ok := h.Assembler.Resolve(v.Library, v.State, id, locale)
	if !ok {
		return &assembler.Error{Code: assembler.CodeNotFound, Module: id, Field: "locale",
			Msg: fmt.Sprintf("no text in %s or the fallback %s (locales: %v)", locale, h.Assembler.FallbackLocale(), v.Locales(id))}
	}
	m := s.Module
	d := APIModuleDetail{
		ID:                  id,
		Layer:               string(m.Layer),
		Version:             m.Version,
		Title:               m.Title,
		Description:         m.Description,
		Priority:            m.Priority,
		RequiresAttachments: m.RequiresAttachments,
		Variables:           append([]library.Variable{}, m.Variables...),
		OutputContract:      m.OutputContract,
		Triggers:            append([]library.Trigger{}, m.Triggers...),
		Body:                m.Body,
		Source:              s.Source,
		Locale:              s.Locale,
		Fallback:            s.Fallback,
		Locales:             v.Locales(id),
		Status:              v.ModuleStatus(id),
	}
	if s.Override != nil {
		d.Revision = s.Override.Revision
	}
	return WriteCachedJSON(c, d)
}

package handlers

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

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
	// Upstream is where the served text came from, absent when it names none.
	Upstream *library.Upstream `json:"upstream,omitempty"`
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
	Upstream            *library.Upstream  `json:"upstream,omitempty"`
	Body                string             `json:"body"`
	Source              string             `json:"source"`
	Revision            int                `json:"revision,omitempty"`
	Locale              string             `json:"locale"`
	Fallback            bool               `json:"fallback"`
	Locales             []string           `json:"locales"`
	Status              state.Status       `json:"status"`
}

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
	cur := h.Served.Current()
	v := cur.Published()
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
	after, err := queryCursor(c)
	if err != nil {
		return err
	}
	matchIn := v
	if f.Status == string(state.StatusDraft) {
		matchIn = cur
	}
	out := []APIModule{}
	for _, id := range v.IDs() {
		if id <= after && after != "" {
			continue
		}
		pm, _, ok := v.Primary(h.Assembler, id)
		if !ok || !matchIn.Matches(f, pm.Layer, id) {
			continue
		}
		if limit > 0 && len(out) == int(limit) {
			next := base64.RawURLEncoding.EncodeToString([]byte(out[len(out)-1].ID))
			q := c.QueryParams()
			q.Set("cursor", next)
			c.Response().Header().Set("Link", "<"+c.Request().URL.Path+"?"+q.Encode()+`>; rel="next"`)
			c.Response().Header().Set(HeaderNextCursor, next)
			break
		}
		m := APIModule{ID: id, Layer: string(pm.Layer), Version: pm.Version, Title: pm.Title, Description: pm.Description,
			Locales: v.Locales(id), Status: v.ModuleStatus(id), Upstream: pm.Upstream}
		if b, ok := v.Library.Any(id); ok {
			m.Version = b.Version
		}
		out = append(out, m)
	}
	return WriteCachedJSON(c, out)
}

// MaxModulesPage is the largest limit of GET /api/v1/modules.
const MaxModulesPage = 500

// HeaderNextCursor carries the cursor of the next page of a listing.
const HeaderNextCursor = "X-Next-Cursor"

// queryCursor reads ?cursor=: the id the previous page ended with, as
// HeaderNextCursor gave it ("" when absent). A cursor that is not one is a
// 422 invalid_request on field cursor.
func queryCursor(c echo.Context) (string, error) {
	s := c.QueryParam("cursor")
	if s == "" {
		return "", nil
	}
	id, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(id) == 0 || !utf8.Valid(id) {
		return "", &library.Error{Code: library.CodeInvalidRequest, Field: "cursor", Msg: fmt.Sprintf("%q is not a cursor: send the X-Next-Cursor of the previous page", s)}
	}
	return string(id), nil
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
		return &library.Error{Code: library.CodeNotFound, Module: id, Field: "id", Msg: "no builtin or user module has this id"}
	}
	s, ok := h.Assembler.Resolve(v.Library, v.State, id, locale)
	if !ok {
		return &library.Error{Code: library.CodeNotFound, Module: id, Field: "locale",
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
		Upstream:            m.Upstream,
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

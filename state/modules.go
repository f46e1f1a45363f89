package state

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// ModuleSummary is one module of a module listing (the API's GET
// /api/v1/modules, the MCP list_modules tool): a builtin or user module
// with the fields every locale shares. Title and description are those
// of the text served for the fallback locale (else the first locale that
// has one); Version is the builtin's, or the user module's own; Status is
// builtin, overridden, drifted or user, as on the library page.
type ModuleSummary struct {
	ID          string   `json:"id"`
	Layer       string   `json:"layer"`
	Version     int      `json:"version"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Locales     []string `json:"locales"`
	Status      Status   `json:"status"`
	// Upstream is where the served text came from, absent when it names none.
	Upstream *library.Upstream `json:"upstream,omitempty"`
}

// ModuleDetail is one module as served for a locale (the API's GET
// /api/v1/modules/{id}, the MCP get_module tool): the text served
// through the override chain, its frontmatter fields and raw body, where
// it came from (Source: builtin, override, override-drifted, file,
// user-module; Revision the served override's revision, absent for a
// builtin; Locale and Fallback as in the composition report), every
// locale the module exists in, and its status.
type ModuleDetail struct {
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
	Status              Status             `json:"status"`
}

// ModulePage lists the modules served by the runtime (cur's published
// View) that f selects, sorted by id, after the id after ("" from the
// first), at most limit of them (0: all). Status draft matches the
// drafts pending in cur. A user module whose only override rows no longer
// parse is left out, as on the library page. more reports whether
// modules follow the page; ModuleCursor of the page's last id continues
// it. f must pass Check.
func (cur *View) ModulePage(a *assembler.Assembler, f ModuleFilter, after string, limit int) (page []ModuleSummary, more bool) {
	v := cur.Published()
	matchIn := v
	if f.Status == string(StatusDraft) {
		matchIn = cur
	}
	page = []ModuleSummary{}
	for _, id := range v.IDs() {
		if after != "" && id <= after {
			continue
		}
		pm, _, ok := v.Primary(a, id)
		if !ok || !matchIn.Matches(f, pm.Layer, id) {
			continue
		}
		if limit > 0 && len(page) == limit {
			return page, true
		}
		m := ModuleSummary{ID: id, Layer: string(pm.Layer), Version: pm.Version, Title: pm.Title, Description: pm.Description,
			Locales: v.Locales(id), Status: v.ModuleStatus(id), Upstream: pm.Upstream}
		if b, ok := v.Library.Any(id); ok {
			m.Version = b.Version
		}
		page = append(page, m)
	}
	return page, false
}

// ModuleCursor is the cursor of the module listing page after the one
// ending with id: its unpadded base64url.
func ModuleCursor(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

// ParseModuleCursor returns the id a ModuleCursor names ("" for "").
// Errors: a *library.Error invalid_request on field (the name the caller
// takes the cursor by) for a string that is not a cursor.
func ParseModuleCursor(s, field string) (string, error) {
	if s == "" {
		return "", nil
	}
	id, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(id) == 0 || !utf8.Valid(id) {
		return "", &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: fmt.Sprintf("%q is not a cursor: send the one the previous page gave", s)}
	}
	return string(id), nil
}

// ModuleDetail returns module id as the runtime is served it (cur's
// published View) in locale ("": the fallback locale). Errors: a
// *library.Error not_found on field id for an unknown id, on field locale
// for one with no text in locale nor the fallback locale.
func (cur *View) ModuleDetail(a *assembler.Assembler, id, locale string) (ModuleDetail, error) {
	v := cur.Published()
	if locale == "" {
		locale = a.FallbackLocale()
	}
	if !v.Exists(id) {
		return ModuleDetail{}, &library.Error{Code: library.CodeNotFound, Module: id, Field: "id", Msg: "no builtin or user module has this id"}
	}
	s, ok := a.Resolve(v.Library, v.State, id, locale)
	if !ok {
		return ModuleDetail{}, &library.Error{Code: library.CodeNotFound, Module: id, Field: "locale",
			Msg: fmt.Sprintf("no text in %s or the fallback %s (locales: %v)", locale, a.FallbackLocale(), v.Locales(id))}
	}
	m := s.Module
	d := ModuleDetail{
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
	return d, nil
}

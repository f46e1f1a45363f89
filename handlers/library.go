package handlers

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/librarypage"
)

// Library serves the library page. It reads only the served state.
type Library struct {
	Served    *state.Served
	Assembler *assembler.Assembler
}

// statuses are the values of the status filter: a module's status, or
// draft for the modules with a draft not published yet (any status).
var statuses = func() []string {
	out := make([]string, len(state.Statuses))
	for i, s := range state.Statuses {
		out[i] = string(s)
	}
	return out
}()

// List renders GET /: every module grouped by layer, filtered by the query
// parameters layer, locale, status and q. htmx requests get only the list.
// Errors: ErrInvalid for an unknown layer, locale or status.
func (h *Library) List(c echo.Context) error {
	v := h.Served.Current()
	f := librarypage.Filter{
		Layer:  c.QueryParam("layer"),
		Locale: c.QueryParam("locale"),
		Status: c.QueryParam("status"),
		Q:      strings.TrimSpace(c.QueryParam("q")),
	}
	m := librarypage.Model{Filter: f, Statuses: statuses}
	for _, l := range library.Layers {
		m.Layers = append(m.Layers, string(l))
	}
	ids := v.IDs()
	for _, id := range ids {
		for _, loc := range v.Locales(id) {
			if !slices.Contains(m.Locales, loc) {
				m.Locales = append(m.Locales, loc)
			}
		}
	}
	slices.Sort(m.Locales)
	sf := state.ModuleFilter{Layer: f.Layer, Locale: f.Locale, Status: f.Status, Q: f.Q}
	if err := sf.Check(); err != nil {
		return err
	}
	if f.Locale != "" && !slices.ContainsFunc(m.Locales, func(l string) bool { return strings.EqualFold(l, f.Locale) }) {
		return fmt.Errorf("no module exists in locale %q: %w", f.Locale, library.ErrInvalid)
	}

	rows := map[library.Layer][]librarypage.Row{}
	for _, id := range ids {
		pm, _, ok := v.Primary(h.Assembler, id)
		if !ok {
			continue // a user module whose only rows are broken
		}
		m.Total++
		row := librarypage.Row{ID: id, Title: pm.Title, Description: pm.Description, Version: pm.Version, Status: string(v.ModuleStatus(id))}
		if b, ok := v.Library.Any(id); ok {
			row.Version = b.Version
		}
		for _, loc := range v.Locales(id) {
			draft := v.HasDraft(id, loc)
			row.Locales = append(row.Locales, librarypage.Locale{Locale: loc, Status: string(v.LocaleStatus(id, loc)), Draft: draft})
			row.Draft = row.Draft || draft
		}
		if !v.Matches(sf, pm.Layer, id) {
			continue
		}
		m.Shown++
		rows[pm.Layer] = append(rows[pm.Layer], row)
	}
	// Unfiltered, every layer shows, an empty one saying so; filtered,
	// only the layers with a match, so that no match is one empty state.
	for _, l := range library.Layers {
		if !f.Active() || len(rows[l]) > 0 {
			m.Groups = append(m.Groups, librarypage.Group{Layer: string(l), Modules: rows[l]})
		}
	}
	for key, err := range v.Broken {
		m.Broken = append(m.Broken, librarypage.Broken{ModuleID: key.ID, Locale: v.Rows[key].Locale, Message: err.Error()})
	}
	slices.SortFunc(m.Broken, func(a, b librarypage.Broken) int {
		return strings.Compare(a.ModuleID+" "+a.Locale, b.ModuleID+" "+b.Locale)
	})
	m.Flash = flashFor(c)

	c.Response().Header().Add("Vary", "HX-Request")
	if isPartial(c) {
		return Render(c, http.StatusOK, librarypage.List(m))
	}
	return Render(c, http.StatusOK, librarypage.Page(m))
}

package handlers

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
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

// LibraryPageSize is the number of module rows one library page shows.
const LibraryPageSize = 100

// List renders GET /: the modules grouped by layer, filtered by the query
// parameters layer, locale, status and q, LibraryPageSize rows a page
// (parameter page, from 1; past the last it shows the last, saying so), with counts
// per layer and status of every module the filter selects. htmx requests
// get only the list. Errors: ErrInvalid for an unknown layer, locale or
// status, or a page that is not a whole number from 1.
func (h *Library) List(c echo.Context) error {
	v := h.Served.Current()
	f := librarypage.Filter{
		Layer:  c.QueryParam("layer"),
		Locale: c.QueryParam("locale"),
		Status: c.QueryParam("status"),
		Q:      strings.TrimSpace(c.QueryParam("q")),
	}
	page := 1
	if p := c.QueryParam("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return fmt.Errorf("page %q is not a page number (1, 2, …): %w", p, library.ErrInvalid)
		}
		page = n
	}
	m := librarypage.Model{Filter: f, Statuses: statuses}
	for _, l := range library.Layers {
		m.Layers = append(m.Layers, string(l))
	}
	listing := v.Listing(h.Assembler)
	m.Locales = listing.Locales
	sf := state.ModuleFilter{Layer: f.Layer, Locale: f.Locale, Status: f.Status, Q: f.Q}
	if err := sf.Check(); err != nil {
		return err
	}
	if f.Locale != "" && !slices.ContainsFunc(m.Locales, func(l string) bool { return strings.EqualFold(l, f.Locale) }) {
		return fmt.Errorf("no module exists in locale %q: %w", f.Locale, library.ErrInvalid)
	}

	// Every module is matched and counted; only the page's are described.
	// Counts are by position in library.Layers and statuses.
	matched := make([][]*library.Module, len(library.Layers))
	statusCount := make([]int, len(statuses))
	draft := slices.Index(statuses, string(state.StatusDraft))
	m.Total = len(listing.Modules)
	for _, e := range listing.Modules {
		if !v.MatchesListed(sf, e) {
			continue
		}
		m.Shown++
		l := slices.Index(library.Layers, e.Module.Layer)
		matched[l] = append(matched[l], e.Module)
		if s := slices.Index(statuses, string(e.Status)); s >= 0 {
			statusCount[s]++
		}
		// As the draft filter counts: a draft in the filter's locale.
		if e.DraftIn(f.Locale) {
			statusCount[draft]++
		}
	}
	m.Pages = max(1, (m.Shown+LibraryPageSize-1)/LibraryPageSize)
	m.Page = min(page, m.Pages)
	if page > m.Pages {
		m.PastEnd = page
	}
	start, end := (m.Page-1)*LibraryPageSize, min(m.Page*LibraryPageSize, m.Shown)
	if m.Shown > 0 {
		m.First, m.Last = start+1, end
	}
	for i, s := range statuses {
		if statusCount[i] > 0 {
			m.StatusCounts = append(m.StatusCounts, librarypage.Count{Name: s, N: statusCount[i]})
		}
	}
	// at is the number of the first row of the layer in the listing, from 0.
	at := 0
	for i, l := range library.Layers {
		mods := matched[i]
		if len(mods) > 0 {
			m.LayerCounts = append(m.LayerCounts, librarypage.Count{Name: string(l), N: len(mods)})
		}
		g := librarypage.Group{Layer: string(l), Count: len(mods)}
		for i, pm := range mods {
			if at+i >= start && at+i < end {
				g.Modules = append(g.Modules, h.row(v, pm))
			}
		}
		// Unfiltered, an empty layer shows, saying so, on the page where
		// it falls; filtered, only layers with a match, so that no match is
		// one empty state.
		empty := len(mods) == 0 && !f.Active() && (at >= start && at < end || at == m.Shown && m.Page == m.Pages)
		if len(g.Modules) > 0 || empty {
			m.Groups = append(m.Groups, g)
		}
		at += len(mods)
	}
	for key, err := range v.Broken.All() {
		r, _ := v.Rows.Get(key)
		m.Broken = append(m.Broken, librarypage.Broken{ModuleID: key.ID, Locale: r.Locale, Message: err.Error()})
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

// row describes module pm (the text Primary chose) as a row of the list.
func (h *Library) row(v *state.View, pm *library.Module) librarypage.Row {
	id := pm.ID
	row := librarypage.Row{ID: id, Title: pm.Title, Description: pm.Description, Version: pm.Version, Status: string(v.ModuleStatus(id))}
	if b, ok := v.Library.Any(id); ok {
		row.Version = b.Version
	}
	for _, loc := range v.Locales(id) {
		draft := v.HasDraft(id, loc)
		row.Locales = append(row.Locales, librarypage.Locale{Locale: loc, Status: string(v.LocaleStatus(id, loc)), Draft: draft})
		row.Draft = row.Draft || draft
	}
	return row
}

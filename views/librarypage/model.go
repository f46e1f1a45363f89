// Package librarypage is the library page: the modules grouped by layer,
// a page of rows at a time, with filters by layer, locale, status and a
// text search, and counts of what the filter selects.
package librarypage

import (
	"net/url"
	"strconv"
	"strings"
)

// Model is the library page.
type Model struct {
	Filter Filter
	// Options of the filter selects.
	Layers, Locales, Statuses []string
	// Groups are the layers of the rows of this page, in assembly order.
	// When no filter is active an empty layer is listed too, at its place
	// in that order.
	Groups []Group
	Total  int // modules in the library, before filtering
	Shown  int // modules that pass the filter, on every page
	// Page is the page shown, from 1, of Pages (at least 1); its rows are
	// the Shown modules numbered First to Last, from 1 (none when Shown
	// is 0).
	Page, Pages, First, Last int
	// PastEnd is the page asked for when it is past Pages (Page is then
	// the last); 0 otherwise.
	PastEnd int
	// LayerCounts and StatusCounts count the Shown modules per layer (in
	// assembly order) and per status (in Statuses order, draft counting
	// the modules with a draft pending); zero counts are left out.
	LayerCounts, StatusCounts []Count
	Broken                    []Broken
	Flash                     string
}

// Count is how many modules have one layer or status.
type Count struct {
	Name string
	N    int
}

// PageURL is the address of page p with the same filter: "/?layer=task&page=2";
// page 1 has no page parameter.
func (m Model) PageURL(p int) string {
	q := url.Values{}
	for k, v := range map[string]string{"layer": m.Filter.Layer, "locale": m.Filter.Locale, "status": m.Filter.Status, "q": m.Filter.Q} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if p > 1 {
		q.Set("page", strconv.Itoa(p))
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

// PagerItems are the pager's page numbers: the first, the last and the
// two either side of Page, with 0 for a gap ("…").
func (m Model) PagerItems() []int {
	var out []int
	for p := 1; p <= m.Pages; p++ {
		switch {
		case p == 1 || p == m.Pages || p >= m.Page-2 && p <= m.Page+2:
			out = append(out, p)
		case len(out) > 0 && out[len(out)-1] != 0:
			out = append(out, 0)
		}
	}
	return out
}

// Filter is the query of the page; empty fields do not filter.
type Filter struct {
	Layer, Locale, Status, Q string
}

// Active reports whether any field filters.
func (f Filter) Active() bool {
	return f.Layer != "" || f.Locale != "" || f.Status != "" || f.Q != ""
}

// Describe says what the filter asks for, as the empty state shows it:
// `"minutes" in layer task, locale zh-CN, status drifted`.
func (f Filter) Describe() string {
	var parts []string
	if f.Layer != "" {
		parts = append(parts, "layer "+f.Layer)
	}
	if f.Locale != "" {
		parts = append(parts, "locale "+f.Locale)
	}
	if f.Status != "" {
		parts = append(parts, "status "+f.Status)
	}
	where := strings.Join(parts, ", ")
	switch {
	case f.Q == "":
		return where
	case where == "":
		return "\u201c" + f.Q + "\u201d"
	}
	return "\u201c" + f.Q + "\u201d in " + where
}

// Group is the rows of one layer on the page; Count is the layer's
// modules on every page.
type Group struct {
	Layer   string
	Count   int
	Modules []Row
}

// Row is one module.
type Row struct {
	ID, Title, Description string
	Version                int
	Status                 string
	Locales                []Locale
	// Draft is true when a draft is pending in any locale.
	Draft bool
}

// Locale is one locale a module exists in, with its status there.
type Locale struct {
	Locale, Status string
	Draft          bool // a draft is pending in this locale
}

// Broken is an override whose stored text no longer parses; it is not
// served.
type Broken struct {
	ModuleID, Locale, Message string
}

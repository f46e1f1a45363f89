// Package librarypage is the library page: every module grouped by
// layer, with filters by layer, locale, status and a text search.
package librarypage

import "strings"

// Model is the library page.
type Model struct {
	Filter Filter
	// Options of the filter selects.
	Layers, Locales, Statuses []string
	// Groups has one entry per layer in assembly order when no filter is
	// active; with a filter, only the layers with a module that passes.
	Groups []Group
	Total  int // modules in the library, before filtering
	Shown  int // modules that pass the filter
	Broken []Broken
	Flash  string
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

// Group is the modules of one layer.
type Group struct {
	Layer   string
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

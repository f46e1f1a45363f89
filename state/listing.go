package state

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// Listed is one module of a View's listing (View.Listing): what a
// listing filters, counts and shows of it.
type Listed struct {
	ID string
	// Module is the text whose shared fields represent the module
	// (Primary).
	Module  *library.Module
	Status  Status       // ModuleStatus
	Locales []string     // Locales
	Drafts  []string     // the locales with a draft pending, in Locales order
	search  []searchable // searchText
}

// DraftIn reports whether e has a draft pending in locale, compared
// ignoring case; locale "" is any locale.
func (e Listed) DraftIn(locale string) bool {
	return slices.ContainsFunc(e.Drafts, func(l string) bool { return locale == "" || strings.EqualFold(l, locale) })
}

// listing is a View's Listing, built on its first call.
type listing struct {
	once sync.Once
	a    *assembler.Assembler
	l    *Listing
}

// Listing is every module of a View's IDs that has a text (Primary), in
// IDs order, and every locale of any id.
type Listing struct {
	Modules []Listed
	// Locales are the locales of Locales of every id, each spelling once,
	// sorted.
	Locales []string
}

// Listing returns v's Listing. It is built once per View, for the first
// assembler that asks (a server has one), and afresh for any other, so
// that a listing of 10,000 modules costs a pass over one slice rather
// than a status, a drift and a lookup per locale of every module on each
// request. It is the View's: do not modify it.
func (v *View) Listing(a *assembler.Assembler) *Listing {
	v.listing.once.Do(func() {
		v.listing.a, v.listing.l = a, v.newListing(a)
	})
	if v.listing.a != a {
		return v.newListing(a)
	}
	return v.listing.l
}

func (v *View) newListing(a *assembler.Assembler) *Listing {
	l := &Listing{Modules: make([]Listed, 0, len(v.idx.ids))}
	locales := map[string]bool{}
	for _, id := range v.idx.ids {
		locs := v.Locales(id)
		for _, loc := range locs {
			locales[loc] = true
		}
		m, _, ok := v.Primary(a, id)
		if !ok {
			continue // a user module whose only rows are broken
		}
		e := Listed{ID: id, Module: m, Status: v.ModuleStatus(id), Locales: locs, search: v.searchText(id)}
		for _, loc := range locs {
			if v.HasDraft(id, loc) {
				e.Drafts = append(e.Drafts, loc)
			}
		}
		l.Modules = append(l.Modules, e)
	}
	l.Locales = slices.Sorted(maps.Keys(locales))
	return l
}

// MatchesListed is Matches for a module of v's Listing, without looking
// its status and drafts up again.
func (v *View) MatchesListed(f ModuleFilter, e Listed) bool {
	if f.Layer != "" && string(e.Module.Layer) != f.Layer {
		return false
	}
	switch Status(f.Status) {
	case "":
	case StatusDraft:
		if !e.DraftIn(f.Locale) {
			return false
		}
	default:
		if e.Status != Status(f.Status) {
			return false
		}
	}
	if f.Locale != "" && !slices.ContainsFunc(e.Locales, func(l string) bool { return strings.EqualFold(l, f.Locale) }) {
		return false
	}
	return f.Q == "" || matchesText(e.search, f.Q)
}

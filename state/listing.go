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
	Module *library.Module
	Status Status       // ModuleStatus
	Drafts []string     // the locales with a draft pending, in Locales order
	search []searchable // searchText
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
		for _, loc := range v.Locales(id) {
			locales[loc] = true
		}
		m, _, ok := v.Primary(a, id)
		if !ok {
			continue // a user module whose only rows are broken
		}
		e := Listed{ID: id, Module: m, Status: v.ModuleStatus(id), search: v.searchText(id)}
		for _, loc := range v.Locales(id) {
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
	inLocale := func(l string) bool { return f.Locale == "" || strings.EqualFold(l, f.Locale) }
	switch Status(f.Status) {
	case "":
	case StatusDraft:
		if !slices.ContainsFunc(e.Drafts, inLocale) {
			return false
		}
	default:
		if e.Status != Status(f.Status) {
			return false
		}
	}
	if f.Locale != "" && !slices.ContainsFunc(v.Locales(e.ID), inLocale) {
		return false
	}
	return f.Q == "" || matchesText(e.search, f.Q)
}

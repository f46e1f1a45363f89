package state

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
	done atomic.Bool // a and l are set
	// basis, until the listing is built, is what it may copy.
	basis atomic.Pointer[listingBasis]
}

// listingBasis is an earlier View whose listing is built (from), and the
// ids changed since (changed): a listing copies from's entries of the
// other ids, which depend on nothing but the id's own rows.
type listingBasis struct {
	from    *View
	changed map[string]bool
}

// maxRelisted is how many changed ids a listing recomputes from its
// basis before it is built afresh.
const maxRelisted = 256

// nextListing is the listing, not built yet, of a View composed from prev
// by a change of the ids of keys: based on prev's listing when that is
// built, else on prev's basis with the changes of both.
func nextListing(prev *View, keys []assembler.OverrideKey) *listing {
	next := &listing{}
	b := prev.listing.basis.Load()
	nb := &listingBasis{from: prev, changed: map[string]bool{}}
	switch {
	case prev.listing.done.Load():
	case b != nil:
		nb.from = b.from
		maps.Copy(nb.changed, b.changed)
	default:
		return next
	}
	for _, k := range keys {
		nb.changed[k.ID] = true
	}
	if len(nb.changed) <= maxRelisted {
		next.basis.Store(nb)
	}
	return next
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
// request; a View composed by a change of a few ids copies the other
// entries from the listing before it. It is the View's: do not modify
// it.
func (v *View) Listing(a *assembler.Assembler) *Listing {
	v.listing.once.Do(func() {
		v.listing.a, v.listing.l = a, v.newListing(a, v.listing.basis.Load())
		v.listing.done.Store(true)
		v.listing.basis.Store(nil) // the older View may go
	})
	if v.listing.a != a {
		return v.newListing(a, nil)
	}
	return v.listing.l
}

// newListing builds v's Listing for a: the entries of b's View but for
// its changed ids when b (nil: none) has a listing built for a, else
// every entry afresh.
func (v *View) newListing(a *assembler.Assembler, b *listingBasis) *Listing {
	if b != nil && b.from.listing.a != a {
		b = nil
	}
	l := &Listing{Modules: make([]Listed, 0, len(v.idx.ids))}
	var old []Listed
	if b != nil {
		old = b.from.listing.l.Modules
	}
	j := 0
	for _, id := range v.idx.ids {
		if b != nil && !b.changed[id] {
			for j < len(old) && old[j].ID < id {
				j++
			}
			if j < len(old) && old[j].ID == id {
				l.Modules = append(l.Modules, old[j])
			}
			continue
		}
		if e, ok := v.listed(a, id); ok {
			l.Modules = append(l.Modules, e)
		}
	}
	if b != nil && sameLocales(v, b.from, b.changed) {
		l.Locales = b.from.listing.l.Locales
		return l
	}
	locales := map[string]bool{}
	for _, id := range v.idx.ids {
		for _, loc := range v.Locales(id) {
			locales[loc] = true
		}
	}
	l.Locales = slices.Sorted(maps.Keys(locales))
	return l
}

// sameLocales reports whether every id of ids has the same Locales in v
// as in w (an id gone or new has none in one of them).
func sameLocales(v, w *View, ids map[string]bool) bool {
	for id := range ids {
		if !slices.Equal(v.Locales(id), w.Locales(id)) {
			return false
		}
	}
	return true
}

// listed is the entry of id in v's listing; ok is false when id has no
// text (a user module whose only rows are broken).
func (v *View) listed(a *assembler.Assembler, id string) (e Listed, ok bool) {
	m, _, ok := v.Primary(a, id)
	if !ok {
		return Listed{}, false
	}
	locs := v.Locales(id)
	e = Listed{ID: id, Module: m, Status: v.ModuleStatus(id), Locales: locs, search: v.searchText(id)}
	for _, loc := range locs {
		if v.HasDraft(id, loc) {
			e.Drafts = append(e.Drafts, loc)
		}
	}
	return e, true
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

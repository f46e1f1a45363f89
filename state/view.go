package state

import (
	"slices"
	"strings"

	iradix "github.com/hashicorp/go-immutable-radix/v2"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
)

// View is one immutable state: the library (with a library folder's
// broken files, LibraryBroken), the assembler State built from the
// published overrides (what the runtime serves), and every published
// override row, including rows whose text no longer parses (Broken, keyed
// like Rows); then the drafts: the unpublished heads (Drafts, with
// DraftBroken for those that do not parse) and WithDrafts, State with the
// parsed drafts on top, for the preview's "include drafts" (the same
// pointer as State when no draft parses). Nothing in it may be modified;
// a View made after a change of one override shares everything else with
// the one before (assembler.ByKey).
type View struct {
	Library       *library.Snapshot
	LibraryBroken []reload.BrokenFile
	State         *assembler.State
	Rows          assembler.ByKey[domain.Override]
	Broken        assembler.ByKey[error]
	Drafts        assembler.ByKey[domain.Override]
	DraftBroken   assembler.ByKey[error]
	WithDrafts    *assembler.State
	// Generation counts the Views a Served composed, from 1: a new
	// number for every rebuild and every library reload.
	Generation int64
	// ServedGeneration counts the changes of what the runtime API serves,
	// from the time the Served opened in microseconds since 1970 (below
	// 2^53, so JSON clients read it exactly): one more for each rebuild or library
	// reload that changed a published override, a profile or the library
	// (Served.ChangesSince lists them); the same after one that changed
	// nothing served (a draft, a periodic refresh). It is this process's
	// count: another instance counts on its own, and a restart starts
	// above every number of the process before.
	ServedGeneration int64

	// The profiles as stored, to compose the View again on a reloaded
	// library without the store.
	profiles []domain.Profile

	// idx answers IDs, Exists and Locales without a pass over every
	// stored row per call: built with the drafts (all) and without them
	// (published, for Published).
	idx, published *index
	// deps lists, by placeholder name, the stored rows and drafts whose
	// parsed text names it: what to check again when that id starts or
	// stops being stored.
	deps *iradix.Tree[dep]
	// texts is the Served's, shared by its Views; listing is built on the
	// first Listing (Published has a listing of its own).
	texts   *moduleTexts
	listing *listing
}

// index is the module ids and locales of a View, kept from one View to
// the next.
type index struct {
	ids []string // IDs
	// lib is the Locales of every library id, made once per library
	// snapshot; stored overrides the Locales of every id with a stored
	// row, by id.
	lib    map[string][]string
	stored *iradix.Tree[[]string]
}

// libraryLocales is the Locales of every id of lib by its builtins
// alone.
func libraryLocales(lib *library.Snapshot) map[string][]string {
	out := make(map[string][]string, len(lib.IDs()))
	for _, id := range lib.IDs() {
		out[id] = localesOf(lib, id)
	}
	return out
}

// newIndex indexes the library's ids and locales (libLocs, its
// libraryLocales) with those of the stored rows of every set.
func newIndex(lib *library.Snapshot, libLocs map[string][]string, sets ...assembler.ByKey[domain.Override]) *index {
	x := &index{ids: slices.Clone(lib.IDs()), lib: libLocs}
	txn := iradix.New[[]string]().Txn()
	for _, rows := range sets {
		for k := range rows.All() {
			if _, done := txn.Get([]byte(k.ID)); done {
				continue
			}
			txn.Insert([]byte(k.ID), localesOf(lib, k.ID, sets...))
			if !lib.Has(k.ID) {
				x.ids = append(x.ids, k.ID)
			}
		}
	}
	x.stored = txn.CommitOnly()
	slices.Sort(x.ids)
	return x
}

// with is x after a change of the stored rows of id: sets are every set
// x indexes, as they are now. x is unchanged; the new index shares what
// id does not touch, and its ids are x's unless id appeared or vanished.
func (x *index) with(lib *library.Snapshot, id string, sets ...assembler.ByKey[domain.Override]) *index {
	n := *x
	stored := slices.ContainsFunc(sets, func(rows assembler.ByKey[domain.Override]) bool { return rows.HasID(id) })
	if stored {
		n.stored, _, _ = x.stored.Insert([]byte(id), localesOf(lib, id, sets...))
	} else {
		n.stored, _, _ = x.stored.Delete([]byte(id))
	}
	if !lib.Has(id) {
		i, listed := slices.BinarySearch(x.ids, id)
		switch {
		case stored && !listed:
			n.ids = slices.Insert(slices.Clone(x.ids), i, id)
		case !stored && listed:
			n.ids = slices.Delete(slices.Clone(x.ids), i, i+1)
		}
	}
	return &n
}

// localesOf is the Locales of id: its builtins' locales with those of its
// stored rows in every set, sorted by locale key, each locale spelled as
// the builtin spells it, else as the stored spelling that sorts first
// (a locale saved twice in different spellings, say by a draft and a
// published row, is spelled the same on every compose).
func localesOf(lib *library.Snapshot, id string, sets ...assembler.ByKey[domain.Override]) []string {
	locs := lib.ModuleLocales(id)
	var stored []string
	for _, rows := range sets {
		for _, r := range rows.ID(id) {
			stored = append(stored, r.Locale)
		}
	}
	slices.Sort(stored)
	for _, l := range stored {
		if !slices.ContainsFunc(locs, func(b string) bool { return library.LocaleKey(b) == library.LocaleKey(l) }) {
			locs = append(locs, l)
		}
	}
	slices.SortFunc(locs, func(a, b string) int { return strings.Compare(library.LocaleKey(a), library.LocaleKey(b)) })
	return locs
}

// locales is the Locales of id.
func (x *index) locales(id string) []string {
	if l, ok := x.stored.Get([]byte(id)); ok {
		return l
	}
	return x.lib[id]
}

// has reports whether id has a stored row in a set x indexes.
func (x *index) has(id string) bool {
	_, ok := x.stored.Get([]byte(id))
	return ok
}

// Status is what serves a module, in one locale or summed over its
// locales: the one vocabulary of the library filter, the module page, the
// badges and the API.
type Status string

// The statuses.
const (
	StatusBuiltin    Status = "builtin"    // no override: the builtin serves
	StatusOverridden Status = "overridden" // a published override serves
	StatusDrifted    Status = "drifted"    // a published override serves, and its builtin moved on (DriftOf)
	StatusUser       Status = "user"       // a user module: an override whose id has no builtin
	StatusDraft      Status = "draft"      // a draft is pending, not served yet
	StatusBroken     Status = "broken"     // the published override no longer parses and does not serve
)

// Statuses are the module statuses a library listing filters by, in the
// order they are offered.
var Statuses = []Status{StatusBuiltin, StatusOverridden, StatusDraft, StatusDrifted, StatusUser}

// IDs returns every builtin module id and every user-module id (overrides
// without a builtin, published or draft, parsed or not), sorted. The
// slice is the View's: do not modify it.
func (v *View) IDs() []string { return v.idx.ids }

// Exists reports whether id is a builtin module or a user module, a user
// module with only a draft included.
func (v *View) Exists(id string) bool {
	return v.Library.Has(id) || v.idx.has(id)
}

// Head returns the newest state of the override of id in locale: its
// draft when there is one, else its published row.
func (v *View) Head(id, locale string) (domain.Override, bool) {
	key := assembler.Key(id, locale)
	if d, ok := v.Drafts.Get(key); ok {
		return d, true
	}
	return v.Rows.Get(key)
}

// HasDraft reports whether a draft is pending for id in locale.
func (v *View) HasDraft(id, locale string) bool {
	_, ok := v.Drafts.Get(assembler.Key(id, locale))
	return ok
}

// Locales lists the locales id exists in, builtin, override or draft,
// sorted; override locales are spelled as first saved. The slice is the
// View's: do not modify it.
func (v *View) Locales(id string) []string { return v.idx.locales(id) }

// Drift is the drift of the published override of id in locale
// (assembler.DriftOf against v's library); not drifted when there is
// none. A row that no longer parses is judged by its stored base.
func (v *View) Drift(id, locale string) assembler.Drift {
	key := assembler.Key(id, locale)
	if o, ok := v.State.Overrides.Get(key); ok {
		return assembler.DriftOf(o, v.Library)
	}
	if r, ok := v.Rows.Get(key); ok {
		return DriftOfRow(r, v.Library)
	}
	return assembler.Drift{}
}

// DriftOfRow is assembler.DriftOf of a stored override row.
func DriftOfRow(r domain.Override, lib *library.Snapshot) assembler.Drift {
	return assembler.DriftOf(&assembler.Override{ID: r.ModuleID, Locale: r.Locale, Revision: r.Revision,
		BasedOnVersion: r.BasedOnVersion, BaseSnapshot: r.BaseSnapshot}, lib)
}

// LocaleStatus is the status of id in one locale as served (drafts aside):
// builtin when no override is published, broken when its text no longer
// parses, drifted when DriftOf says so, user for a user module, else
// overridden.
func (v *View) LocaleStatus(id, locale string) Status {
	key := assembler.Key(id, locale)
	if _, ok := v.Rows.Get(key); !ok {
		return StatusBuiltin
	}
	if _, broken := v.Broken.Get(key); broken {
		return StatusBroken
	}
	switch {
	case v.Drift(id, locale).Drifted():
		return StatusDrifted
	case !v.Library.Has(id):
		return StatusUser
	}
	return StatusOverridden
}

// ModuleStatus sums a module up over its locales: drifted when any served
// override drifted, user when it has no builtin, overridden when any
// override serves, else builtin. Broken rows do not serve, so they do not
// count; they are reported on their own.
func (v *View) ModuleStatus(id string) Status {
	status := StatusBuiltin
	if !v.Library.Has(id) {
		status = StatusUser
	}
	for _, loc := range v.Locales(id) {
		switch v.LocaleStatus(id, loc) {
		case StatusDrifted:
			return StatusDrifted
		case StatusOverridden:
			status = StatusOverridden
		}
	}
	return status
}

// Modules returns every parsed module text of id, builtin and overrides.
func (v *View) Modules(id string) []*library.Module {
	var out []*library.Module
	for _, loc := range v.Locales(id) {
		if o, ok := v.State.Overrides.Get(assembler.Key(id, loc)); ok {
			out = append(out, o.Module)
		}
		if m, ok := v.Library.Module(id, loc); ok {
			out = append(out, m)
		}
	}
	return out
}

// Primary returns the module text whose shared fields (layer, version,
// title…) represent id, and where it comes from ("builtin en-US"): the
// text served for the fallback locale, else the first that exists.
func (v *View) Primary(a *assembler.Assembler, id string) (m *library.Module, from string, ok bool) {
	if s, ok := a.Resolve(v.Library, v.State, id, a.FallbackLocale()); ok {
		return s.Module, s.Source + " " + s.Locale, true
	}
	for _, loc := range v.Locales(id) {
		if o, ok := v.State.Overrides.Get(assembler.Key(id, loc)); ok {
			return o.Module, "override " + loc, true
		}
		if b, ok := v.Library.Module(id, loc); ok {
			return b, "builtin " + loc, true
		}
	}
	// A user module with only drafts: its draft text.
	for _, loc := range v.Locales(id) {
		if o, ok := v.WithDrafts.Overrides.Get(assembler.Key(id, loc)); ok {
			return o.Module, "draft " + loc, true
		}
	}
	return nil, "", false
}

// BuiltinBase returns the builtin text an override of id in locale is
// copied from: the builtin of that locale, else of the fallback locale,
// else of any locale. ok is false for a user module.
func (v *View) BuiltinBase(fallback, id, locale string) (*library.Module, bool) {
	if m, ok := v.Library.Module(id, locale); ok {
		return m, true
	}
	if m, ok := v.Library.Module(id, fallback); ok {
		return m, true
	}
	return v.Library.Any(id)
}

// storedID reports whether id has a stored override, published or draft,
// in any locale: an id a draft may include besides the library's.
func (v *View) storedID(id string) bool { return v.idx.has(id) }

// Published is v without its drafts: what the runtime API sees, so that
// an unpublished user module or locale does not exist for it.
func (v *View) Published() *View {
	p := *v
	p.Drafts, p.DraftBroken, p.WithDrafts = assembler.ByKey[domain.Override]{}, assembler.ByKey[error]{}, v.State
	p.idx = v.published
	p.listing = &listing{}
	return &p
}

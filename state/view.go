package state

import (
	"slices"
	"strings"

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
// pointer as State when there is none). Nothing in it may be modified.
type View struct {
	Library       *library.Snapshot
	LibraryBroken []reload.BrokenFile
	State         *assembler.State
	Rows          map[assembler.OverrideKey]domain.Override
	Broken        map[assembler.OverrideKey]error
	Drafts        map[assembler.OverrideKey]domain.Override
	DraftBroken   map[assembler.OverrideKey]error
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

	// What the View was composed of, to compose it again on a reloaded
	// library without the store.
	rows, drafts []domain.Override
	profiles     []domain.Profile

	// idx answers IDs, Exists and Locales without a pass over every
	// stored row per call: built with the drafts (all) and without them
	// (published, for Published).
	idx, published *index
	// texts is the Served's, shared by its Views; listing is built on the
	// first Listing (Published has a listing of its own).
	texts   *moduleTexts
	listing *listing
}

// index is the module ids and locales of a View, computed once when it is
// composed.
type index struct {
	ids     []string            // IDs
	locales map[string][]string // Locales of every id of ids
	stored  map[string]bool     // ids with a stored row (storedID)
}

// newIndex indexes the library's ids and locales with those of the
// stored rows of every set.
func newIndex(lib *library.Snapshot, sets ...map[assembler.OverrideKey]domain.Override) *index {
	byID := map[string][]domain.Override{}
	for _, rows := range sets {
		for _, r := range rows {
			byID[r.ModuleID] = append(byID[r.ModuleID], r)
		}
	}
	x := &index{ids: slices.Clone(lib.IDs()), locales: make(map[string][]string, len(lib.IDs())+len(byID)), stored: make(map[string]bool, len(byID))}
	for id := range byID {
		x.stored[id] = true
		if !lib.Has(id) {
			x.ids = append(x.ids, id)
		}
	}
	slices.Sort(x.ids)
	for _, id := range x.ids {
		locs := lib.ModuleLocales(id)
		// Map order varies: a locale saved twice in different spellings
		// (a draft and a published row) is spelled as the earlier key
		// sorts, the same on every compose.
		rows := byID[id]
		slices.SortFunc(rows, func(a, b domain.Override) int { return strings.Compare(a.Locale, b.Locale) })
		for _, r := range rows {
			if !slices.ContainsFunc(locs, func(l string) bool { return library.LocaleKey(l) == library.LocaleKey(r.Locale) }) {
				locs = append(locs, r.Locale)
			}
		}
		slices.SortFunc(locs, func(a, b string) int { return strings.Compare(library.LocaleKey(a), library.LocaleKey(b)) })
		x.locales[id] = locs
	}
	return x
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
	return v.Library.Has(id) || v.idx.stored[id]
}

// Head returns the newest state of the override of id in locale: its
// draft when there is one, else its published row.
func (v *View) Head(id, locale string) (domain.Override, bool) {
	key := assembler.Key(id, locale)
	if d, ok := v.Drafts[key]; ok {
		return d, true
	}
	r, ok := v.Rows[key]
	return r, ok
}

// HasDraft reports whether a draft is pending for id in locale.
func (v *View) HasDraft(id, locale string) bool {
	_, ok := v.Drafts[assembler.Key(id, locale)]
	return ok
}

// Locales lists the locales id exists in, builtin, override or draft,
// sorted; override locales are spelled as first saved. The slice is the
// View's: do not modify it.
func (v *View) Locales(id string) []string { return v.idx.locales[id] }

// Drift is the drift of the published override of id in locale
// (assembler.DriftOf against v's library); not drifted when there is
// none. A row that no longer parses is judged by its stored base.
func (v *View) Drift(id, locale string) assembler.Drift {
	key := assembler.Key(id, locale)
	if o, ok := v.State.Overrides[key]; ok {
		return assembler.DriftOf(o, v.Library)
	}
	if r, ok := v.Rows[key]; ok {
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
	if _, ok := v.Rows[key]; !ok {
		return StatusBuiltin
	}
	if _, broken := v.Broken[key]; broken {
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
		if o, ok := v.State.Overrides[assembler.Key(id, loc)]; ok {
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
		if o, ok := v.State.Overrides[assembler.Key(id, loc)]; ok {
			return o.Module, "override " + loc, true
		}
		if b, ok := v.Library.Module(id, loc); ok {
			return b, "builtin " + loc, true
		}
	}
	// A user module with only drafts: its draft text.
	for _, loc := range v.Locales(id) {
		if o, ok := v.WithDrafts.Overrides[assembler.Key(id, loc)]; ok {
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
func (v *View) storedID(id string) bool { return v.idx.stored[id] }

// Published is v without its drafts: what the runtime API sees, so that
// an unpublished user module or locale does not exist for it.
func (v *View) Published() *View {
	p := *v
	p.Drafts, p.DraftBroken, p.WithDrafts = nil, nil, v.State
	p.idx = v.published
	p.listing = &listing{}
	return &p
}

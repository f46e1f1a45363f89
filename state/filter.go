package state

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/weakcache"
)

// ModuleFilter selects the modules of a listing, the console's library
// page and GET /api/v1/modules alike: by Layer, by Locale (the module
// has text in it, compared case-insensitively), by Status (a module's
// Status, or StatusDraft for a module with a draft pending, in Locale
// when set) and by Q, a case-insensitive search of the id and of the
// title and description of every locale, builtin and override. Empty
// fields select everything.
type ModuleFilter struct {
	Layer, Locale, Status, Q string
}

// Active reports whether f selects anything less than every module.
func (f ModuleFilter) Active() bool { return f != ModuleFilter{} }

// FilterError is a ModuleFilter value that cannot select anything: Field
// names the filter field (layer, status). It matches library.ErrInvalid.
type FilterError struct {
	Field, Msg string
}

func (e *FilterError) Error() string { return e.Msg }

// Unwrap makes a FilterError match library.ErrInvalid.
func (e *FilterError) Unwrap() error { return library.ErrInvalid }

// Check returns a FilterError for an unknown layer or status.
func (f ModuleFilter) Check() error {
	if f.Layer != "" && !library.ValidLayer(library.Layer(f.Layer)) {
		return &FilterError{Field: "layer", Msg: fmt.Sprintf("unknown layer %q", f.Layer)}
	}
	if f.Status != "" && !slices.Contains(Statuses, Status(f.Status)) {
		names := make([]string, len(Statuses))
		for i, s := range Statuses {
			names[i] = string(s)
		}
		return &FilterError{Field: "status", Msg: fmt.Sprintf("unknown status %q (allowed: %s)", f.Status, strings.Join(names, ", "))}
	}
	return nil
}

// Matches reports whether module id, of layer, passes f in v. Drafts
// count as v has them: a View without drafts (Published) has none.
func (v *View) Matches(f ModuleFilter, layer library.Layer, id string) bool {
	if f.Layer != "" && string(layer) != f.Layer {
		return false
	}
	locales := v.Locales(id)
	inLocale := func(l string) bool { return f.Locale == "" || strings.EqualFold(l, f.Locale) }
	switch Status(f.Status) {
	case "":
	case StatusDraft:
		if !slices.ContainsFunc(locales, func(l string) bool { return v.HasDraft(id, l) && inLocale(l) }) {
			return false
		}
	default:
		if v.ModuleStatus(id) != Status(f.Status) {
			return false
		}
	}
	if f.Locale != "" && !slices.ContainsFunc(locales, inLocale) {
		return false
	}
	if f.Q == "" {
		return true
	}
	return matchesText(v.searchText(id), f.Q)
}

// matchesText reports whether q, case-insensitively, is in one of texts
// (as searchText gives them).
func matchesText(texts []searchable, q string) bool {
	q = strings.ToLower(q)
	need := byteSet(q)
	return slices.ContainsFunc(texts, func(t searchable) bool {
		// A text lacking a byte of q cannot hold it: most texts are
		// skipped without a scan (English ones for a Chinese query, and
		// the other way round).
		return t.bytes.and(need) == need && strings.Contains(t.text, q)
	})
}

// searchable is a lower-case text a search reads, with the set of its
// bytes.
type searchable struct {
	text  string
	bytes bitset
}

// bitset is a set of bytes.
type bitset [4]uint64

func byteSet(s string) bitset {
	var b bitset
	for i := 0; i < len(s); i++ {
		b[s[i]/64] |= 1 << (s[i] % 64)
	}
	return b
}

func (b bitset) and(c bitset) bitset {
	return bitset{b[0] & c[0], b[1] & c[1], b[2] & c[2], b[3] & c[3]}
}

// searchText is the lower-case text a search for id reads: the id, then
// the title and the description of every text of Modules, each on its
// own so that no match spans the two.
func (v *View) searchText(id string) []searchable {
	ms := v.Modules(id)
	out := make([]searchable, 0, 1+2*len(ms))
	lid := strings.ToLower(id)
	out = append(out, searchable{lid, byteSet(lid)})
	for _, m := range ms {
		out = append(out, v.texts.lower(m)...)
	}
	return out
}

// moduleTexts keeps the lower-cased title and description of each module
// text (searchText) for as long as the module lives: lower-casing them
// anew for each View would cost every first search after a change
// hundreds of milliseconds at 10,000 modules, and the texts of a library
// and of the parsed overrides outlive many Views.
type moduleTexts struct {
	m sync.Map // weak.Pointer[library.Module] → [2]searchable
}

// lower is m's title and description, lower case. Each is lowered on its
// own: a text without upper case (Chinese, Japanese, Korean) is then the
// module's own string, not a copy, which at 10,000 modules is most of
// the bytes.
func (c *moduleTexts) lower(m *library.Module) []searchable {
	key := weak.Make(m)
	if t, ok := c.m.Load(key); ok {
		return t.(*[2]searchable)[:]
	}
	title, desc := strings.ToLower(m.Title), strings.ToLower(m.Description)
	t := &[2]searchable{{title, byteSet(title)}, {desc, byteSet(desc)}}
	weakcache.Store(m, &c.m, key, t)
	return t[:]
}

// Profiles returns the stored profiles the View serves, ordered by id.
// The slice is the View's: do not modify it.
func (v *View) Profiles() []domain.Profile { return v.profiles }

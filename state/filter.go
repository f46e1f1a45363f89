package state

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
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
	return strings.Contains(v.searchText(id), strings.ToLower(f.Q))
}

// searchTexts holds, per module id, the lowercase text a search reads:
// the id and the title and description of every text of Modules, each
// ended by a NUL so that a search never matches across two of them. It is
// built on the first search of a View, once, not per request: a View is
// immutable, and a search at 10,000 modules would otherwise lower-case
// megabytes each time. Published shares its View's, since Modules does
// not read drafts.
type searchTexts struct {
	once sync.Once
	text map[string]string
}

// searchText is the lowercase text a search for id reads (searchTexts).
func (v *View) searchText(id string) string {
	v.search.once.Do(func() {
		v.search.text = make(map[string]string, len(v.idx.ids))
		var b strings.Builder
		for _, id := range v.idx.ids {
			b.Reset()
			b.WriteString(id)
			b.WriteByte(0)
			for _, m := range v.Modules(id) {
				b.WriteString(m.Title)
				b.WriteByte(0)
				b.WriteString(m.Description)
				b.WriteByte(0)
			}
			v.search.text[id] = strings.ToLower(b.String())
		}
	})
	return v.search.text[id]
}

// Profiles returns the stored profiles the View serves, ordered by id.
// The slice is the View's: do not modify it.
func (v *View) Profiles() []domain.Profile { return v.profiles }

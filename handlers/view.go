package handlers

import (
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/views/components"
)

// ids returns every builtin module id and every user-module id (overrides
// without a builtin, published or draft, parsed or not), sorted.
func (v *View) ids() []string {
	ids := slices.Clone(v.Library.IDs())
	for _, rows := range []map[assembler.OverrideKey]store.Override{v.Rows, v.Drafts} {
		for key := range rows {
			if !v.Library.Has(key.ID) && !slices.Contains(ids, key.ID) {
				ids = append(ids, key.ID)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// exists reports whether id is a builtin module or a user module, a user
// module with only a draft included.
func (v *View) exists(id string) bool {
	if v.Library.Has(id) {
		return true
	}
	for _, rows := range []map[assembler.OverrideKey]store.Override{v.Rows, v.Drafts} {
		for key := range rows {
			if key.ID == id {
				return true
			}
		}
	}
	return false
}

// head returns the newest state of the override of id in locale: its
// draft when there is one, else its published row.
func (v *View) head(id, locale string) (store.Override, bool) {
	key := assembler.Key(id, locale)
	if d, ok := v.Drafts[key]; ok {
		return d, true
	}
	r, ok := v.Rows[key]
	return r, ok
}

// hasDraft reports whether a draft is pending for id in locale.
func (v *View) hasDraft(id, locale string) bool {
	_, ok := v.Drafts[assembler.Key(id, locale)]
	return ok
}

// locales lists the locales id exists in, builtin, override or draft,
// sorted; override locales are spelled as first saved.
func (v *View) locales(id string) []string {
	locs := v.Library.ModuleLocales(id)
	for _, rows := range []map[assembler.OverrideKey]store.Override{v.Rows, v.Drafts} {
		for key, r := range rows {
			if key.ID != id {
				continue
			}
			if !slices.ContainsFunc(locs, func(l string) bool { return library.LocaleKey(l) == key.Locale }) {
				locs = append(locs, r.Locale)
			}
		}
	}
	slices.SortFunc(locs, func(a, b string) int { return strings.Compare(library.LocaleKey(a), library.LocaleKey(b)) })
	return locs
}

// localeStatus is the status of id in one locale (components.Status*):
// builtin when no override exists, broken when the override text no longer
// parses, else user, drifted or overridden (S2).
func (v *View) localeStatus(id, locale string) string {
	key := assembler.Key(id, locale)
	if _, ok := v.Rows[key]; !ok {
		return components.StatusBuiltin
	}
	if _, broken := v.Broken[key]; broken {
		return components.StatusBroken
	}
	switch {
	case !v.Library.Has(id):
		return components.StatusUser
	case v.State.Overrides[key].Drifted(v.Library):
		return components.StatusDrifted
	}
	return components.StatusOverridden
}

// moduleStatus sums up a module over its locales: user when it has no
// builtin, drifted when any served override drifted, overridden when any
// override serves, else builtin. Broken rows do not serve, so they do not
// count; they are reported on their own.
func (v *View) moduleStatus(id string) string {
	if !v.Library.Has(id) {
		return components.StatusUser
	}
	status := components.StatusBuiltin
	for _, loc := range v.locales(id) {
		switch v.localeStatus(id, loc) {
		case components.StatusDrifted:
			return components.StatusDrifted
		case components.StatusOverridden:
			status = components.StatusOverridden
		}
	}
	return status
}

// modules returns every parsed module text of id, builtin and overrides.
func (v *View) modules(id string) []*library.Module {
	var out []*library.Module
	for _, loc := range v.locales(id) {
		if o, ok := v.State.Overrides[assembler.Key(id, loc)]; ok {
			out = append(out, o.Module)
		}
		if m, ok := v.Library.Module(id, loc); ok {
			out = append(out, m)
		}
	}
	return out
}

// primary returns the module text whose shared fields (layer, version,
// title…) represent id, and where it comes from ("builtin en-US"): the
// text served for the fallback locale, else the first that exists.
func (v *View) primary(a *assembler.Assembler, id string) (m *library.Module, from string, ok bool) {
	if s, ok := a.Resolve(v.Library, v.State, id, a.FallbackLocale()); ok {
		return s.Module, s.Source + " " + s.Locale, true
	}
	for _, loc := range v.locales(id) {
		if o, ok := v.State.Overrides[assembler.Key(id, loc)]; ok {
			return o.Module, "override " + loc, true
		}
		if b, ok := v.Library.Module(id, loc); ok {
			return b, "builtin " + loc, true
		}
	}
	// A user module with only drafts: its draft text.
	for _, loc := range v.locales(id) {
		if o, ok := v.WithDrafts.Overrides[assembler.Key(id, loc)]; ok {
			return o.Module, "draft " + loc, true
		}
	}
	return nil, "", false
}

// builtinBase returns the builtin text an override of id in locale starts
// from: the builtin of that locale, else of the fallback locale, else of
// any locale. ok is false for a user module.
func (v *View) builtinBase(a *assembler.Assembler, id, locale string) (*library.Module, bool) {
	if m, ok := v.Library.Module(id, locale); ok {
		return m, true
	}
	if m, ok := v.Library.Module(id, a.FallbackLocale()); ok {
		return m, true
	}
	return v.Library.Any(id)
}

// Published is v without its drafts: what the runtime API sees, so that
// an unpublished user module or locale does not exist for it.
func (v *View) Published() *View {
	p := *v
	p.Drafts, p.DraftBroken, p.WithDrafts = nil, nil, v.State
	return &p
}

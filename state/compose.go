package state

import (
	"fmt"
	"maps"
	"slices"

	iradix "github.com/hashicorp/go-immutable-radix/v2"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
)

// compose builds the View of the operator state on lib from scratch, with
// no ServedGeneration yet (swap gives it one); the caller holds s.mu. An
// override whose text no longer parses, or uses a placeholder that is
// neither a variable, an environment value, a library module nor a
// stored override's id, is kept in Broken (DraftBroken for a draft) and
// not served: the builtin serves instead of an override that would fail
// every assembly. Texts are parsed once (s.parsed); the placeholders of
// every override are checked again, since they depend on the library and
// on which ids are stored. A change of one key composes from the last
// View instead (withKey).
func (s *Served) compose(lib *reload.State, rows, drafts []domain.Override, profiles []domain.Profile) *View {
	prev := s.cur.Load()
	v := &View{
		Generation:    s.gen.Add(1),
		Library:       lib.Snapshot,
		LibraryBroken: lib.Broken,
		profiles:      profiles,
		texts:         s.texts,
		listing:       &listing{},
	}
	// A published override may include another published override's id; a
	// draft may also include a draft's.
	published, any := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		published[r.ModuleID], any[r.ModuleID] = true, true
	}
	for _, r := range drafts {
		any[r.ModuleID] = true
	}
	parsed := make(map[parseKey]parsedRow, len(rows)+len(drafts))
	defer func() { s.parsed = parsed }()
	deps := iradix.New[dep]().Txn()
	check := func(r domain.Override, draft bool, stored map[string]bool) (*assembler.Override, error) {
		o, err := s.parse(r, parsed)
		if err != nil {
			return nil, err
		}
		addDeps(deps, o.Module, draft, assembler.Key(r.ModuleID, r.Locale))
		return o, fits(lib.Snapshot, o, func(id string) bool { return stored[id] })
	}
	rowsBy := make(map[assembler.OverrideKey]domain.Override, len(rows))
	served := make(map[assembler.OverrideKey]*assembler.Override, len(rows))
	broken := map[assembler.OverrideKey]error{}
	for _, r := range rows {
		key := assembler.Key(r.ModuleID, r.Locale)
		rowsBy[key] = r
		ov, err := check(r, false, published)
		if err != nil {
			s.logBroken(prev, key, r, err)
			broken[key] = err
			continue
		}
		served[key] = ov
	}
	draftsBy := make(map[assembler.OverrideKey]domain.Override, len(drafts))
	draftBroken := map[assembler.OverrideKey]error{}
	var withDrafts map[assembler.OverrideKey]*assembler.Override
	for _, r := range drafts {
		key := assembler.Key(r.ModuleID, r.Locale)
		draftsBy[key] = r
		ov, err := check(r, true, any)
		if err != nil {
			draftBroken[key] = err
			continue
		}
		if withDrafts == nil {
			withDrafts = maps.Clone(served)
		}
		withDrafts[key] = ov
	}
	v.Rows, v.Broken = assembler.CollectByKey(maps.All(rowsBy)), assembler.CollectByKey(maps.All(broken))
	v.Drafts, v.DraftBroken = assembler.CollectByKey(maps.All(draftsBy)), assembler.CollectByKey(maps.All(draftBroken))
	v.State = &assembler.State{Overrides: assembler.CollectByKey(maps.All(served)), Profiles: profileMap(profiles)}
	v.WithDrafts = v.State
	if withDrafts != nil {
		v.WithDrafts = &assembler.State{Overrides: assembler.CollectByKey(maps.All(withDrafts)), Profiles: v.State.Profiles}
	}
	v.deps = deps.CommitOnly()
	libLocs := libraryLocales(lib.Snapshot)
	if prev != nil && prev.Library == lib.Snapshot {
		libLocs = prev.idx.lib
	}
	v.idx = newIndex(lib.Snapshot, libLocs, v.Rows, v.Drafts)
	v.published = v.idx
	if v.Drafts.Len() > 0 {
		v.published = newIndex(lib.Snapshot, libLocs, v.Rows)
	}
	return v
}

// withKey composes the View of cur with the published row and the draft
// of key replaced by pub and draft (nil: none), on cur's library; the
// caller holds s.mu. Only key's row and draft are parsed and checked,
// and, when key's id starts or stops being stored, the rows and drafts
// whose text names that id (whether they fit depends on it); everything
// else is shared with cur, so the cost does not grow with the number of
// overrides. The View is the one compose would build from the same rows.
// touched are the keys whose served or draft override may differ from
// cur's.
func (s *Served) withKey(lib *reload.State, cur *View, key assembler.OverrideKey, pub, draft *domain.Override) (next *View, touched []assembler.OverrideKey) {
	v := *cur
	v.Generation, v.LibraryBroken = s.gen.Add(1), lib.Broken
	if s.parsed == nil {
		s.parsed = map[parseKey]parsedRow{}
	}
	deps := cur.deps.Txn()
	// What the old row and draft named no longer counts; their parses are
	// kept only for a revision that stays (a publish serves the draft's).
	keep := map[int]bool{}
	for _, r := range []*domain.Override{pub, draft} {
		if r != nil {
			keep[r.Revision] = true
		}
	}
	forget := func(r domain.Override, isDraft bool) {
		k := parseKeyOf(r)
		if p, ok := s.parsed[k]; ok && p.o != nil {
			dropDeps(deps, p.o.Module, isDraft, key)
		}
		if !keep[r.Revision] {
			delete(s.parsed, k)
		}
	}
	if r, ok := cur.Rows.Get(key); ok {
		forget(r, false)
	}
	if r, ok := cur.Drafts.Get(key); ok {
		forget(r, true)
	}
	v.Rows, v.Drafts = v.Rows.Without(key), v.Drafts.Without(key)
	if pub != nil {
		v.Rows = v.Rows.With(key, *pub)
	}
	if draft != nil {
		v.Drafts = v.Drafts.With(key, *draft)
	}
	check := func(r domain.Override, isDraft bool, stored func(string) bool) (*assembler.Override, error) {
		o, err := s.parse(r, s.parsed)
		if err != nil {
			return nil, err
		}
		if assembler.Key(r.ModuleID, r.Locale) == key {
			addDeps(deps, o.Module, isDraft, key)
		}
		return o, fits(lib.Snapshot, o, stored)
	}
	storedPub := v.Rows.HasID
	storedAny := func(id string) bool { return v.Rows.HasID(id) || v.Drafts.HasID(id) }
	rowKeys, draftKeys := []assembler.OverrideKey{key}, []assembler.OverrideKey{key}
	if cur.Rows.HasID(key.ID) != v.Rows.HasID(key.ID) {
		rowKeys = append(rowKeys, dependents(deps.Root(), key.ID, false)...)
	}
	if cur.idx.has(key.ID) != storedAny(key.ID) {
		draftKeys = append(draftKeys, dependents(deps.Root(), key.ID, true)...)
	}
	rowKeys, draftKeys = unique(rowKeys), unique(draftKeys)

	overrides, broken := cur.State.Overrides, cur.Broken
	for _, k := range rowKeys {
		r, ok := v.Rows.Get(k)
		if !ok {
			overrides, broken = overrides.Without(k), broken.Without(k)
			continue
		}
		o, err := check(r, false, storedPub)
		if err != nil {
			s.logBroken(cur, k, r, err)
			overrides, broken = overrides.Without(k), broken.With(k, err)
			continue
		}
		overrides, broken = overrides.With(k, o), broken.Without(k)
	}
	draftBroken := cur.DraftBroken
	parsedDrafts := map[assembler.OverrideKey]*assembler.Override{}
	rechecked := map[assembler.OverrideKey]bool{}
	for _, k := range draftKeys {
		rechecked[k] = true
		r, ok := v.Drafts.Get(k)
		if !ok {
			draftBroken = draftBroken.Without(k)
			continue
		}
		o, err := check(r, true, storedAny)
		if err != nil {
			draftBroken = draftBroken.With(k, err)
			continue
		}
		draftBroken, parsedDrafts[k] = draftBroken.Without(k), o
	}
	// WithDrafts: a key's parsed draft, else what serves.
	touched = unique(append(slices.Clone(rowKeys), draftKeys...))
	withDrafts := cur.WithDrafts.Overrides
	for _, k := range touched {
		if o, ok := parsedDrafts[k]; ok {
			withDrafts = withDrafts.With(k, o)
			continue
		}
		if _, ok := v.Drafts.Get(k); ok && !rechecked[k] {
			if _, bad := draftBroken.Get(k); !bad {
				continue // its draft, unchanged, is there already
			}
		}
		if o, ok := overrides.Get(k); ok {
			withDrafts = withDrafts.With(k, o)
		} else {
			withDrafts = withDrafts.Without(k)
		}
	}
	v.State = &assembler.State{Overrides: overrides, Profiles: cur.State.Profiles}
	v.Broken, v.DraftBroken = broken, draftBroken
	v.WithDrafts = v.State
	if v.Drafts.Len() > v.DraftBroken.Len() {
		v.WithDrafts = &assembler.State{Overrides: withDrafts, Profiles: v.State.Profiles}
	}
	v.deps = deps.CommitOnly()
	v.idx = cur.idx.with(lib.Snapshot, key.ID, v.Rows, v.Drafts)
	v.published = cur.published.with(lib.Snapshot, key.ID, v.Rows)
	v.listing = nextListing(cur, touched)
	return &v, touched
}

// withProfiles composes the View of cur with profiles instead of its
// own, on cur's library; the overrides are shared with cur.
func (s *Served) withProfiles(lib *reload.State, cur *View, profiles []domain.Profile) *View {
	v := *cur
	v.Generation, v.LibraryBroken, v.listing, v.profiles = s.gen.Add(1), lib.Broken, nextListing(cur, nil), profiles
	v.State = &assembler.State{Overrides: cur.State.Overrides, Profiles: profileMap(profiles)}
	v.WithDrafts = v.State
	if cur.WithDrafts != cur.State {
		v.WithDrafts = &assembler.State{Overrides: cur.WithDrafts.Overrides, Profiles: v.State.Profiles}
	}
	return &v
}

// profileMap is the assembler's map of profiles, each a copy: the
// assembler must not share the slices of the View's rows.
func profileMap(profiles []domain.Profile) map[string]*domain.Profile {
	out := make(map[string]*domain.Profile, len(profiles))
	for _, p := range profiles {
		p.PromptModules = slices.Clone(p.PromptModules)
		out[p.ID] = &p
	}
	return out
}

// logBroken logs that the row r of key stops serving for err, unless it
// did not serve in prev (nil: none) already at the same revision: it is
// logged when it stops serving, not again on every change.
func (s *Served) logBroken(prev *View, key assembler.OverrideKey, r domain.Override, err error) {
	if prev != nil {
		_, was := prev.Broken.Get(key)
		if old, _ := prev.Rows.Get(key); was && old.Revision == r.Revision {
			return
		}
	}
	s.log.Warn("override not served", "module", r.ModuleID, "locale", r.Locale, "revision", r.Revision, "err", err)
}

// parse returns the parse of r, from s.parsed when it is there, and puts
// it in keep (s.parsed itself, or the map that replaces it).
func (s *Served) parse(r domain.Override, keep map[parseKey]parsedRow) (*assembler.Override, error) {
	k := parseKeyOf(r)
	p, ok := s.parsed[k]
	if !ok || !p.parses(r) {
		p = parsedRow{row: r}
		p.o, p.err = parseOverride(r)
	}
	keep[k] = p
	return p.o, p.err
}

// fits checks that every placeholder of o is a variable, an environment
// value, a module of lib or an id stored says is stored.
func fits(lib *library.Snapshot, o *assembler.Override, stored func(string) bool) error {
	if err := lib.CheckPlaceholdersWith(o.Module, stored); err != nil {
		return fmt.Errorf("it no longer fits the library: %w", err)
	}
	return nil
}

// dep is a stored row of key, or its draft, whose text names a
// placeholder: an entry of View.deps.
type dep struct {
	key   assembler.OverrideKey
	draft bool
}

// depPrefix is where the deps naming name, of drafts or of rows, are
// kept: the name, a zero byte, the kind, a zero byte, then the key.
func depPrefix(name string, draft bool) []byte {
	kind := byte('r')
	if draft {
		kind = 'd'
	}
	return append([]byte(name), 0, kind, 0)
}

func depPath(name string, draft bool, key assembler.OverrideKey) []byte {
	return append(append(append(depPrefix(name, draft), key.ID...), 0), key.Locale...)
}

// addDeps records that the row (or draft) of key names each placeholder
// of m.
func addDeps(deps *iradix.Txn[dep], m *library.Module, draft bool, key assembler.OverrideKey) {
	for _, p := range m.Placeholders {
		deps.Insert(depPath(p.Name, draft, key), dep{key, draft})
	}
}

// dropDeps forgets what addDeps recorded of m.
func dropDeps(deps *iradix.Txn[dep], m *library.Module, draft bool, key assembler.OverrideKey) {
	for _, p := range m.Placeholders {
		deps.Delete(depPath(p.Name, draft, key))
	}
}

// dependents lists the keys whose row (or draft) names id, in key order.
func dependents(deps *iradix.Node[dep], id string, draft bool) []assembler.OverrideKey {
	var out []assembler.OverrideKey
	deps.WalkPrefix(depPrefix(id, draft), func(_ []byte, d dep) bool {
		out = append(out, d.key)
		return false
	})
	return out
}

// unique is keys without repeats, in first-seen order.
func unique(keys []assembler.OverrideKey) []assembler.OverrideKey {
	seen := make(map[assembler.OverrideKey]bool, len(keys))
	out := keys[:0:0]
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

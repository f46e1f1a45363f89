package state

import (
	"cmp"
	"context"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
)

// What a ServedChange is about.
const (
	ChangeOverride = "override" // a published override
	ChangeProfile  = "profile"  // a profile
	ChangeLibrary  = "library"  // the library (a reloaded library folder)
)

// ServedChange actions.
const (
	ActionPublished = "published" // an override revision serves now (Revision)
	ActionRemoved   = "removed"   // no override serves any more: the builtin does, or the user module's locale is gone
	ActionDrifted   = "drifted"   // the override's builtin moved on under it
	ActionCreated   = "created"   // a profile or library module appeared
	ActionUpdated   = "updated"   // a profile or library module changed
	ActionDeleted   = "deleted"   // a profile or library module is gone
	ActionReloaded  = "reloaded"  // the library reloaded without a module text changing (labels, broken files)
)

// ServedChange is one change of what the runtime API serves, as the change
// feed reports it: the Generation it made, what it is about (Subject:
// ChangeOverride, ChangeProfile, ChangeLibrary), the module or profile ID
// ("" for a library reload), the Locale of an override or library module,
// the Action, and the override's Revision for ActionPublished.
type ServedChange struct {
	Generation int64  `json:"generation"`
	Subject    string `json:"subject"`
	ID         string `json:"id"`
	Locale     string `json:"locale,omitempty"`
	Action     string `json:"action"`
	Revision   int    `json:"revision,omitempty"`
}

// maxChanges is how many changes the feed keeps; a client further behind
// is told to reload everything (ChangesSince's reset).
const maxChanges = 1024

// feed is the recent changes of a Served and the channel that wakes
// waiting readers.
type feed struct {
	mu      sync.Mutex
	changes []ServedChange
	// dropped is the generation of the newest change no longer kept, or
	// the first generation while every change is kept.
	dropped int64
	wake    chan struct{}
}

// record adds changes and wakes the waiting readers.
func (f *feed) record(changes []ServedChange) {
	if len(changes) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = append(f.changes, changes...)
	if over := len(f.changes) - maxChanges; over > 0 {
		f.dropped = f.changes[over-1].Generation
		f.changes = slices.Clone(f.changes[over:])
	}
	if f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

// ChangesSince returns the changes of what the runtime API serves after
// generation since, oldest first, and the current ServedGeneration. When there
// are none yet it waits up to wait (or until ctx ends) for the next one.
// reset is true when since is not a generation this process can answer
// from (older than the changes it keeps or than its opening, as a
// generation from before a restart is, or newer than its own): the
// client should read everything again from generation.
func (s *Served) ChangesSince(ctx context.Context, since int64, wait time.Duration) (changes []ServedChange, generation int64, reset bool) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		f := &s.feed
		f.mu.Lock()
		gen := s.Current().ServedGeneration
		if since > gen || since < f.dropped {
			f.mu.Unlock()
			return []ServedChange{}, gen, true
		}
		i, _ := slices.BinarySearchFunc(f.changes, since+1, func(c ServedChange, g int64) int { return int(c.Generation - g) })
		out := slices.Clone(f.changes[i:])
		if len(out) > 0 || wait <= 0 {
			f.mu.Unlock()
			if out == nil {
				out = []ServedChange{}
			}
			return out, gen, false
		}
		if f.wake == nil {
			f.wake = make(chan struct{})
		}
		wake := f.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-timer.C:
			wait = 0
		case <-ctx.Done():
			wait = 0
		}
	}
}

// diff lists what changed for the runtime API from old to v (v's
// ServedGeneration on each): the published overrides served, their drift, the
// profiles and the library's module texts. Every override key is compared
// when every is set; else only touched, the keys whose override may
// differ (the others are shared with old, on the same library).
func diff(old, v *View, touched []assembler.OverrideKey, every bool) []ServedChange {
	var out []ServedChange
	add := func(c ServedChange) {
		c.Generation = v.ServedGeneration
		out = append(out, c)
	}
	// Overrides, by what serves: a row that does not parse serves nothing.
	// The same parse on the same library changed in nothing, so only the
	// other keys are sorted and judged.
	var keys []assembler.OverrideKey
	changed := func(k assembler.OverrideKey) bool {
		was, _ := old.State.Overrides.Get(k)
		now, _ := v.State.Overrides.Get(k)
		return was != now || was != nil && old.Library != v.Library
	}
	if every {
		for k := range old.State.Overrides.All() {
			if changed(k) {
				keys = append(keys, k)
			}
		}
		for k := range v.State.Overrides.All() {
			if _, was := old.State.Overrides.Get(k); !was {
				keys = append(keys, k)
			}
		}
	} else {
		for _, k := range touched {
			if changed(k) {
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, func(a, b assembler.OverrideKey) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Locale, b.Locale))
	})
	for _, k := range keys {
		was, _ := old.State.Overrides.Get(k)
		now, _ := v.State.Overrides.Get(k)
		switch {
		case now == nil:
			add(ServedChange{Subject: ChangeOverride, ID: k.ID, Locale: was.Locale, Action: ActionRemoved})
		case was == nil || was.Revision != now.Revision:
			add(ServedChange{Subject: ChangeOverride, ID: k.ID, Locale: now.Locale, Action: ActionPublished, Revision: now.Revision})
		case !assembler.DriftOf(was, old.Library).Drifted() && assembler.DriftOf(now, v.Library).Drifted():
			add(ServedChange{Subject: ChangeOverride, ID: k.ID, Locale: now.Locale, Action: ActionDrifted, Revision: now.Revision})
		}
	}
	// Profiles.
	before := map[string]domain.Profile{}
	for _, p := range old.profiles {
		before[p.ID] = p
	}
	for _, p := range v.profiles {
		b, ok := before[p.ID]
		delete(before, p.ID)
		switch {
		case !ok:
			add(ServedChange{Subject: ChangeProfile, ID: p.ID, Action: ActionCreated})
		case !sameProfile(b, p):
			add(ServedChange{Subject: ChangeProfile, ID: p.ID, Action: ActionUpdated})
		}
	}
	for _, id := range sortedKeys(before) {
		add(ServedChange{Subject: ChangeProfile, ID: id, Action: ActionDeleted})
	}
	// The library's module texts.
	if old.Library != v.Library {
		n := len(out)
		ids := map[string]bool{}
		for _, id := range old.Library.IDs() {
			ids[id] = true
		}
		for _, id := range v.Library.IDs() {
			ids[id] = true
		}
		for _, id := range sortedKeys(ids) {
			locales := map[string]bool{}
			for _, l := range old.Library.ModuleLocales(id) {
				locales[l] = true
			}
			for _, l := range v.Library.ModuleLocales(id) {
				locales[l] = true
			}
			for _, l := range sortedKeys(locales) {
				was, wok := old.Library.Module(id, l)
				now, nok := v.Library.Module(id, l)
				switch {
				case !wok && nok:
					add(ServedChange{Subject: ChangeLibrary, ID: id, Locale: l, Action: ActionCreated})
				case wok && !nok:
					add(ServedChange{Subject: ChangeLibrary, ID: id, Locale: l, Action: ActionDeleted})
				case wok && nok && was.Text != now.Text:
					add(ServedChange{Subject: ChangeLibrary, ID: id, Locale: l, Action: ActionUpdated})
				}
			}
		}
		if len(out) == n {
			add(ServedChange{Subject: ChangeLibrary, Action: ActionReloaded})
		}
	}
	return out
}

// sameProfile reports whether two stored profiles serve the same; when
// they were saved does not count.
func sameProfile(a, b domain.Profile) bool {
	a.UpdatedAt, b.UpdatedAt = time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

// swap makes v the current View (the caller holds s.mu). v's
// ServedGeneration is the current one's when nothing the runtime API
// serves changed, else one more, and the changes go to the feed. touched
// and every say which override keys to compare (diff).
func (s *Served) swap(v *View, touched []assembler.OverrideKey, every bool) {
	old := s.cur.Load()
	if old == nil {
		// The first generation is the time of opening in microseconds,
		// so a later process life numbers above every generation of an
		// earlier one, and ChangesSince tells a client from before a
		// restart to read everything again.
		v.ServedGeneration = time.Now().UnixMicro()
		s.feed.mu.Lock()
		s.feed.dropped = v.ServedGeneration
		s.feed.mu.Unlock()
		s.cur.Store(v)
		return
	}
	v.ServedGeneration = old.ServedGeneration + 1
	changes := diff(old, v, touched, every)
	if len(changes) == 0 {
		v.ServedGeneration = old.ServedGeneration
	}
	s.cur.Store(v)
	s.feed.record(changes)
}

// sortedKeys returns m's keys in order.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}

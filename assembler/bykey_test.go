package assembler_test

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
)

// TestByKeyAgainstMap applies random sets and deletes to a ByKey and to a
// Go map, and checks after each that the ByKey reads as the map does,
// lists in key order, finds the keys of one id (including ids that are a
// prefix of others), and that the ByKey before the change still reads as
// the map did.
func TestByKeyAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := []string{"a", "a.b", "a.bc", "task.x", "task.xy", "aux.user-1"}
	locales := []string{"en-us", "de-de", "ja-jp", "en"}
	var m assembler.ByKey[int]
	want := map[assembler.OverrideKey]int{}
	for step := range 2000 {
		k := assembler.OverrideKey{ID: ids[rng.IntN(len(ids))], Locale: locales[rng.IntN(len(locales))]}
		before, wantBefore := m, maps.Clone(want)
		if rng.IntN(3) == 0 {
			m = m.Without(k)
			delete(want, k)
		} else {
			m = m.With(k, step)
			want[k] = step
		}
		checkByKey(t, m, want)
		checkByKey(t, before, wantBefore)
		if t.Failed() {
			t.Fatalf("step %d (%v)", step, k)
		}
	}
	if got := assembler.CollectByKey(maps.All(want)); !slices.Equal(keysOf(got), keysOf(m)) {
		t.Errorf("CollectByKey lists %v, want %v", keysOf(got), keysOf(m))
	}
}

func checkByKey(t *testing.T, m assembler.ByKey[int], want map[assembler.OverrideKey]int) {
	t.Helper()
	if m.Len() != len(want) {
		t.Errorf("Len %d, want %d", m.Len(), len(want))
	}
	for k, v := range want {
		if got, ok := m.Get(k); !ok || got != v {
			t.Errorf("Get(%v) = %d, %v; want %d", k, got, ok, v)
		}
	}
	if _, ok := m.Get(assembler.OverrideKey{ID: "a", Locale: "fr"}); ok {
		t.Errorf("Get of a key never set found one")
	}
	sorted := slices.SortedFunc(maps.Keys(want), func(a, b assembler.OverrideKey) int {
		return cmp.Or(strings.Compare(a.ID, b.ID), strings.Compare(a.Locale, b.Locale))
	})
	if got := keysOf(m); !slices.Equal(got, sorted) {
		t.Errorf("All lists %v, want %v", got, sorted)
	}
	for _, id := range []string{"a", "a.b", "task.x", "task", "zzz"} {
		var wantID []assembler.OverrideKey
		for _, k := range sorted {
			if k.ID == id {
				wantID = append(wantID, k)
			}
		}
		var got []assembler.OverrideKey
		for k, v := range m.ID(id) {
			if v != want[k] {
				t.Errorf("ID(%q) gives %v = %d, want %d", id, k, v, want[k])
			}
			got = append(got, k)
		}
		if !slices.Equal(got, wantID) {
			t.Errorf("ID(%q) lists %v, want %v", id, got, wantID)
		}
		if m.HasID(id) != (len(wantID) > 0) {
			t.Errorf("HasID(%q) = %v", id, m.HasID(id))
		}
	}
}

func keysOf(m assembler.ByKey[int]) []assembler.OverrideKey {
	var out []assembler.OverrideKey
	for k := range m.All() {
		out = append(out, k)
	}
	return out
}

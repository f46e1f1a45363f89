package librarytest_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/librarytest"
)

// The large library loads, has the size asked, nine in ten of its ids are
// task modules with an intent and a command trigger, descriptions are
// 100–1,000 characters, every locale is present, and generating it twice
// gives the same files.
func TestLargeLibrary(t *testing.T) {
	snap, err := librarytest.Library(librarytest.Large)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(snap.IDs()); got != librarytest.Large {
		t.Fatalf("%d ids, want %d", got, librarytest.Large)
	}
	for _, loc := range librarytest.Locales {
		if !slices.Contains(snap.Locales(), loc) {
			t.Errorf("no module in %s", loc)
		}
	}
	tasks, withTriggers := 0, 0
	for _, id := range snap.IDs() {
		m, _ := snap.Any(id)
		if m.Layer != library.LayerTask {
			continue
		}
		tasks++
		kinds := map[library.TriggerKind]bool{}
		for _, tr := range m.Triggers {
			kinds[tr.Kind] = true
		}
		if kinds[library.TriggerIntent] && kinds[library.TriggerCommand] {
			withTriggers++
		}
	}
	if tasks < librarytest.Large*88/100 || tasks > librarytest.Large*92/100 {
		t.Errorf("%d task modules of %d, want about 90 %%", tasks, librarytest.Large)
	}
	if withTriggers < tasks-10 {
		t.Errorf("%d of %d task modules have intent and command triggers", withTriggers, tasks)
	}
	for n := range 2000 {
		for _, loc := range librarytest.ModuleLocales(n) {
			if l := utf8.RuneCountInString(librarytest.Description(n, loc)); l < 100 || l > 1000 {
				t.Errorf("module %d (%s): description of %d characters", n, loc, l)
			}
		}
	}
	a, _ := librarytest.FS(2000)
	b, _ := librarytest.FS(2000)
	for p, f := range a {
		if string(b[p].Data) != string(f.Data) {
			t.Fatalf("%s differs between two generations", p)
		}
	}
}

// A written library is an operator's folder: LoadDir reads back every
// generated file, with the same ids and locales as the library loaded
// from FS.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	const size = 300
	if err := librarytest.Write(dir, size); err != nil {
		t.Fatal(err)
	}
	got, err := library.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := librarytest.Library(size)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.IDs(), want.IDs()) || !slices.Equal(got.Locales(), want.Locales()) || len(got.IDs()) != size {
		t.Errorf("written folder: %d ids in %v, want %d in %v", len(got.IDs()), got.Locales(), len(want.IDs()), want.Locales())
	}
	fsys, _ := librarytest.FS(size)
	for p, f := range fsys {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || string(data) != string(f.Data) {
			t.Fatalf("%s: written differently (%v)", p, err)
		}
	}
}

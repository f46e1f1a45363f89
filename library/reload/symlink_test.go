package reload_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/lint"
	"github.com/promptdesk/promptdesk/library/reload"
)

// symlink makes dir/rel a symbolic link to target.
func symlink(t *testing.T, target, dir, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
}

// A module file that is a symbolic link to a file elsewhere serves, and
// edits of the target are picked up as soon as they are made, whether
// written in place or renamed over the target (an editor's atomic save),
// well before the 10 s rescan.
func TestSymlinkedModuleFollowsEditsOfItsTarget(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	shared := t.TempDir()
	target := filepath.Join(shared, "notes.md")
	good := read(t, dir, notesEN)
	if err := os.Rename(filepath.Join(dir, notesEN), target); err != nil {
		t.Fatal(err)
	}
	symlink(t, target, dir, notesEN)
	lib := start(t, dir)
	if m, ok := lib.Current().Snapshot.Module("task.reload-notes", "en-US"); !ok || m.Title != "Field notes" {
		t.Fatalf("the linked module does not serve: %v", brokenList(lib.Current()))
	}
	g := lib.Current().Snapshot.Generation

	for i, edit := range []func(text string){
		func(text string) { // in place
			if err := os.WriteFile(target, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		func(text string) { // renamed over the target
			tmp := filepath.Join(shared, ".notes.md.tmp")
			if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, target); err != nil {
				t.Fatal(err)
			}
		},
		func(text string) { // in place again, on the new file
			if err := os.WriteFile(target, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		title := "Field notes " + strings.Repeat("I", i+1)
		t0 := time.Now()
		edit(strings.Replace(good, "title: Field notes", "title: "+title, 1))
		st := waitFor(t, lib, "the edit of the target applied", func(st *reload.State) bool {
			m, _ := st.Snapshot.Module("task.reload-notes", "en-US")
			return m.Title == title
		})
		if d := time.Since(t0); d > 5*time.Second || st.Snapshot.Generation != g+i+1 {
			t.Errorf("edit %d: applied after %v at generation %d; want well within the 10 s rescan, at %d", i, d, st.Snapshot.Generation, g+i+1)
		}
	}
}

// A symbolic link whose target does not exist is listed like an
// unreadable file, with the same message in serve, lint and the strict
// loader of `assemble --library`. When the target of a served link goes
// away, the last good version keeps serving; when it is back, it serves.
func TestDanglingSymlinkIsBrokenEverywhere(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	if err := os.Remove(filepath.Join(dir, brokenEN)); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nowhere.md")
	const dangling = "modules/en-US/task-dangling.md"
	symlink(t, missing, dir, dangling)
	want := "broken symbolic link: its target " + missing + " does not exist"
	path := filepath.ToSlash(filepath.Join(dir, dangling))

	lib := start(t, dir)
	st := lib.Current()
	if b, ok := broken(st, dir, dangling); !ok || b.Msg != want || b.Serving || b.Line != 0 || len(st.Broken) != 1 {
		t.Errorf("serve lists %v, want only %s: %s, not serving", brokenList(st), path, want)
	}
	_, err := library.LoadDir(dir)
	var fes library.FileErrors
	if !errors.As(err, &fes) || len(fes) != 1 || fes[0].File != path || fes[0].Msg != want {
		t.Errorf("assemble's loader: %v, want %s: %s", err, path, want)
	}
	r, err := lint.LintDir(dir)
	if err != nil || r.Counts.Errors != 1 || r.Findings[0].File != path || r.Findings[0].Message != want {
		t.Errorf("lint: %v %+v, want one error %s: %s", err, r.Findings, path, want)
	}

	// A served link whose target goes away, then comes back.
	shared := t.TempDir()
	target := filepath.Join(shared, "notes.md")
	good := read(t, dir, notesEN)
	if err := os.Rename(filepath.Join(dir, notesEN), target); err != nil {
		t.Fatal(err)
	}
	symlink(t, target, dir, notesEN)
	st = waitFor(t, lib, "the link served", func(st *reload.State) bool {
		_, ok := broken(st, dir, notesEN)
		m, _ := st.Snapshot.Module("task.reload-notes", "en-US")
		return !ok && m != nil && m.Text == good
	})
	g := st.Snapshot.Generation
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	st = waitFor(t, lib, "the dangling link listed", func(st *reload.State) bool {
		_, ok := broken(st, dir, notesEN)
		return ok
	})
	if b, _ := broken(st, dir, notesEN); !b.Serving || b.Msg != "broken symbolic link: its target "+target+" does not exist" || st.Snapshot.Generation != g || !st.Snapshot.Has("task.reload-notes") {
		t.Errorf("listed as %q (serving %t) at generation %d; want its last good version serving at %d", b.Error(), b.Serving, st.Snapshot.Generation, g)
	}
}

// A locale folder that is a symbolic link is a locale folder for the
// loader, lint and serve, and files written into it are picked up.
func TestSymlinkedLocaleFolder(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	if err := os.Remove(filepath.Join(dir, brokenEN)); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "en-GB")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	good := read(t, dir, notesEN)
	write(t, elsewhere, "task-reload-notes.md", good)
	symlink(t, elsewhere, dir, "modules/en-GB")

	snap, err := library.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Module("task.reload-notes", "en-GB"); !ok {
		t.Error("the loader skips the linked locale folder")
	}
	if r, err := lint.LintDir(dir); err != nil || r.Modules != lintModules(t, dir) {
		t.Errorf("lint checked %d modules (%v)", r.Modules, err)
	}
	lib := start(t, dir)
	if _, ok := lib.Current().Snapshot.Module("task.reload-notes", "en-GB"); !ok {
		t.Fatalf("serve skips the linked locale folder: %v", brokenList(lib.Current()))
	}
	write(t, elsewhere, "task-reload-notes.md", strings.Replace(good, "title: Field notes", "title: Field notes (GB)", 1))
	waitFor(t, lib, "the edit in the linked folder applied", func(st *reload.State) bool {
		m, _ := st.Snapshot.Module("task.reload-notes", "en-GB")
		return m != nil && m.Title == "Field notes (GB)"
	})
}

// lintModules counts the module files of dir's locale folders, links
// followed.
func lintModules(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	locales, err := os.ReadDir(filepath.Join(dir, "modules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locales {
		files, err := os.ReadDir(filepath.Join(dir, "modules", l.Name())) // follows a linked folder
		if err != nil {
			t.Fatal(err)
		}
		n += len(files)
	}
	return n
}

// A locale folder that is a symbolic link whose target goes away is a
// broken entry naming the link and its missing target: in serve its
// modules keep serving their last good versions (no new generation), and
// the strict loader of `assemble --library` and lint refuse it. When the
// link points at a folder again, it serves as before. A labels folder
// that is a dangling link is refused the same way.
func TestDanglingLocaleFolderLink(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	if err := os.Remove(filepath.Join(dir, brokenEN)); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "ja")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, target, "task-reload-notes.md", read(t, dir, notesEN))
	symlink(t, target, dir, "modules/ja-JP")
	lib := start(t, dir)
	st := lib.Current()
	if _, ok := st.Snapshot.Module("task.reload-notes", "ja-JP"); !ok || len(st.Broken) != 0 {
		t.Fatalf("the linked locale folder does not serve: %v", brokenList(st))
	}
	g := st.Snapshot.Generation

	// Moved away in one step: removing the files one by one would be a
	// deletion of each module first, which is applied as such.
	if err := os.Rename(target, target+".gone"); err != nil {
		t.Fatal(err)
	}
	want := "broken symbolic link: its target " + target + " does not exist"
	st = waitFor(t, lib, "the dangling locale folder listed", func(st *reload.State) bool {
		_, ok := broken(st, dir, "modules/ja-JP")
		return ok
	})
	if b, _ := broken(st, dir, "modules/ja-JP"); b.Msg != want || !b.Serving || len(st.Broken) != 1 {
		t.Errorf("listed %v (serving %t), want only modules/ja-JP: %s, serving", brokenList(st), b.Serving, want)
	}
	if _, ok := st.Snapshot.Module("task.reload-notes", "ja-JP"); !ok || st.Snapshot.Generation != g {
		t.Errorf("ja-JP modules removed (generation %d, was %d); want the last good ones serving", st.Snapshot.Generation, g)
	}
	path := filepath.ToSlash(filepath.Join(dir, "modules/ja-JP"))
	_, err := library.LoadDir(dir)
	var fes library.FileErrors
	if !errors.As(err, &fes) || len(fes) != 1 || fes[0].File != path || fes[0].Msg != want {
		t.Errorf("assemble's loader: %v, want %s: %s", err, path, want)
	}
	r, err := lint.LintDir(dir)
	if i := slices.IndexFunc(r.Findings, func(f library.Finding) bool { return f.Severity == library.SeverityError }); err != nil || r.Counts.Errors != 1 || r.Findings[i].File != path || r.Findings[i].Message != want {
		t.Errorf("lint: %v %+v, want one error %s: %s", err, r.Findings, path, want)
	}
	if fresh, err := reload.New(dir, quiet()); err != nil {
		t.Fatal(err)
	} else if b, ok := broken(fresh.Current(), dir, "modules/ja-JP"); !ok || b.Serving || b.Msg != want {
		t.Errorf("a server started now lists %v; want modules/ja-JP: %s, not served", brokenList(fresh.Current()), want)
	}

	// The link pointed at a folder again (made anew, so the watcher sees it).
	if err := os.Rename(target+".gone", target); err != nil {
		t.Fatal(err)
	}
	write(t, target, "task-reload-notes.md", strings.Replace(read(t, dir, notesEN), "title: Field notes", "title: Field notes (JA)", 1))
	if err := os.Remove(filepath.Join(dir, "modules/ja-JP")); err != nil {
		t.Fatal(err)
	}
	symlink(t, target, dir, "modules/ja-JP")
	waitFor(t, lib, "the repaired link served", func(st *reload.State) bool {
		m, _ := st.Snapshot.Module("task.reload-notes", "ja-JP")
		return len(st.Broken) == 0 && m != nil && m.Title == "Field notes (JA)"
	})

	labels := filepath.Join(t.TempDir(), "labels")
	if err := os.Rename(filepath.Join(dir, "labels"), labels); err != nil {
		t.Fatal(err)
	}
	symlink(t, labels, dir, "labels")
	if err := os.RemoveAll(labels); err != nil {
		t.Fatal(err)
	}
	_, err = library.LoadDir(dir)
	wantLabels := "broken symbolic link: its target " + labels + " does not exist"
	if !errors.As(err, &fes) || len(fes) != 1 || fes[0].File != filepath.ToSlash(filepath.Join(dir, "labels")) || fes[0].Msg != wantLabels {
		t.Errorf("a dangling labels folder link: %v, want labels: %s", err, wantLabels)
	}
}

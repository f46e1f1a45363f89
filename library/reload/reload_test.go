package reload_test

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
)

const (
	notesEN  = "modules/en-US/task-reload-notes.md"
	notesZH  = "modules/zh-CN/task-reload-notes.md"
	brokenEN = "modules/en-US/task-reload-broken.md"
)

// folder writes a library folder: the builtin library plus the fixtures
// of testdata/ (a valid task.reload-notes in en-US and zh-CN, and
// task.reload-broken whose frontmatter has `triggers: [unclosed`).
func folder(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, library.BuiltinFS()); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS("testdata")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// start loads dir and runs its watcher until the test ends.
func start(t testing.TB, dir string) *reload.Library {
	t.Helper()
	return startLogging(t, dir, quiet())
}

// startLogging is start with log.
func startLogging(t testing.TB, dir string, log *slog.Logger) *reload.Library {
	t.Helper()
	lib, err := reload.New(dir, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- lib.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return lib
}

// waitFor polls Current until ok holds, for at most 10 s.
func waitFor(t testing.TB, lib *reload.Library, what string, ok func(*reload.State) bool) *reload.State {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := lib.Current()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s: %s; now generation %d, broken %v", what, st.Snapshot.Generation, brokenList(st))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func brokenList(st *reload.State) []string {
	var out []string
	for _, b := range st.Broken {
		out = append(out, b.Error())
	}
	return out
}

// broken returns the entry of the file rel (relative to dir).
func broken(st *reload.State, dir, rel string) (reload.BrokenFile, bool) {
	want := filepath.ToSlash(filepath.Join(dir, rel))
	for _, b := range st.Broken {
		if b.File == want {
			return b, true
		}
	}
	return reload.BrokenFile{}, false
}

func write(t testing.TB, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	// Written aside and renamed over: the watcher never sees it half
	// written, however slow the machine.
	tmp := filepath.Join(filepath.Dir(p), ".writing")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A broken file does not take the library down, at start: the valid
// module serves, the broken one is absent and listed with its path and
// line.
func TestNewServesValidFilesAndListsBrokenOnes(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	lib, err := reload.New(dir, quiet())
	if err != nil {
		t.Fatal(err)
	}
	st := lib.Current()
	if st.Snapshot.Generation != 1 || st.Snapshot.Source != dir {
		t.Errorf("generation %d, source %q; want 1, %q", st.Snapshot.Generation, st.Snapshot.Source, dir)
	}
	if _, ok := st.Snapshot.Module("task.reload-notes", "en-US"); !ok {
		t.Error("the valid module task.reload-notes does not serve")
	}
	if !st.Snapshot.Has("base.identity") {
		t.Error("the rest of the folder does not serve")
	}
	if st.Snapshot.Has("task.reload-broken") {
		t.Error("the broken module serves")
	}
	if len(st.Broken) != 1 {
		t.Fatalf("broken: %v, want only %s", brokenList(st), brokenEN)
	}
	b := st.Broken[0]
	if want := filepath.ToSlash(filepath.Join(dir, brokenEN)); b.File != want || b.Line != 7 || b.Field != "triggers" || !strings.Contains(b.Msg, "not valid YAML") || b.Serving {
		t.Errorf("broken entry %q (serving %t), want %s:7 field triggers, not valid YAML, not serving", b.Error(), b.Serving, want)
	}
	if _, err := library.LoadDir(dir); err == nil {
		t.Error("LoadDir (the strict loader of the assemble command) accepts the broken folder")
	}
}

func TestNewRefusesAFolderWithoutModules(t *testing.T) {
	t.Parallel()
	if _, err := reload.New(filepath.Join(t.TempDir(), "missing"), quiet()); err == nil {
		t.Error("New accepted a missing folder")
	}
	if _, err := reload.New(t.TempDir(), quiet()); err == nil || !strings.Contains(err.Error(), "no modules folder") {
		t.Errorf("New of a folder without modules/: %v", err)
	}
}

// A broken file does not take the library down while serving: the valid
// file is truncated to 0 bytes and written back 200 ms later while several
// goroutines assemble from Current, as the server's overlay does. No
// assembly misses the module or gets it empty, the broken state is listed
// meanwhile, and the rewrite is a new generation. Run with -race.
func TestTruncateAndRewriteUnderConcurrentAssembly(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	lib := start(t, dir)
	good := read(t, dir, notesEN)
	m, _ := lib.Current().Snapshot.Module("task.reload-notes", "en-US")
	body := strings.TrimSpace(m.Body)
	g0 := lib.Current().Snapshot.Generation

	asm := assembler.New(assembler.Config{})
	req := &assembler.Request{Locale: "en-US", Command: "/fieldnotes"}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var runs, bad atomic.Int64
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := asm.Assemble(lib.Current().Snapshot, nil, req, now)
				runs.Add(1)
				switch {
				case err != nil:
					bad.Add(1)
					t.Errorf("assemble: %v", err)
				case !strings.Contains(res.Text, body):
					bad.Add(1)
					t.Errorf("assembled text lacks the module body:\n%s", res.Text)
				}
				if bad.Load() > 3 {
					return
				}
			}
		})
	}

	if err := os.Truncate(filepath.Join(dir, notesEN), 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	st := waitFor(t, lib, "the truncated file listed as broken", func(st *reload.State) bool {
		_, ok := broken(st, dir, notesEN)
		return ok
	})
	if b, _ := broken(st, dir, notesEN); !b.Serving || b.Line != 1 || !strings.Contains(b.Msg, "empty") {
		t.Errorf("truncated file listed as %q (serving %t), want line 1, empty, serving", b.Error(), b.Serving)
	}
	if st.Snapshot.Generation != g0 {
		t.Errorf("generation %d after the truncation, want %d (nothing applied)", st.Snapshot.Generation, g0)
	}
	write(t, dir, notesEN, good)
	st = waitFor(t, lib, "the rewrite applied", func(st *reload.State) bool { return st.Snapshot.Generation > g0 })
	if st.Snapshot.Generation != g0+1 {
		t.Errorf("generation %d after the rewrite, want %d", st.Snapshot.Generation, g0+1)
	}
	if b, ok := broken(st, dir, notesEN); ok {
		t.Errorf("still listed after the rewrite: %s", b.Error())
	}
	time.Sleep(20 * time.Millisecond)
	close(stop)
	wg.Wait()
	if runs.Load() < 10 || bad.Load() > 0 {
		t.Errorf("%d assemblies, %d bad", runs.Load(), bad.Load())
	}
	t.Logf("%d assemblies during the truncation and rewrite", runs.Load())
}

// An editor that writes a temporary file and renames it over the module
// (atomic save) is picked up; so is a new file, a new locale folder and a
// deletion.
func TestRenameOverNewFileNewLocaleAndDeletion(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	lib := start(t, dir)
	g := lib.Current().Snapshot.Generation

	changed := strings.Replace(read(t, dir, notesEN), "title: Field notes", "title: Field notes, tidied", 1)
	tmp := filepath.Join(dir, "modules/en-US/.task-reload-notes.md.tmp")
	if err := os.WriteFile(tmp, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, notesEN)); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, lib, "the renamed-over file applied", func(st *reload.State) bool {
		m, _ := st.Snapshot.Module("task.reload-notes", "en-US")
		return m != nil && m.Title == "Field notes, tidied"
	})
	if st.Snapshot.Generation != g+1 {
		t.Errorf("generation %d, want %d", st.Snapshot.Generation, g+1)
	}
	g = st.Snapshot.Generation

	second := strings.NewReplacer("task.reload-notes", "task.reload-more", "/fieldnotes", "/morenotes").Replace(read(t, dir, notesEN))
	write(t, dir, "modules/en-US/task-reload-more.md", second)
	st = waitFor(t, lib, "the new file applied", func(st *reload.State) bool { return st.Snapshot.Has("task.reload-more") })
	if st.Snapshot.Generation != g+1 {
		t.Errorf("generation %d, want %d", st.Snapshot.Generation, g+1)
	}
	g = st.Snapshot.Generation

	write(t, dir, "modules/en-GB/task-reload-more.md", second)
	st = waitFor(t, lib, "the new locale folder applied", func(st *reload.State) bool {
		_, ok := st.Snapshot.Module("task.reload-more", "en-GB")
		return ok
	})
	if st.Snapshot.Generation != g+1 {
		t.Errorf("generation %d, want %d", st.Snapshot.Generation, g+1)
	}
	g = st.Snapshot.Generation

	if err := os.Remove(filepath.Join(dir, "modules/en-GB/task-reload-more.md")); err != nil {
		t.Fatal(err)
	}
	st = waitFor(t, lib, "the deleted file removed", func(st *reload.State) bool {
		_, ok := st.Snapshot.Module("task.reload-more", "en-GB")
		return !ok
	})
	if st.Snapshot.Generation != g+1 || !st.Snapshot.Has("task.reload-more") {
		t.Errorf("generation %d (want %d); en-US task.reload-more still there: %t", st.Snapshot.Generation, g+1, st.Snapshot.Has("task.reload-more"))
	}
	if len(st.Broken) != 1 {
		t.Errorf("broken: %v, want only the fixture %s", brokenList(st), brokenEN)
	}
}

// A change that breaks a rule across files (all locales of an id share
// one version) keeps the last good version serving and lists the changed
// file; when the other locale follows, both apply together.
func TestCrossFileBreakKeepsLastGoodVersion(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	lib := start(t, dir)
	g := lib.Current().Snapshot.Generation

	write(t, dir, notesEN, strings.Replace(read(t, dir, notesEN), "version: 1", "version: 2", 1))
	st := waitFor(t, lib, "the version break listed", func(st *reload.State) bool {
		_, ok := broken(st, dir, notesEN)
		return ok
	})
	b, _ := broken(st, dir, notesEN)
	if !b.Serving || b.Field != "version" || b.Line != 4 || !strings.Contains(b.Msg, "differs from 1") {
		t.Errorf("listed as %q (serving %t), want line 4, field version, differs from 1, serving", b.Error(), b.Serving)
	}
	if m, _ := st.Snapshot.Module("task.reload-notes", "en-US"); m.Version != 1 || st.Snapshot.Generation != g {
		t.Errorf("serving version %d at generation %d, want the last good version 1 at %d", m.Version, st.Snapshot.Generation, g)
	}
	if _, ok := broken(st, dir, notesZH); ok {
		t.Errorf("the unchanged zh-CN file is listed too: %v", brokenList(st))
	}

	write(t, dir, notesZH, strings.Replace(read(t, dir, notesZH), "version: 1", "version: 2", 1))
	st = waitFor(t, lib, "both locales at version 2", func(st *reload.State) bool {
		m, _ := st.Snapshot.Module("task.reload-notes", "zh-CN")
		return m.Version == 2
	})
	if m, _ := st.Snapshot.Module("task.reload-notes", "en-US"); m.Version != 2 || st.Snapshot.Generation != g+1 {
		t.Errorf("en-US at version %d, generation %d; want 2 and %d", m.Version, st.Snapshot.Generation, g+1)
	}
	if len(st.Broken) != 1 {
		t.Errorf("broken: %v, want only the fixture %s", brokenList(st), brokenEN)
	}
}

// A deleted module that another module still includes keeps serving and
// is listed; a broken label file keeps its last good labels.
func TestDeletionOfAnIncludedModuleAndBrokenLabels(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	more := "modules/en-US/task-reload-more.md"
	rename := func(id, command, extra string) string {
		return strings.NewReplacer("task.reload-notes", id, "/fieldnotes", command).Replace(read(t, dir, notesEN)) + extra
	}
	write(t, dir, more, rename("task.reload-more", "/morenotes", ""))
	write(t, dir, "modules/en-US/task-reload-includer.md", rename("task.reload-includer", "/includer", "\n{{task.reload-more}}\n"))
	lib := start(t, dir)
	g := lib.Current().Snapshot.Generation
	if !lib.Current().Snapshot.Has("task.reload-includer") {
		t.Fatalf("the includer does not load: %v", brokenList(lib.Current()))
	}

	if err := os.Remove(filepath.Join(dir, more)); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, lib, "the deletion listed", func(st *reload.State) bool {
		_, ok := broken(st, dir, more)
		return ok
	})
	b, _ := broken(st, dir, more)
	if !b.Serving || !strings.Contains(b.Msg, "deleted, but another file still needs it") || !strings.Contains(b.Msg, "task-reload-includer.md") {
		t.Errorf("the deleted file listed as %q (serving %t)", b.Error(), b.Serving)
	}
	if !st.Snapshot.Has("task.reload-more") || st.Snapshot.Generation != g {
		t.Errorf("task.reload-more serving %t at generation %d; want its last good version at %d", st.Snapshot.Has("task.reload-more"), st.Snapshot.Generation, g)
	}

	labels := read(t, dir, "labels/en-US.yaml")
	write(t, dir, "labels/en-US.yaml", strings.Replace(labels, "kb.col.title:", "kb.col.titel:", 1))
	st = waitFor(t, lib, "the broken labels listed", func(st *reload.State) bool {
		_, ok := broken(st, dir, "labels/en-US.yaml")
		return ok
	})
	if b, _ := broken(st, dir, "labels/en-US.yaml"); !b.Serving || b.Field != "kb.col.titel" {
		t.Errorf("labels listed as %q (serving %t)", b.Error(), b.Serving)
	}
	if l, ok := st.Snapshot.Labels("en-US"); !ok || l["kb.col.title"] != "Title" || st.Snapshot.Generation != g {
		t.Errorf("labels %t %q at generation %d; want the last good ones at %d", ok, l["kb.col.title"], st.Snapshot.Generation, g)
	}
}

// Label files are optional: deleting labels/en-US.yaml is a change like
// any other (generation +1, nothing listed) after which en-US has the
// embedded labels and assembly goes on; a label file written again serves
// its own wording.
func TestDeletedLabelFileFallsBackToEmbeddedLabels(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	own := strings.Replace(read(t, dir, "labels/en-US.yaml"), `kb.col.title: "Title"`, `kb.col.title: "Document"`, 1)
	write(t, dir, "labels/en-US.yaml", own)
	lib := start(t, dir)
	g := lib.Current().Snapshot.Generation
	if l, _ := lib.Current().Snapshot.Labels("en-US"); l["kb.col.title"] != "Document" {
		t.Fatalf("the folder's own label does not serve: %q", l["kb.col.title"])
	}

	if err := os.Remove(filepath.Join(dir, "labels/en-US.yaml")); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, lib, "the deletion applied", func(st *reload.State) bool { return st.Snapshot.Generation > g })
	if st.Snapshot.Generation != g+1 || len(st.Broken) != 1 {
		t.Errorf("generation %d, broken %v; want %d and only the fixture %s", st.Snapshot.Generation, brokenList(st), g+1, brokenEN)
	}
	embedded, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := embedded.Labels("en-US")
	if got, ok := st.Snapshot.Labels("en-US"); !ok || !maps.Equal(got, want) {
		t.Errorf("en-US labels after the deletion: %t, %q; want the embedded ones", ok, got["kb.col.title"])
	}
	res, err := assembler.New(assembler.Config{}).Assemble(st.Snapshot, nil, &assembler.Request{Locale: "en-US", Command: "/fieldnotes"}, time.Now())
	if err != nil || !strings.Contains(res.Text, "field-notes clerk") {
		t.Errorf("assemble after the deletion: %v", err)
	}

	write(t, dir, "labels/en-US.yaml", own)
	st = waitFor(t, lib, "the label file written again", func(st *reload.State) bool { return st.Snapshot.Generation > g+1 })
	if l, _ := st.Snapshot.Labels("en-US"); l["kb.col.title"] != "Document" || st.Snapshot.Generation != g+2 {
		t.Errorf("label %q at generation %d, want the folder's own at %d", l["kb.col.title"], st.Snapshot.Generation, g+2)
	}
}

// A label file of a locale the embedded library has no labels for is not
// removed when deleted: its requests would lose their labels (and with
// --fallback-locale set to it, every request would). It is listed, its
// last good labels serving, until it is back.
func TestDeletedLabelFileWithoutEmbeddedLabelsKeepsServing(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	ja := strings.Replace(read(t, dir, "labels/en-US.yaml"), `kb.col.title: "Title"`, `kb.col.title: "タイトル"`, 1)
	write(t, dir, "labels/ja-JP.yaml", ja)
	lib := start(t, dir)
	g := lib.Current().Snapshot.Generation
	if err := os.Remove(filepath.Join(dir, "labels/ja-JP.yaml")); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, lib, "the deletion listed", func(st *reload.State) bool {
		_, ok := broken(st, dir, "labels/ja-JP.yaml")
		return ok
	})
	b, _ := broken(st, dir, "labels/ja-JP.yaml")
	if !b.Serving || !strings.Contains(b.Msg, "deleted, but the embedded library has no ja-JP labels to fall back on") {
		t.Errorf("listed as %q (serving %t)", b.Error(), b.Serving)
	}
	if l, ok := st.Snapshot.Labels("ja-JP"); !ok || l["kb.col.title"] != "タイトル" || st.Snapshot.Generation != g {
		t.Errorf("ja-JP labels %t %q at generation %d; want the last good ones at %d", ok, l["kb.col.title"], st.Snapshot.Generation, g)
	}
	write(t, dir, "labels/ja-JP.yaml", ja)
	st = waitFor(t, lib, "the file back", func(st *reload.State) bool {
		_, ok := broken(st, dir, "labels/ja-JP.yaml")
		return !ok
	})
	if l, _ := st.Snapshot.Labels("ja-JP"); l["kb.col.title"] != "タイトル" {
		t.Errorf("ja-JP label %q after the file came back", l["kb.col.title"])
	}
}

// A folder without a labels folder at all (as `import --out` writes it)
// serves with the embedded labels, and lists nothing.
func TestFolderWithoutLabelsServes(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	if err := os.RemoveAll(filepath.Join(dir, "labels")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, brokenEN)); err != nil {
		t.Fatal(err)
	}
	lib := start(t, dir)
	st := lib.Current()
	if len(st.Broken) != 0 || !slices.Equal(st.Snapshot.LabelLocales(), []string{"en-US", "zh-CN"}) {
		t.Fatalf("broken %v, label locales %v", brokenList(st), st.Snapshot.LabelLocales())
	}
	for _, loc := range []string{"en-US", "zh-CN"} {
		if _, err := assembler.New(assembler.Config{}).Render(st.Snapshot, nil, &assembler.RenderRequest{Module: "task.reload-notes", Locale: loc}, time.Now()); err != nil {
			t.Errorf("render in %s: %v", loc, err)
		}
	}
}

// A label file of en-US that is broken from the start never served, but
// the embedded en-US labels serve in its place: it is listed as not
// serving, with the embedded labels named instead.
func TestBrokenLabelFileSaysTheEmbeddedLabelsServe(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	if err := os.Remove(filepath.Join(dir, brokenEN)); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "labels/en-US.yaml", "list.separator: [open\n")
	st := start(t, dir).Current()
	b, ok := broken(st, dir, "labels/en-US.yaml")
	if !ok || b.Serving || b.Instead != "the embedded en-US labels" || len(st.Broken) != 1 {
		t.Errorf("listed %v (serving %t, instead %q); want labels/en-US.yaml not serving, the embedded en-US labels instead", brokenList(st), b.Serving, b.Instead)
	}
	if l, ok := st.Snapshot.Labels("en-US"); !ok || l["kb.col.title"] != "Title" {
		t.Errorf("en-US labels %t %q; want the embedded ones", ok, l["kb.col.title"])
	}
}

// syncBuffer is a log sink safe for Run's goroutine and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitLog waits up to 10 s for want in the log: a reload logs right after
// it publishes.
func waitLog(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log lacks %s:\n%s", want, out.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Each broken file is logged with path, line and error when it breaks;
// each applied reload is logged with its generation and files.
func TestReloadsAndBrokenFilesAreLogged(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	var out syncBuffer
	lib := startLogging(t, dir, slog.New(slog.NewTextHandler(&out, nil)))
	brokenPath := filepath.ToSlash(filepath.Join(dir, brokenEN))
	if want := `level=WARN msg="library file broken; not served" file=` + brokenPath + ` line=7 field=triggers err="frontmatter is not valid YAML: the list opened with \"[\" on this line is never closed`; !strings.Contains(out.String(), want) {
		t.Errorf("start log lacks %s:\n%s", want, out.String())
	}
	write(t, dir, notesEN, "")
	waitFor(t, lib, "the emptied file listed", func(st *reload.State) bool {
		_, ok := broken(st, dir, notesEN)
		return ok
	})
	waitLog(t, &out, `msg="library file broken; its last good version keeps serving" file=`+filepath.ToSlash(filepath.Join(dir, notesEN))+` line=1`)
	if err := os.Remove(filepath.Join(dir, notesEN)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, notesZH)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, lib, "the deletions applied", func(st *reload.State) bool { return !st.Snapshot.Has("task.reload-notes") })
	waitLog(t, &out, `msg="library folder reloaded" dir=`+dir+` generation=2 changed=[] removed="[`+notesEN+" "+notesZH+`]" broken=1`)
	if strings.Count(out.String(), "task-reload-broken.md") != 1 {
		t.Errorf("the broken fixture is logged more than once:\n%s", out.String())
	}
}

// BenchmarkReloadLatency measures the time from writing a module file to
// its new generation in Current (the debounce of 100 ms included), over
// b.N writes; it reports p50 and p99 in ms. Run with
// go test ./library/reload -run '^$' -bench ReloadLatency -benchtime 100x
func BenchmarkReloadLatency(b *testing.B) {
	dir := folder(b)
	lib := start(b, dir)
	good := read(b, dir, notesEN)
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		g := lib.Current().Snapshot.Generation
		text := strings.Replace(good, "title: Field notes", "title: Field notes "+strings.Repeat("I", i%7+1), 1)
		t0 := time.Now()
		write(b, dir, notesEN, text)
		waitFor(b, lib, "the write applied", func(st *reload.State) bool { return st.Snapshot.Generation > g })
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(ms(lat[(len(lat)+1)/2-1]), "p50-ms") // nearest rank
	b.ReportMetric(ms(lat[(len(lat)*99+99)/100-1]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

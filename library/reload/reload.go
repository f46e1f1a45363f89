// Package reload serves a library folder that changes while the server runs
// (docs/library-folder.md): it watches the folder with fsnotify, re-parses
// only the files that changed, keeps serving the last good version of a
// file that breaks and lists it, and swaps in each new immutable
// library.Snapshot with one atomic pointer store, so that assembly never
// waits for a reload and never sees half of one.
package reload

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/promptdesk/promptdesk/library"
)

// Timing of Run.
const (
	// Debounce is how long the folder must stay quiet after a change
	// before it is reloaded: an editor's save (truncate then write, or
	// write a temporary file then rename it over the module) is one
	// reload, and a file deleted and written again within it is never
	// seen missing.
	Debounce = 100 * time.Millisecond
	// MaxDelay bounds the wait when changes keep coming.
	MaxDelay = time.Second
	// Rescan is the period of the full rescan that catches changes whose
	// event was lost (an overflowing event queue, a network file system);
	// it is also the polling period when file watching is unavailable.
	Rescan = 10 * time.Second
)

// BrokenFile is a file of the folder that does not serve as it is on
// disk: it does not parse, or it breaks a rule across files, or it
// was deleted while other files still need it. The embedded FileError
// names path, line and field.
type BrokenFile struct {
	*library.FileError
	// Serving is true when the file's last good version keeps serving,
	// false when the file never loaded (its module or labels are absent).
	Serving bool
	// Instead, when the file does not serve, names what serves in its
	// place ("the embedded en-US labels": a label file that never loaded
	// falls back to them), or is "" when nothing does.
	Instead string
}

// State is one immutable state of the library: the Snapshot that serves
// (its Generation counts the applied changes) and the broken files,
// sorted by path. Nothing in it may be modified.
type State struct {
	Snapshot *library.Snapshot
	Broken   []BrokenFile
}

// Library is a library that may change: a folder watched by Run, or a
// fixed Snapshot (Fixed). Current and OnChange are safe for concurrent
// use.
type Library struct {
	dir  string // "" when fixed
	fsys fs.FS  // the folder; symbolic links in it are followed
	log  *slog.Logger
	cur  atomic.Pointer[State]

	running atomic.Bool
	mu      sync.Mutex
	subs    []func()

	// Owned by New, then by Run's goroutine.
	files map[string]*file // by slash path relative to dir
	links map[string]bool  // module and label files that are symbolic links, by OS path
}

// file is what is known of one module or label file.
type file struct {
	rel    string // slash path relative to the folder
	locale string // the locale folder, or the label file's name
	labels bool   // a label file (labels/<locale>.yaml)

	size  int64     // stat of the content last read
	mtime time.Time // (size and mtime unchanged: the content is not read again)
	sum   [32]byte  // sha256 of the content last read
	read  bool      // the content was read at least once

	cur    *version           // the content on disk, parsed; nil when it does not parse
	err    *library.FileError // why the content on disk does not serve; nil when it does
	served *version           // the version in the current Snapshot; nil when none
	gone   bool               // deleted from the folder
}

// version is one parsed content of a file: a module or labels.
type version struct {
	module *library.Module
	labels library.Labels
}

// Fixed returns a Library that always serves snap (the embedded library,
// or tests); its Run returns at once.
func Fixed(snap *library.Snapshot) *Library {
	l := &Library{log: slog.Default()}
	l.cur.Store(&State{Snapshot: snap})
	return l
}

// New loads the library folder dir (modules/<locale>/<layer>-<name>.md,
// labels/<locale>.yaml) as library.LoadDir does, except that a broken
// file does not stop it: the files that load serve, and each broken one
// is logged and listed in Current's Broken. Run then keeps it current.
// Errors: dir is not a folder or has no modules folder.
func New(dir string, log *slog.Logger) (*Library, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("library folder: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("library folder %s is not a folder", dir)
	}
	if st, err := os.Stat(filepath.Join(dir, "modules")); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("library folder %s has no modules folder (modules/<locale>/<layer>-<name>.md)", dir)
	}
	if log == nil {
		log = slog.Default()
	}
	l := &Library{dir: dir, fsys: os.DirFS(dir), log: log, files: map[string]*file{}}
	l.reload(nil)
	return l, nil
}

// Current returns the library as it serves now; it never waits for a
// reload.
func (l *Library) Current() *State { return l.cur.Load() }

// OnChange registers fn, called after every reload that changed Current
// (a new Snapshot or other broken files), from Run's goroutine: fn must
// not block.
func (l *Library) OnChange(fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.subs = append(l.subs, fn)
}

// Run watches the folder until ctx is cancelled and reloads it Debounce
// after the last change: the module folders (new locale folders too) and
// labels/. Without file watching (fsnotify fails) it polls every Rescan.
// A fixed Library returns nil at once. Errors: Run is already running.
func (l *Library) Run(ctx context.Context) error {
	if l.dir == "" {
		return nil
	}
	if !l.running.CompareAndSwap(false, true) {
		return errors.New("reload: Run is already running for " + l.dir)
	}
	defer l.running.Store(false)
	var events <-chan fsnotify.Event
	var watchErrs <-chan error
	w, err := fsnotify.NewWatcher()
	if err != nil {
		l.log.Warn("library folder: file watching unavailable; polling instead", "dir", l.dir, "every", Rescan, "err", err)
	} else {
		defer w.Close()
		events, watchErrs = w.Events, w.Errors
		l.watch(w)
	}
	l.reload(nil) // changes made between New and the first watch

	rescan := time.NewTicker(Rescan)
	defer rescan.Stop()
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	var first time.Time // of the first change not reloaded yet; zero when none
	dirty := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			quiet.Stop()
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			rel, ok := l.relevant(ev)
			if !ok {
				continue
			}
			dirty[rel] = true
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			quiet.Reset(min(Debounce, max(0, MaxDelay-now.Sub(first))))
		case err, ok := <-watchErrs:
			if !ok {
				watchErrs = nil
				continue
			}
			l.log.Warn("library folder: watching interrupted; rescanning", "dir", l.dir, "err", err)
			if first.IsZero() {
				first = time.Now()
			}
			quiet.Reset(Debounce)
		case <-quiet.C:
			if w != nil {
				l.watch(w)
			}
			l.reload(dirty)
			dirty, first = map[string]bool{}, time.Time{}
		case <-rescan.C:
			if w != nil {
				l.watch(w)
			}
			l.reload(nil)
		}
	}
}

// watch adds the folder, modules/, each locale folder and labels/ to w
// when not watched yet: a folder created later is added at the next
// reload, whose scan finds the files written into it meanwhile. A module
// or label file that is a symbolic link is watched itself (the system
// follows the link, and the events carry the link's path): watching the
// folder does not see writes to a target elsewhere. It is added again at
// every call, so that a target replaced by a rename is followed to the
// new file. Links gone are no longer watched.
func (l *Library) watch(w *fsnotify.Watcher) {
	dirs := []string{l.dir, filepath.Join(l.dir, "modules"), filepath.Join(l.dir, "labels")}
	links := map[string]bool{}
	findLinks := func(rel string) {
		entries, _ := fs.ReadDir(l.fsys, rel)
		for _, e := range entries {
			if e.Type()&fs.ModeSymlink != 0 && (library.IsModuleFileName(e.Name()) || strings.HasSuffix(e.Name(), ".yaml")) {
				links[filepath.Join(l.dir, filepath.FromSlash(rel), e.Name())] = true
			}
		}
	}
	if entries, err := fs.ReadDir(l.fsys, "modules"); err == nil {
		for _, e := range entries {
			if rel := path.Join("modules", e.Name()); library.IsDir(l.fsys, rel, e) {
				dirs = append(dirs, filepath.Join(l.dir, "modules", e.Name()))
				findLinks(rel)
			}
		}
	}
	findLinks("labels")
	have := map[string]bool{}
	for _, p := range w.WatchList() {
		have[p] = true
		if l.links[p] && !links[p] {
			_ = w.Remove(p) // no longer a link of the folder
		}
	}
	l.links = links
	add := func(p string) {
		if err := w.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			l.log.Warn("library folder: cannot watch; changes there are seen by the periodic rescan", "path", p, "every", Rescan, "err", err)
		}
	}
	for _, d := range dirs {
		if !have[d] {
			add(d)
		}
	}
	for p := range links {
		add(p)
	}
}

// relevant returns the slash path, relative to the folder, of an event
// that may change the library: a module file, a label file, or one of
// the folders. Other files (an editor's swap or backup files) and mere
// permission changes are ignored, except on a linked file: a target
// replaced by a rename shows there only as the old target's link count
// changing.
func (l *Library) relevant(ev fsnotify.Event) (string, bool) {
	if ev.Op == fsnotify.Chmod && !l.links[ev.Name] {
		return "", false
	}
	rel, err := filepath.Rel(l.dir, ev.Name)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	parts := strings.Split(rel, "/")
	switch {
	case rel == "modules" || rel == "labels":
		return rel, true
	case parts[0] == "modules" && len(parts) == 2:
		return rel, true
	case parts[0] == "modules" && len(parts) == 3:
		return rel, library.IsModuleFileName(rel)
	case parts[0] == "labels" && len(parts) == 2:
		return rel, strings.HasSuffix(rel, ".yaml")
	}
	return "", false
}

// entry is one file found by a scan.
type entry struct {
	rel, locale string
	labels      bool
	info        fs.FileInfo // of the file, or of a symbolic link's target
	problem     string      // why it cannot be read (a dangling link); info is nil
}

// scan lists the module and label files. problems are folder-level
// broken entries (a locale folder that is not a BCP 47 tag, an
// unreadable folder, a folder that is a symbolic link whose target does
// not exist); held are the folders ("modules", "modules/<locale>",
// "labels") that could not be listed, so their files must not be taken
// as deleted: their last good versions keep serving.
func (l *Library) scan() (found []entry, locales []string, problems []BrokenFile, held map[string]bool) {
	display := func(rel string) string { return filepath.ToSlash(filepath.Join(l.dir, rel)) }
	held = map[string]bool{}
	problem := func(rel, msg string) {
		held[rel] = true
		problems = append(problems, BrokenFile{FileError: &library.FileError{File: display(rel), Msg: msg}, Serving: l.servesUnder(rel)})
	}
	localeDirs, err := fs.ReadDir(l.fsys, "modules")
	if err != nil {
		msg, ok := library.DanglingLink(l.fsys, "modules")
		if !ok {
			msg = "cannot read the modules folder: " + err.Error()
		}
		problem("modules", msg)
	}
	for _, ld := range localeDirs {
		locale := ld.Name()
		rel := path.Join("modules", locale)
		if !library.IsDir(l.fsys, rel, ld) {
			if msg, ok := library.DanglingLink(l.fsys, rel); ok {
				problem(rel, msg)
			}
			continue
		}
		if err := library.CheckLocaleFolder(display(rel), locale); err != nil {
			problems = append(problems, BrokenFile{FileError: err.(*library.FileError)})
			continue
		}
		locales = append(locales, locale)
		files, err := fs.ReadDir(l.fsys, rel)
		if err != nil {
			problem(rel, "cannot read the folder: "+err.Error())
			continue
		}
		for _, f := range files {
			if library.IsModuleFileName(f.Name()) {
				found = l.stat(found, entry{rel: path.Join(rel, f.Name()), locale: locale})
			}
		}
	}
	labelFiles, err := fs.ReadDir(l.fsys, "labels")
	if msg, ok := library.DanglingLink(l.fsys, "labels"); ok {
		problem("labels", msg)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		problem("labels", "cannot read the labels folder: "+err.Error())
	}
	for _, f := range labelFiles {
		if locale, ok := strings.CutSuffix(f.Name(), ".yaml"); ok {
			found = l.stat(found, entry{rel: path.Join("labels", f.Name()), locale: locale, labels: true})
		}
	}
	return found, locales, problems, held
}

// servesUnder reports whether a file under the folder rel (relative to
// the library folder) serves a version now.
func (l *Library) servesUnder(rel string) bool {
	for _, f := range l.files {
		if f.served != nil && (f.rel == rel || strings.HasPrefix(f.rel, rel+"/")) {
			return true
		}
	}
	return false
}

// stat adds e to found with the size and time of the file, or of its
// target when it is a symbolic link, so that an edit of the target is
// seen; a link whose target is missing, or a file that cannot be
// stat-ed, is added with its problem. Folders, and files gone since the
// folder was listed, are left out.
func (l *Library) stat(found []entry, e entry) []entry {
	info, err := fs.Stat(l.fsys, e.rel)
	switch {
	case err == nil && info.IsDir():
		return found
	case err == nil:
		e.info = info
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := fs.ReadLink(l.fsys, e.rel); lerr != nil {
			return found // gone, not a link
		}
		e.problem = library.ReadProblem(l.fsys, e.rel, err)
	default:
		e.problem = library.ReadProblem(l.fsys, e.rel, err)
	}
	return append(found, e)
}

// reload scans the folder, reads the files that changed (and those in
// dirty, whatever their size and time say), applies what loads and
// publishes the new State when anything changed.
func (l *Library) reload(dirty map[string]bool) {
	found, locales, problems, held := l.scan()
	seen := make(map[string]bool, len(found))
	var toRead []*file
	var infos []fs.FileInfo
	for _, e := range found {
		seen[e.rel] = true
		f := l.files[e.rel]
		if f == nil {
			f = &file{rel: e.rel, locale: e.locale, labels: e.labels}
			l.files[e.rel] = f
		}
		f.gone = false
		if e.problem != "" {
			f.read, f.cur, f.err = false, nil, &library.FileError{File: l.display(f), Msg: e.problem}
			continue
		}
		if f.read && !dirty[e.rel] && e.info.Size() == f.size && e.info.ModTime().Equal(f.mtime) {
			continue
		}
		toRead, infos = append(toRead, f), append(infos, e.info)
	}
	l.readFiles(toRead, infos)
	for rel, f := range l.files {
		if seen[rel] || held[path.Dir(rel)] || (!f.labels && held["modules"]) {
			continue
		}
		if f.served == nil {
			delete(l.files, rel) // never served: nothing to remove
			continue
		}
		if f.labels && !library.HasEmbeddedLabels(f.locale) {
			// Nothing to fall back on: the locale's requests would
			// lose their labels, so the last good ones keep serving.
			f.cur, f.read = nil, false
			f.err = &library.FileError{File: l.display(f), Msg: "deleted, but the embedded library has no " + f.locale + " labels to fall back on; the last good labels keep serving until the file is back or the server restarts"}
			continue
		}
		f.gone, f.cur, f.read = true, nil, false
	}

	prev := l.cur.Load()
	applied, snap := l.apply(locales, prev)
	next := &State{Snapshot: snap}
	if snap == nil {
		next.Snapshot = prev.Snapshot
	}
	for _, f := range l.sorted() {
		if f.err != nil {
			b := BrokenFile{FileError: f.err, Serving: f.served != nil}
			if !b.Serving && f.labels && library.HasEmbeddedLabels(f.locale) {
				b.Instead = "the embedded " + f.locale + " labels"
			}
			next.Broken = append(next.Broken, b)
		}
	}
	next.Broken = append(next.Broken, problems...)
	slices.SortStableFunc(next.Broken, func(a, b BrokenFile) int { return strings.Compare(a.File, b.File) })

	if prev != nil && snap == nil && sameBroken(prev.Broken, next.Broken) {
		return
	}
	l.cur.Store(next)
	l.logChange(prev, next, applied)
	l.mu.Lock()
	subs := slices.Clone(l.subs)
	l.mu.Unlock()
	for _, fn := range subs {
		fn()
	}
}

// readFiles reads and parses each of files (with its stat in infos) as
// readFile does, on every core: parsing is most of the first load of a
// large folder (a few seconds for 24,000 module files on one core), and
// each file is read and parsed alone.
func (l *Library) readFiles(files []*file, infos []fs.FileInfo) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				l.readFile(files[i], infos[i])
			}
		})
	}
	wg.Wait()
}

// readFile reads and parses f when its content changed since last read.
func (l *Library) readFile(f *file, info fs.FileInfo) {
	display := l.display(f)
	data, err := fs.ReadFile(l.fsys, f.rel)
	if err != nil {
		if _, lerr := fs.ReadLink(l.fsys, f.rel); errors.Is(err, fs.ErrNotExist) && lerr != nil {
			return // deleted since the scan: the next scan sees it gone
		}
		f.read, f.cur, f.err = false, nil, &library.FileError{File: display, Msg: library.ReadProblem(l.fsys, f.rel, err)}
		return
	}
	sum := sha256.Sum256(data)
	f.size, f.mtime = info.Size(), info.ModTime()
	if f.read && sum == f.sum {
		return
	}
	f.read, f.sum = true, sum
	v := &version{}
	if f.labels {
		v.labels, err = library.ParseLabels(display, data)
	} else {
		v.module, err = library.ParseModuleFile(display, f.locale, data)
	}
	if err != nil {
		f.cur, f.err = nil, library.AsFileErrors(display, err)[0]
		return
	}
	// A new content is applied even when it equals the served one: a
	// repaired file (truncated, then written back) is a change.
	f.cur, f.err = v, nil
}

// pending reports whether f has a change to apply: a new content that
// parses, or its deletion.
func (f *file) pending() bool {
	if f.gone {
		return f.served != nil
	}
	return f.cur != nil && f.cur != f.served
}

// apply builds a Snapshot from the served versions with the pending
// changes on top. When that breaks a rule across files, the changed
// files the errors name are set aside (broken, their last good version
// serving) and the rest is tried again; when the errors name only
// unchanged files, the changes are tried one at a time and each that
// still breaks a rule is set aside. It returns the applied files and
// their Snapshot (Generation one more than prev's), or nil when nothing
// was applied and prev exists.
func (l *Library) apply(locales []string, prev *State) ([]*file, *library.Snapshot) {
	generation := 1
	if prev != nil {
		generation = prev.Snapshot.Generation + 1
	}
	batch := map[*file]bool{}
	for _, f := range l.files {
		if f.pending() {
			batch[f] = true
		}
	}
	try := func(trial map[*file]bool) (*library.Snapshot, library.FileErrors) {
		snap, err := library.Build(l.parts(locales, generation, trial))
		if err != nil {
			var fes library.FileErrors
			if !errors.As(err, &fes) {
				fes = library.FileErrors{{File: l.dir, Msg: err.Error()}}
			}
			return nil, fes
		}
		return snap, nil
	}
	for len(batch) > 0 {
		snap, errs := try(batch)
		if errs == nil {
			return l.commit(batch), snap
		}
		blamed := false
		for _, f := range l.sorted() {
			if e := namedIn(errs, l.display(f)); batch[f] && e != nil {
				f.err = e
				delete(batch, f)
				blamed = true
			}
		}
		if !blamed {
			break
		}
	}
	accepted := map[*file]bool{}
	var last *library.Snapshot
	for progress := true; progress && len(batch) > 0; {
		progress = false
		for _, f := range l.sorted() {
			if !batch[f] {
				continue
			}
			trial := map[*file]bool{f: true}
			for g := range accepted {
				trial[g] = true
			}
			snap, errs := try(trial)
			if errs != nil {
				f.err = l.blame(f, errs)
				continue
			}
			accepted, last, progress = trial, snap, true
			delete(batch, f)
		}
	}
	if last != nil {
		return l.commit(accepted), last
	}
	if prev == nil {
		snap, _ := try(nil) // nothing loads: an empty library (every file broken)
		if snap == nil {
			snap, _ = library.Build(library.Parts{Source: l.dir, Generation: 1, EmbeddedLabels: true})
		}
		return nil, snap
	}
	return nil, nil
}

// commit makes the applied versions the served ones.
func (l *Library) commit(applied map[*file]bool) []*file {
	out := make([]*file, 0, len(applied))
	for f := range applied {
		out = append(out, f)
		if f.gone {
			delete(l.files, f.rel)
			f.served = nil
			continue
		}
		f.served, f.err = f.cur, nil
	}
	slices.SortFunc(out, func(a, b *file) int { return strings.Compare(a.rel, b.rel) })
	return out
}

// parts are the served versions with trial's on top, and the embedded
// labels of each locale without a label file served. Modules come in
// path order with trial's last, so that a rule across files (one version
// per id) names the changed file rather than the one it disagrees with.
func (l *Library) parts(locales []string, generation int, trial map[*file]bool) library.Parts {
	p := library.Parts{Source: l.dir, Generation: generation, Locales: locales, Labels: map[string]library.Labels{}, EmbeddedLabels: true}
	var changed []*library.Module
	for _, f := range l.sorted() {
		v := f.served
		if trial[f] {
			v = f.cur
		}
		switch {
		case v == nil:
		case f.labels:
			p.Labels[f.locale] = v.labels
		case trial[f]:
			changed = append(changed, v.module)
		default:
			p.Modules = append(p.Modules, v.module)
		}
	}
	p.Modules = append(p.Modules, changed...)
	return p
}

// blame is the problem of f when applying it alone broke errs: the error
// naming f, else the first error, said to be caused by f.
func (l *Library) blame(f *file, errs library.FileErrors) *library.FileError {
	if e := namedIn(errs, l.display(f)); e != nil {
		return e
	}
	what := "changed, but the change breaks another file"
	if f.gone {
		what = "deleted, but another file still needs it"
	}
	return &library.FileError{File: l.display(f), Msg: what + ": " + errs[0].Error()}
}

func (l *Library) display(f *file) string { return filepath.ToSlash(filepath.Join(l.dir, f.rel)) }

// sorted lists the known files in path order.
func (l *Library) sorted() []*file {
	out := make([]*file, 0, len(l.files))
	for _, f := range l.files {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *file) int { return strings.Compare(a.rel, b.rel) })
	return out
}

// logChange logs an applied change (files and generation) and every
// broken file that is new or broken differently.
func (l *Library) logChange(prev, next *State, applied []*file) {
	if prev != nil && next.Snapshot != prev.Snapshot {
		var changed, removed []string
		for _, f := range applied {
			if f.served == nil {
				removed = append(removed, f.rel)
			} else {
				changed = append(changed, f.rel)
			}
		}
		l.log.Info("library folder reloaded", "dir", l.dir, "generation", next.Snapshot.Generation, "changed", changed, "removed", removed, "broken", len(next.Broken))
	}
	was := map[string]bool{}
	if prev != nil {
		for _, b := range prev.Broken {
			was[brokenKey(b)] = true
		}
	}
	for _, b := range next.Broken {
		if was[brokenKey(b)] {
			continue
		}
		msg := "library file broken; its last good version keeps serving"
		if b.Instead != "" {
			msg = "library file broken; " + b.Instead + " serve in its place"
		} else if !b.Serving {
			msg = "library file broken; not served"
		}
		l.log.Warn(msg, "file", b.File, "line", b.Line, "field", b.Field, "err", b.Msg)
	}
	for _, b := range prev.brokenOrNil() {
		if !slices.ContainsFunc(next.Broken, func(n BrokenFile) bool { return n.File == b.File }) {
			l.log.Info("library file repaired", "file", b.File)
		}
	}
}

func (s *State) brokenOrNil() []BrokenFile {
	if s == nil {
		return nil
	}
	return s.Broken
}

func brokenKey(b BrokenFile) string {
	return fmt.Sprintf("%s\x00%t\x00%s", b.Error(), b.Serving, b.Instead)
}

func sameBroken(a, b []BrokenFile) bool {
	return slices.EqualFunc(a, b, func(x, y BrokenFile) bool { return brokenKey(x) == brokenKey(y) })
}

// namedIn returns the first error about file.
func namedIn(errs library.FileErrors, file string) *library.FileError {
	for _, e := range errs {
		if e.File == file {
			return e
		}
	}
	return nil
}

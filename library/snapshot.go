package library

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/text/language"
)

// Snapshot is an immutable, loaded library: every module in every locale
// plus the label files. It is safe for concurrent use; nothing in
// it may be modified after Load or Build returns.
type Snapshot struct {
	modules map[string]map[string]*Module // id → lower-case locale → module
	ids     []string
	locales []string
	labels  map[string]Labels // lower-case locale → labels
	// labelLocales are the locales of labels, sorted.
	labelLocales []string
	// Source describes where the snapshot came from ("embedded" or a folder).
	Source string
	// Generation counts the versions of the library: 1 when first
	// loaded, and the embedded library stays at 1; a watched folder
	// (library/reload) adds 1 for each change it applies.
	Generation int
}

// LocaleKey is the case-insensitive key of a BCP 47 tag: overrides and
// lookups match locales regardless of case.
func LocaleKey(locale string) string { return strings.ToLower(locale) }

// Module returns the module id in exactly this locale (compared
// case-insensitively), without fallback.
func (s *Snapshot) Module(id, locale string) (*Module, bool) {
	m, ok := s.modules[id][LocaleKey(locale)]
	return m, ok
}

// Has reports whether the library has the id in any locale.
func (s *Snapshot) Has(id string) bool { return len(s.modules[id]) > 0 }

// IDs lists every module id, sorted.
func (s *Snapshot) IDs() []string { return s.ids }

// Locales lists the locale folders, sorted.
func (s *Snapshot) Locales() []string { return s.locales }

// ModuleLocales lists the locales the id exists in, sorted.
func (s *Snapshot) ModuleLocales(id string) []string {
	var out []string
	for _, m := range s.modules[id] {
		out = append(out, m.Locale)
	}
	sort.Strings(out)
	return out
}

// Any returns the module id in some locale (the first in sorted order),
// for fields shared by every locale: layer, version, variables.
func (s *Snapshot) Any(id string) (*Module, bool) {
	locs := s.ModuleLocales(id)
	if len(locs) == 0 {
		return nil, false
	}
	return s.Module(id, locs[0])
}

// Labels returns the label texts of exactly this locale.
func (s *Snapshot) Labels(locale string) (Labels, bool) {
	l, ok := s.labels[LocaleKey(locale)]
	return l, ok
}

// LabelLocales lists the locales that have labels, sorted.
func (s *Snapshot) LabelLocales() []string { return s.labelLocales }

// Builtin loads the library embedded in the binary.
func Builtin() (*Snapshot, error) {
	snap, err := Load(builtinFS, "library")
	if err != nil {
		return nil, err
	}
	snap.Source = "embedded"
	return snap, nil
}

// LoadDir loads a library folder in the embedded layout:
// `modules/<locale>/<layer>-<name>.md` and `labels/<locale>.yaml`. Label
// files are optional: a locale without one has the embedded library's
// labels of that locale (see Load).
func LoadDir(dir string) (*Snapshot, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("library folder: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("library folder %s is not a folder", dir)
	}
	snap, err := Load(os.DirFS(dir), dir)
	if err != nil {
		return nil, err
	}
	snap.Source = dir
	return snap, nil
}

// moduleFile is a module file Load reads: its path in the folder and
// the locale of its folder.
type moduleFile struct{ path, locale string }

// parsedFile is what Load made of one moduleFile.
type parsedFile struct {
	m   *Module
	err error
}

// Load reads a library from fsys. prefix is prepended to paths in
// messages. A locale without a label file has the embedded library's
// labels of that locale, when there are some (Parts.EmbeddedLabels); for
// the embedded library itself that changes nothing. Every problem in
// every file is collected: the error is FileErrors (matching ErrInvalid)
// listing each with file, line and field.
func Load(fsys fs.FS, prefix string) (*Snapshot, error) {
	parts := Parts{Generation: 1, Labels: map[string]Labels{}, EmbeddedLabels: true}
	var errs FileErrors
	report := func(err error) { errs = append(errs, AsFileErrors(prefix, err)...) }
	display := func(p string) string { return filepath.ToSlash(filepath.Join(prefix, p)) }

	localeDirs, err := fs.ReadDir(fsys, "modules")
	if err != nil {
		if problem, ok := DanglingLink(fsys, "modules"); ok {
			return nil, FileErrors{{File: display("modules"), Msg: "no modules folder: " + problem}}
		}
		return nil, FileErrors{{File: display("modules"), Msg: "no modules folder: " + err.Error()}}
	}
	var todo []moduleFile
	for _, ld := range localeDirs {
		if !IsDir(fsys, path.Join("modules", ld.Name()), ld) {
			if problem, ok := DanglingLink(fsys, path.Join("modules", ld.Name())); ok {
				report(&FileError{File: display(path.Join("modules", ld.Name())), Msg: problem})
			}
			continue
		}
		locale := ld.Name()
		if err := CheckLocaleFolder(display(path.Join("modules", locale)), locale); err != nil {
			report(err)
			continue
		}
		parts.Locales = append(parts.Locales, locale)
		files, err := fs.ReadDir(fsys, path.Join("modules", locale))
		if err != nil {
			report(err)
			continue
		}
		for _, f := range files {
			p := path.Join("modules", locale, f.Name())
			if !IsModuleFileName(f.Name()) || IsDir(fsys, p, f) {
				continue
			}
			todo = append(todo, moduleFile{path: p, locale: locale})
		}
	}
	// Reading and parsing is most of a load and each file stands alone:
	// every core takes files; the results keep the folder's order.
	parsed := make([]parsedFile, len(todo))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(todo); i = int(next.Add(1)) - 1 {
				p := todo[i].path
				data, err := fs.ReadFile(fsys, p)
				if err != nil {
					parsed[i].err = &FileError{File: display(p), Msg: ReadProblem(fsys, p, err)}
					continue
				}
				parsed[i].m, parsed[i].err = ParseModuleFile(display(p), todo[i].locale, data)
			}
		})
	}
	wg.Wait()
	for _, r := range parsed {
		if r.err != nil {
			report(r.err)
			continue
		}
		parts.Modules = append(parts.Modules, r.m)
	}

	labelFiles, err := fs.ReadDir(fsys, "labels")
	if problem, ok := DanglingLink(fsys, "labels"); ok {
		report(&FileError{File: display("labels"), Msg: problem})
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		report(&FileError{File: display("labels"), Msg: "cannot read the labels folder: " + err.Error()})
	}
	for _, f := range labelFiles {
		locale, ok := strings.CutSuffix(f.Name(), ".yaml")
		p := path.Join("labels", f.Name())
		if !ok || IsDir(fsys, p, f) {
			continue
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			report(&FileError{File: display(p), Msg: ReadProblem(fsys, p, err)})
			continue
		}
		labels, err := ParseLabels(display(p), data)
		if err != nil {
			report(err)
			continue
		}
		parts.Labels[locale] = labels
	}

	s, buildErrs := build(parts, len(errs) == 0)
	errs = append(errs, buildErrs...)
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].File < errs[j].File })
		return nil, errs
	}
	return s, nil
}

// CheckLocaleFolder checks that a folder under modules/ is named by a BCP
// 47 locale tag; display names the folder in the *FileError.
func CheckLocaleFolder(display, locale string) error {
	if _, err := language.Parse(locale); err != nil {
		return &FileError{File: display, Msg: LocaleProblem(locale)}
	}
	return nil
}

// ParseModuleFile parses the module file display (a path ending in
// <layer>-<name>.md, slash- or OS-separated) of the locale folder locale:
// ParseAll, then the id must match the file name. The error is a
// *FileError, or FileErrors holding every error of a text that does
// not parse.
func ParseModuleFile(display, locale string, data []byte) (*Module, error) {
	name := path.Base(filepath.ToSlash(display))
	if err := CheckFileName(name); err != nil {
		return nil, &FileError{File: display, Msg: err.Error()}
	}
	m, errs := ParseAll(display, data)
	if len(errs) > 0 {
		return nil, errs
	}
	m.Locale = locale
	if want, _ := IDFromFileName(name); m.ID != want {
		return nil, &FileError{File: m.File, Line: m.FieldLine("id"), Field: "id", Msg: fmt.Sprintf("id %q does not match the file name %s (expected id %q)", m.ID, name, want)}
	}
	return m, nil
}

// CheckFileName checks that name (a file name, no folder) is a module
// file name: <layer>-<name>.md with a known layer and a name of lowercase
// [a-z0-9._-]. The error says which part is wrong and what is
// allowed.
func CheckFileName(name string) error {
	layers := make([]string, len(Layers))
	for i, l := range Layers {
		layers[i] = string(l)
	}
	rule := "a module file is named <layer>-<name>.md, where <layer> is one of " + strings.Join(layers, ", ") + " and <name> uses only lowercase [a-z0-9._-]"
	base, ok := strings.CutSuffix(name, ".md")
	if !ok {
		return fmt.Errorf("invalid file name %q: a module file name ends in lower-case .md; %s", name, rule)
	}
	layer, rest, found := strings.Cut(base, "-")
	switch {
	case !found:
		return fmt.Errorf("invalid file name %q: no <layer>- prefix; %s", name, rule)
	case rest == "":
		return fmt.Errorf("invalid file name %q: the name after the %q prefix is empty; %s", name, layer+"-", rule)
	case !ValidLayer(Layer(layer)):
		return fmt.Errorf("invalid file name %q: %q is not a layer; %s", name, layer, rule)
	case !ValidName(rest):
		return fmt.Errorf("invalid file name %q: the name %q has characters other than lowercase [a-z0-9._-]; %s", name, rest, rule)
	}
	return nil
}

// IsModuleFileName reports whether name is meant as a module file: it
// ends in .md in any case. CheckFileName then refuses ".MD": a file the
// author meant as a module is reported, not silently skipped.
func IsModuleFileName(name string) bool {
	return len(name) > 3 && strings.EqualFold(name[len(name)-3:], ".md")
}

// Parts is what Build makes a Snapshot from: modules already parsed (by
// ParseModuleFile) and label files already parsed (by ParseLabels).
type Parts struct {
	// Source is the Snapshot's Source.
	Source string
	// Generation is the Snapshot's Generation.
	Generation int
	// Locales are the locale folders, in any order; the locales of
	// Modules are added to them.
	Locales []string
	// Modules have their Locale set. Their order matters for the rule that
	// all locales of one id share a version and a variable list: the
	// first module of an id is the reference, and the error names each
	// later module that differs from it.
	Modules []*Module
	// Labels maps a locale to the texts of its label file.
	Labels map[string]Labels
	// EmbeddedLabels gives each locale of the embedded library's label
	// files that Labels lacks the embedded labels (a library folder: its
	// label files are optional, and a deleted one falls back to them).
	EmbeddedLabels bool
}

// Build makes a Snapshot from parts and checks the rules that join files:
// one module per id and locale, all locales of an id share a
// version and a variable list, every placeholder is known, no include
// cycle. The error is FileErrors (matching ErrInvalid) naming each file
// at fault.
func Build(p Parts) (*Snapshot, error) {
	s, errs := build(p, true)
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// build is Build; include cycles are looked for only when cycles is set
// and every other rule holds.
func build(p Parts, cycles bool) (*Snapshot, FileErrors) {
	s := &Snapshot{modules: map[string]map[string]*Module{}, labels: map[string]Labels{}, Source: p.Source, Generation: p.Generation}
	var errs FileErrors
	byID := map[string][]*Module{} // in the order of p.Modules
	locales := map[string]bool{}
	for _, l := range p.Locales {
		locales[l] = true
	}
	for _, m := range p.Modules {
		locales[m.Locale] = true
		if s.modules[m.ID] == nil {
			s.modules[m.ID] = map[string]*Module{}
		}
		if prev, dup := s.modules[m.ID][LocaleKey(m.Locale)]; dup {
			errs = append(errs, &FileError{File: m.File, Field: "id", Msg: "same module and locale as " + prev.File})
			continue
		}
		s.modules[m.ID][LocaleKey(m.Locale)] = m
		byID[m.ID] = append(byID[m.ID], m)
	}
	for l := range locales {
		s.locales = append(s.locales, l)
	}
	sort.Strings(s.locales)
	for id := range s.modules {
		s.ids = append(s.ids, id)
	}
	sort.Strings(s.ids)
	for locale, l := range p.Labels {
		s.labels[LocaleKey(locale)] = l
		s.labelLocales = append(s.labelLocales, locale)
	}
	if p.EmbeddedLabels {
		for locale, l := range embeddedLabels() {
			if _, own := s.labels[LocaleKey(locale)]; !own {
				s.labels[LocaleKey(locale)] = l
				s.labelLocales = append(s.labelLocales, locale)
			}
		}
	}
	sort.Strings(s.labelLocales)

	for _, id := range s.ids {
		errs = append(errs, checkLocales(byID[id])...)
	}
	for _, id := range s.ids {
		for _, m := range byID[id] {
			if err := s.CheckPlaceholders(m); err != nil {
				errs = append(errs, err.(*FileError))
			}
		}
	}
	if cycles && len(errs) == 0 {
		errs = append(errs, s.checkIncludeCycles()...)
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].File < errs[j].File })
	return s, errs
}

// checkLocales enforces that all locales of one id (ms, the first being
// the reference) share one version line and one variable list.
func checkLocales(ms []*Module) FileErrors {
	var errs FileErrors
	first := ms[0]
	for _, m := range ms[1:] {
		if m.Version != first.Version {
			errs = append(errs, &FileError{File: m.File, Line: m.FieldLine("version"), Field: "version", Msg: fmt.Sprintf("version %d differs from %d in %s (all locales share one version)", m.Version, first.Version, first.File)})
		}
		if !sameVariables(m.Variables, first.Variables) {
			errs = append(errs, &FileError{File: m.File, Line: m.FieldLine("variables"), Field: "variables", Msg: "variables differ from " + first.File + " (all locales share one variable list)"})
		}
	}
	return errs
}

func sameVariables(a, b []Variable) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Escape != b[i].Escape {
			return false
		}
	}
	return true
}

// CheckPlaceholders checks the placeholders of one module (builtin or
// override) when it is loaded or saved, not only at render: every
// placeholder is a declared variable, a known environment value, or the
// id of a module in this snapshot. The error is a *FileError naming the
// line and the placeholder.
func (s *Snapshot) CheckPlaceholders(m *Module) error { return s.CheckPlaceholdersWith(m, nil) }

// CheckPlaceholdersWith is CheckPlaceholders that also accepts the module
// ids for which stored reports true: user modules, which live outside the
// library. stored may be nil.
func (s *Snapshot) CheckPlaceholdersWith(m *Module, stored func(id string) bool) error {
	if errs := s.PlaceholderErrors(m, stored); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// PlaceholderErrors is CheckPlaceholdersWith's check returning every
// unknown placeholder of m, in body order, each a *FileError naming its
// line; nil when there is none.
func (s *Snapshot) PlaceholderErrors(m *Module, stored func(id string) bool) FileErrors {
	var errs FileErrors
	for _, p := range m.Placeholders {
		if _, ok := m.Variable(p.Name); ok {
			continue
		}
		if _, ok := LookupEnv(p.Name); ok {
			continue
		}
		if s.Has(p.Name) || stored != nil && stored(p.Name) {
			continue
		}
		errs = append(errs, &FileError{File: m.File, Line: m.BodyLine + p.Line - 1, Field: "body", Msg: fmt.Sprintf("unknown placeholder {{%s}}: not a declared variable, an environment value or a module id", p.Name)})
	}
	return errs
}

// checkIncludeCycles reports include cycles among the library's modules,
// each with its path (a → b → a) at the line of the placeholder that
// starts it: each locale's module includes the same locale's module, else
// any locale's, as the assembler's fallback would. Only the modules on a
// cycle get an error: a module that merely includes one would repeat it.
func (s *Snapshot) checkIncludeCycles() FileErrors {
	var errs FileErrors
	for _, loc := range s.locales {
		done := map[string]bool{} // ids whose includes are known to end
		for _, id := range s.ids {
			m, ok := s.Module(id, loc)
			if !ok {
				continue
			}
			if path := s.cycleFrom(m, loc, []string{id}, done); path != nil && path[len(path)-1] == id {
				errs = append(errs, &FileError{File: m.File, Line: m.PlaceholderLine(path[1]), Field: "body", Msg: CycleMessage(path)})
			}
		}
	}
	return errs
}

// CycleMessage describes the include cycle along path, which starts at
// the module concerned (a → b → a): a module that includes itself, a
// chain that comes back to it, or, when the cycle does not come back to
// path[0], the include that leads into one.
func CycleMessage(path []string) string {
	switch {
	case len(path) == 2 && path[0] == path[1]:
		return fmt.Sprintf("{{%s}} includes the module in itself: a module cannot include its own text", path[1])
	case path[0] == path[len(path)-1]:
		return fmt.Sprintf("{{%s}} makes an include cycle: %s", path[1], strings.Join(path, " → "))
	}
	start := slices.Index(path, path[len(path)-1])
	return fmt.Sprintf("{{%s}} leads into an include cycle: %s", path[1], strings.Join(path[start:], " → "))
}

func (s *Snapshot) cycleFrom(m *Module, loc string, stack []string, done map[string]bool) []string {
	for _, p := range m.Placeholders {
		if _, v := m.Variable(p.Name); v || !s.Has(p.Name) || done[p.Name] {
			continue
		}
		if slices.Contains(stack, p.Name) {
			return append(stack, p.Name)
		}
		next, ok := s.Module(p.Name, loc)
		if !ok {
			next, _ = s.Any(p.Name)
		}
		if path := s.cycleFrom(next, loc, append(stack, p.Name), done); path != nil {
			return path
		}
	}
	done[m.ID] = true
	return nil
}

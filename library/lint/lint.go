// Package lint checks module files: the format errors the
// loader reports, and the module checklist, whose items are heuristics
// over a module's body and frontmatter reported as warnings with their
// rule number. The words the wording checks look for live in one cue file
// per locale (cues/<locale>.yaml); docs/lint.md describes every check and
// the layers it applies to.
package lint

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/library"
)

// Counts is how many findings of each severity a report has.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notices  int `json:"notices"`
}

// Report is the result of linting a library folder.
type Report struct {
	// Findings sorted by file, line, rule and message.
	Findings []library.Finding `json:"findings"`
	// Modules is the number of module files that parsed and were checked
	// against the checklist.
	Modules int    `json:"modules"`
	Counts  Counts `json:"counts"`
}

// Lint checks one parsed module against the module checklist, using the
// cue file of m.Locale. A locale without a cue file gets only the checks
// that need no words (rule 3's code-block check and the tool rule's schema
// check) and one notice saying so. It never returns format errors: m
// parsed.
func Lint(m *library.Module) []library.Finding {
	set, err := loadCues()
	if err != nil {
		return []library.Finding{cueError(m.File, err)}
	}
	c := set.forLocale(m.Locale)
	out := check(m, c)
	if c == nil {
		out = append(out, noCues(m.File, m.Locale, 1))
	}
	sortFindings(out)
	return out
}

// LintDir lints a library folder in the embedded layout
// (modules/<locale>/<layer>-<name>.md, labels/<locale>.yaml). The error is
// for a folder that cannot be read at all; everything wrong inside it is
// a finding.
func LintDir(dir string) (Report, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return Report{}, fmt.Errorf("library folder: %w", err)
	}
	if !st.IsDir() {
		return Report{}, fmt.Errorf("library folder %s is not a folder", dir)
	}
	return LintFS(os.DirFS(dir), dir)
}

// Builtin lints the library embedded in the binary.
func Builtin() (Report, error) {
	return LintFS(library.BuiltinFS(), "library")
}

// LintFS lints the library in fsys; prefix is prepended to paths in
// findings. Format errors are every error library.Load reports (each file,
// label file and cross-file rule). Every module file that parses on its
// own is then checked against the checklist, so one broken file does not
// hide the warnings of the others. A locale without a cue file gets one
// notice for all its modules.
func LintFS(fsys fs.FS, prefix string) (Report, error) {
	var r Report
	set, err := loadCues()
	if err != nil {
		return r, err
	}
	if _, err := library.Load(fsys, prefix); err != nil {
		var fes library.FileErrors
		if !errors.As(err, &fes) {
			return r, err
		}
		for _, fe := range fes {
			r.Findings = append(r.Findings, library.Finding{File: fe.File, Line: fe.Line, Field: fe.Field, Rule: library.RuleFormat, Severity: library.SeverityError, Message: fe.Msg})
		}
	}
	display := func(p string) string { return filepath.ToSlash(filepath.Join(prefix, p)) }
	localeDirs, _ := fs.ReadDir(fsys, "modules") // Load reported a missing folder
	for _, ld := range localeDirs {
		if !library.IsDir(fsys, path.Join("modules", ld.Name()), ld) {
			continue
		}
		locale := ld.Name()
		files, _ := fs.ReadDir(fsys, path.Join("modules", locale))
		c := set.forLocale(locale)
		uncued := 0
		for _, f := range files {
			p := path.Join("modules", locale, f.Name())
			if !strings.HasSuffix(f.Name(), ".md") || library.IsDir(fsys, p, f) {
				continue
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				continue // Load reported it
			}
			m, err := library.Parse(display(p), data)
			if err != nil {
				continue // Load reported it
			}
			m.Locale = locale
			r.Modules++
			r.Findings = append(r.Findings, check(m, c)...)
			if c == nil {
				uncued++
			}
		}
		if uncued > 0 {
			r.Findings = append(r.Findings, noCues(display(path.Join("modules", locale)), locale, uncued))
		}
	}
	sortFindings(r.Findings)
	for _, f := range r.Findings {
		switch f.Severity {
		case library.SeverityError:
			r.Counts.Errors++
		case library.SeverityWarning:
			r.Counts.Warnings++
		default:
			r.Counts.Notices++
		}
	}
	return r, nil
}

// noCues is the notice for modules of a locale without a cue file. The
// wording checks are skipped rather than reported: without the locale's
// words every module would warn on every rule, which says nothing about
// the modules.
func noCues(file, locale string, modules int) library.Finding {
	what := "this module"
	if modules > 1 {
		what = fmt.Sprintf("its %d modules", modules)
	}
	known, _ := CueLocales()
	return library.Finding{File: file, Rule: library.RuleCues, Severity: library.SeverityNotice,
		Message: fmt.Sprintf("no lint cue words for %s (cue files exist for %s): the wording checks of rules 1, 2 and 4–8 and of the tool rule were skipped for %s; rule 3's code-block check and the tool rule's schema check ran",
			locale, strings.Join(known, ", "), what)}
}

func cueError(file string, err error) library.Finding {
	return library.Finding{File: file, Rule: library.RuleCues, Severity: library.SeverityError, Message: "the lint's cue files are broken: " + err.Error()}
}

func sortFindings(fs []library.Finding) {
	slices.SortStableFunc(fs, func(a, b library.Finding) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

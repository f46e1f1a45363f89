package importer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/lint"
)

// run imports the folder dir (relative to the package) and fails the test
// on an error.
func run(t *testing.T, format Format, dir string, opts Options) *Result {
	t.Helper()
	res, err := Import(format, os.DirFS(dir), opts)
	if err != nil {
		t.Fatalf("import %s %s: %v", format, dir, err)
	}
	return res
}

// wantCounts checks the number of outcomes of each status.
func wantCounts(t *testing.T, res *Result, imported, notImported, used, skipped int) {
	t.Helper()
	got := res.Counts()
	if got[StatusImported] != imported || got[StatusNotImported] != notImported || got[StatusUsed] != used || got[StatusSkipped] != skipped {
		var report strings.Builder
		res.Report(&report, ".")
		t.Errorf("counts imported %d, not imported %d, used %d, skipped %d; want %d, %d, %d, %d\n%s",
			got[StatusImported], got[StatusNotImported], got[StatusUsed], got[StatusSkipped], imported, notImported, used, skipped, report.String())
	}
}

// outcome returns the outcome of source (and item, when not "").
func outcome(t *testing.T, res *Result, source, item string) Outcome {
	t.Helper()
	for _, o := range res.Outcomes {
		if o.Source == source && (item == "" || o.Item == item) {
			return o
		}
	}
	t.Fatalf("no outcome for %s %s", source, item)
	return Outcome{}
}

// moduleText returns the text of the module file p (modules/<locale>/…).
func moduleText(t *testing.T, res *Result, p string) string {
	t.Helper()
	for _, m := range res.Modules {
		if m.Path == p {
			return m.Text
		}
	}
	t.Fatalf("no module file %s; have %v", p, modulePaths(res))
	return ""
}

func modulePaths(res *Result) []string {
	var out []string
	for _, m := range res.Modules {
		out = append(out, m.Path)
	}
	return out
}

// hasNote reports whether o has a note (or reason) whose text (with its
// file and line, Note.String) contains every part, on line (0: any line).
func hasNote(o Outcome, line int, parts ...string) bool {
	for _, n := range slices.Concat(o.Notes, o.Reasons) {
		if line != 0 && n.Line != line {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(n.String(), p)
		}
		if all {
			return true
		}
	}
	return false
}

func wantNote(t *testing.T, o Outcome, line int, parts ...string) {
	t.Helper()
	if !hasNote(o, line, parts...) {
		t.Errorf("%s %s: no note or reason on line %d with %q; have notes %v, reasons %v", o.Source, o.Item, line, parts, o.Notes, o.Reasons)
	}
}

// wantFindings checks that o has exactly the findings want ("line N: msg"),
// in order.
func wantFindings(t *testing.T, o Outcome, want ...string) {
	t.Helper()
	var got []string
	for _, f := range o.Findings {
		got = append(got, f.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s %s: findings\n  %s\nwant\n  %s", o.Source, o.Item, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// value is the test value of variable name: recognisable in the output.
func value(name string) string { return "<" + name + "=v>" }

// loadAndRender writes res to a temporary library folder (with the
// project's label files, which rendering needs), loads it with
// library.LoadDir and renders every module in its locale with the
// assembler, supplying each variable the module and its includes
// declare. It returns the rendered texts by module path.
func loadAndRender(t *testing.T, res *Result) map[string]string {
	t.Helper()
	dir := t.TempDir()
	if err := res.WriteDir(dir, false); err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{"en-US", "zh-CN"} {
		data, err := os.ReadFile(filepath.Join("..", "labels", loc+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "labels"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "labels", loc+".yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := library.LoadDir(dir)
	if err != nil {
		t.Fatalf("the imported folder does not load:\n%v", err)
	}
	// The imported folder lints without errors (checklist warnings are
	// the operator's to address; they do not block serving).
	rep, err := lint.LintDir(dir)
	if err != nil || rep.Counts.Errors != 0 || rep.Modules != len(res.Modules) {
		t.Errorf("lint of the imported folder: %d errors over %d modules (want 0 over %d), %v\n%v", rep.Counts.Errors, rep.Modules, len(res.Modules), err, rep.Findings)
	}
	t.Logf("lint of the imported folder: %d modules, %d errors, %d warnings, %d notices", rep.Modules, rep.Counts.Errors, rep.Counts.Warnings, rep.Counts.Notices)
	asm := assembler.New(assembler.Config{})
	out := map[string]string{}
	for _, m := range res.Modules {
		vars := map[string]string{}
		collectVariables(snap, m.ID, m.Locale, vars, map[string]bool{})
		r, err := asm.Render(snap, nil, &assembler.RenderRequest{Module: m.ID, Locale: m.Locale, Variables: vars}, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		if err != nil {
			t.Errorf("render %s (%s): %v", m.ID, m.Locale, err)
			continue
		}
		if r.Locale != m.Locale || r.Fallback {
			t.Errorf("render %s (%s) served locale %s (fallback %v)", m.ID, m.Locale, r.Locale, r.Fallback)
		}
		for name := range vars {
			if mod, _ := snap.Module(m.ID, m.Locale); slices.ContainsFunc(mod.Placeholders, func(p library.Placeholder) bool { return p.Name == name }) && !strings.Contains(r.Text, value(name)) {
				t.Errorf("render %s (%s): the value of %s is missing from the text", m.ID, m.Locale, name)
			}
		}
		out[m.Path] = r.Text
	}
	return out
}

// collectVariables adds a value for every variable of id and of the
// modules it includes, as the renderer resolves them (locale, else any).
func collectVariables(snap *library.Snapshot, id, locale string, vars map[string]string, seen map[string]bool) {
	if seen[id] {
		return
	}
	seen[id] = true
	m, ok := snap.Module(id, locale)
	if !ok {
		m, _ = snap.Module(id, "en-US")
	}
	for _, v := range m.Variables {
		vars[v.Name] = value(v.Name)
	}
	for _, p := range m.Placeholders {
		if snap.Has(p.Name) {
			collectVariables(snap, p.Name, locale, vars, seen)
		}
	}
}

// writeTree writes files (slash path → text) under a new temporary
// folder and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

package reload_test

import (
	"path/filepath"
	"testing"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/lint"
)

// A module file with an upper-case extension is meant as a module: serve
// lists it as broken and lint reports it, rather than skipping it.
func TestUpperCaseExtensionIsAnInvalidFileName(t *testing.T) {
	t.Parallel()
	dir := folder(t)
	const rel = "modules/en-US/aux-caps.MD"
	write(t, dir, rel, read(t, dir, notesEN))
	want := `invalid file name "aux-caps.MD": a module file name ends in lower-case .md; `
	lib := start(t, dir)
	if b, ok := broken(lib.Current(), dir, rel); !ok || b.Serving || len(b.Msg) < len(want) || b.Msg[:len(want)] != want {
		t.Errorf("serve lists %v; want %s: %s…, not served", brokenList(lib.Current()), rel, want)
	}
	r, err := lint.LintDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings {
		found = found || (f.File == filepath.ToSlash(filepath.Join(dir, rel)) && f.Severity == library.SeverityError && len(f.Message) >= len(want) && f.Message[:len(want)] == want)
	}
	if !found {
		t.Errorf("lint: %+v; want an error %s: %s…", r.Findings, rel, want)
	}
}

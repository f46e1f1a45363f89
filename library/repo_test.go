package library_test

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// externalRef matches a citation a reader of this repository cannot
// open: a section number of the product specification (the letter S and
// a number, optionally with a subsection), the specification file itself,
// an edge-case id (the letter E and a number), or an issue number. The
// code, docs and console say the rule itself or link to docs/ instead.
var externalRef = regexp.MustCompile(`\bS[0-9]{1,2}(\.[0-9]{1,2})?\b|\bSPEC\b|\bE[0-9]{1,2}\b|\b[Ii]ssues? #?[0-9]+`)

// explainingFiles are the kinds of file that explain the project to a
// reader: source, templates, docs, schema, styles, scripts, settings.
var explainingFiles = []string{".go", ".templ", ".md", ".sql", ".css", ".js", ".json", ".yaml", ".yml", ".sh", ".html", ".toml"}

// skippedDirs hold data rather than explanation: test inputs (testdata),
// the example requests (real-world text, where an object-storage product
// reads like a section number), the builtin modules, whose prompt wording
// is versioned and changes only with a version bump, and installed
// packages. Hidden folders (.git, the .promptdesk data folder) are
// skipped too, except .ci.
var skippedDirs = []string{"testdata", "library/modules", "assembler/examples", "node_modules"}

func skipDir(name, rel string) bool {
	hidden := strings.HasPrefix(name, ".") && name != ".ci"
	return hidden || slices.Contains(skippedDirs, name) || slices.Contains(skippedDirs, rel)
}

// TestRepositoryCitesNothingOutsideIt walks the module from its root and
// reports every line of a source, template or doc file that cites the
// specification, an edge case or an issue by number.
func TestRepositoryCitesNothingOutsideIt(t *testing.T) {
	root := moduleRoot(t)
	var hits []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if path != root && skipDir(d.Name(), rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !explains(rel) {
			return nil
		}
		found, err := scan(path, rel)
		hits = append(hits, found...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) > 0 {
		t.Errorf("%d lines cite the specification, an edge case or an issue by number; say the rule or link to docs/ instead:\n%s", len(hits), strings.Join(hits, "\n"))
	}
}

// explains reports whether the file at rel (slash-separated, relative to
// the module root) is one a reader learns the project from. Minified
// files are vendored.
func explains(rel string) bool {
	name := filepath.Base(rel)
	switch {
	case strings.Contains(name, ".min."):
		return false
	case name == "Dockerfile", strings.HasPrefix(rel, ".ci/"):
		return true
	}
	return slices.Contains(explainingFiles, filepath.Ext(name))
}

// scan returns "rel:line: text" for every line of the file that matches
// externalRef; a long line is cut to the words around the first match.
func scan(path, rel string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hits []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if loc := externalRef.FindStringIndex(line); loc != nil {
			hits = append(hits, rel+":"+strconv.Itoa(n)+": "+around(line, loc[0], loc[1]))
		}
	}
	return hits, sc.Err()
}

// around is line, trimmed, or when it is long the 60 runes either side
// of line[from:to] with "…" where it was cut.
func around(line string, from, to int) string {
	const side = 60
	before, match, after := []rune(line[:from]), line[from:to], []rune(line[to:])
	pre, post := "", ""
	if len(before) > side {
		before, pre = before[len(before)-side:], "…"
	}
	if len(after) > side {
		after, post = after[:side], "…"
	}
	return strings.TrimSpace(pre + string(before) + match + string(after) + post)
}

// moduleRoot is the folder holding go.mod, found upward from the
// package's folder.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

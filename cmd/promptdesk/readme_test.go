package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's project structure table names every top-level folder and
// every Go package (the page packages under views/ go with their row),
// once, and nothing that does not exist.
func TestReadmeProjectStructure(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "## Project structure\n")
	if !ok {
		t.Fatal("README has no Project structure section")
	}
	if end := strings.Index(table, "\n## "); end >= 0 {
		table = table[:end]
	}
	rows := map[string]int{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(table, -1) {
		rows[strings.TrimSuffix(m[1], "/")]++
	}
	want := map[string]bool{}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && (!strings.HasPrefix(e.Name(), ".") || e.Name() == ".ci") {
			want[e.Name()] = true
		}
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if strings.HasPrefix(rel, "views/") || rel == "." || rel == "cmd" {
			return nil
		}
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				want[rel] = true
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(want, "cmd") // the binary's row is cmd/promptdesk
	for dir := range want {
		if rows[dir] != 1 {
			t.Errorf("the table has %d rows for %s, want 1", rows[dir], dir)
		}
	}
	for dir := range rows {
		if st, err := os.Stat(filepath.Join(root, dir)); err != nil || !st.IsDir() {
			t.Errorf("the table names %s, which is no folder", dir)
		}
	}
}

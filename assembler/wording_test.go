package assembler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// No prompt wording in Go code: every word the model reads comes from a
// library module or a label file. Two checks: no Han, Kana or Hangul text in
// any non-test Go file of the project, and no string literal of the
// packages that produce model text (assembler, library) shows up in the
// assembled text of the example scenarios.
func TestNoPromptWordingInGo(t *testing.T) {
	cjk := regexp.MustCompile(`[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]`)
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if cjk.MatchString(line) {
				t.Errorf("%s:%d: Chinese, Japanese or Korean text in Go code: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	snap, examples := builtinExamples(t)
	var texts []string
	for _, ex := range examples {
		req, err := DecodeRequest(ex.Request)
		if err != nil {
			t.Fatal(err)
		}
		res, err := New(Config{}).Assemble(snap, nil, req, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatalf("%s: %v", ex.ID, err)
		}
		texts = append(texts, res.Text)
	}
	words := regexp.MustCompile(`[A-Za-z]{3,}[^A-Za-z]+[A-Za-z]{3,}`)
	for _, lit := range goStringLiterals(t, ".", "../library") {
		if !words.MatchString(lit.value) || isModuleIDPart(snap, lit.value) {
			continue
		}
		for _, text := range texts {
			if strings.Contains(text, lit.value) {
				t.Errorf("%s: the Go string %q appears in assembled prompt text", lit.pos, lit.value)
				break
			}
		}
	}
}

type goLiteral struct{ pos, value string }

func goStringLiterals(t *testing.T, dirs ...string) []goLiteral {
	t.Helper()
	var out []goLiteral
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
					if s, err := strconv.Unquote(bl.Value); err == nil {
						out = append(out, goLiteral{fset.Position(bl.Pos()).String(), s})
					}
				}
				return true
			})
		}
	}
	return out
}

// isModuleIDPart reports whether s is a layer prefix such as "task." or
// a module id: ids are library data and appear in the skill table.
func isModuleIDPart(snap *library.Snapshot, s string) bool {
	for _, id := range snap.IDs() {
		if strings.HasPrefix(id, s) {
			return true
		}
	}
	return false
}

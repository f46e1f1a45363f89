package assembler_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/assembler"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (go test ./assembler -run Golden -update)")

// The app's own examples (assembler.Examples) assemble with the builtin
// library, no operator state and token counting on to exactly the Result
// stored in testdata/<example-id>/result.json (json.MarshalIndent). After
// -update, read the table sections of each changed golden against its
// example request before committing.
func TestGoldenExamples(t *testing.T) {
	t.Parallel()
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatalf("Examples: %v", err)
	}
	if len(examples) == 0 {
		t.Fatal("no examples embedded")
	}
	ids := map[string]bool{}
	for _, ex := range examples {
		ids[ex.ID] = true
		t.Run(ex.ID, func(t *testing.T) {
			t.Parallel()
			req, err := assembler.DecodeRequest(ex.Request)
			if err != nil {
				t.Fatalf("request: %v", err)
			}
			if req.Now == nil {
				t.Fatalf("example %s has no \"now\": its golden would change every day", ex.ID)
			}
			res, err := assembler.New(assembler.Config{CountTokens: true}).Assemble(builtinLib(t), nil, req, fixedNow)
			if err != nil {
				t.Fatalf("Assemble: %v", err)
			}
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", ex.ID, "result.json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./assembler -run Golden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the assembled result (check the change, then -update):\n%s", path, firstDiff(want, got))
			}
		})
	}
	t.Run("no stale goldens", func(t *testing.T) {
		t.Parallel()
		dirs, _ := filepath.Glob(filepath.Join("testdata", "*", "result.json"))
		for _, d := range dirs {
			if id := filepath.Base(filepath.Dir(d)); !ids[id] {
				t.Errorf("%s has no example %s.json: delete it", d, id)
			}
		}
	})
}

// firstDiff shows where want and got first differ: the line number and
// about 60 bytes of context on each side of the first differing byte.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w == g {
			continue
		}
		at := 0
		for at < len(w) && at < len(g) && w[at] == g[at] {
			at++
		}
		return fmt.Sprintf("line %d, byte %d:\n golden: %s\n    got: %s", i+1, at+1, excerpt(w, at), excerpt(g, at))
	}
	return "(only the line count differs)"
}

// excerpt is s around byte at, cut on rune boundaries.
func excerpt(s string, at int) string {
	from, to := max(0, at-60), min(len(s), at+60)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	out := s[from:to]
	if from > 0 {
		out = "…" + out
	}
	if to < len(s) {
		out += "…"
	}
	return out
}

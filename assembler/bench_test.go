package assembler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// Benchmarks of assembly (targets and figures in BENCHMARKS.md):
//
//	go test ./assembler -run '^$' -bench '^BenchmarkAssemble$' -benchtime 2s -count 3
//
// Targets on rag-minutes-zh and its same-shape twin, the example
// minutes-zh (42 documents, 45 multi-line FAQ entries, 2 selected
// documents, 12 skills, a Chinese message with an attachment): ≤ 30 µs/op
// and ≤ 40 KB/op without token counting, ≤ 130 µs/op with it.

// benchCase is one request to assemble.
type benchCase struct {
	name string
	req  *assembler.Request
}

// benchCases are the app's own examples and, when ../../shared/cases is
// present, the real scenarios.
func benchCases(b *testing.B) []benchCase {
	examples, err := assembler.Examples()
	if err != nil {
		b.Fatal(err)
	}
	var cases []benchCase
	for _, ex := range examples {
		req, err := assembler.DecodeRequest(ex.Request)
		if err != nil {
			b.Fatalf("example %s: %v", ex.ID, err)
		}
		cases = append(cases, benchCase{"example/" + ex.ID, req})
	}
	scenarios, _ := filepath.Glob(filepath.Join(fuzzScenarioDir, "*.json"))
	for _, p := range scenarios {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		req, err := assembler.DecodeRequest(data)
		if err != nil {
			b.Fatalf("scenario %s: %v", p, err)
		}
		cases = append(cases, benchCase{"scenario/" + strings.TrimSuffix(filepath.Base(p), ".json"), req})
	}
	return cases
}

// BenchmarkAssemble assembles each example and scenario with the builtin
// library, without and with token counting.
func BenchmarkAssemble(b *testing.B) {
	snap, err := library.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range benchCases(b) {
		for _, counting := range []bool{false, true} {
			name := c.name + "/tokens=off"
			if counting {
				name = c.name + "/tokens=on"
			}
			a := assembler.New(assembler.Config{CountTokens: counting})
			b.Run(name, func(b *testing.B) {
				// One call outside the timing: checks the request and loads
				// the tokenizer's vocabulary once per process.
				res, err := a.Assemble(snap, nil, c.req, fuzzNow)
				if err != nil {
					b.Fatal(err)
				}
				if counting && res.Tokens == 0 {
					b.Fatal("token counting on, but the result counts 0 tokens")
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := a.Assemble(snap, nil, c.req, fuzzNow); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

package assembler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/assembler/tokens"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/librarytest"
)

// Benchmarks of assembly (targets and figures in BENCHMARKS.md):
//
//	go test ./assembler -run '^$' -bench '^BenchmarkAssemble$' -benchtime 2s -count 3
//
// tokens=off assembles without counting; tokens=on counts through the
// process-wide memo, warm after the first call; tokens=cold counts through
// a fresh memo and a fresh Assembler every iteration, so it measures the
// tokenizer. Targets are in BENCHMARKS.md, against anchors run beside
// them (../shared/bench/weknora/compare).

// benchCase is one request to assemble, decoded and as its JSON body.
type benchCase struct {
	name string
	req  *assembler.Request
	body []byte
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
		cases = append(cases, benchCase{"example/" + ex.ID, req, ex.Request})
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
		cases = append(cases, benchCase{"scenario/" + strings.TrimSuffix(filepath.Base(p), ".json"), req, data})
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
		for _, mode := range []string{"off", "on", "cold"} {
			counting := mode != "off"
			a := assembler.New(assembler.Config{CountTokens: counting})
			b.Run(c.name+"/tokens="+mode, func(b *testing.B) {
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
					if mode == "cold" {
						a = assembler.New(assembler.Config{CountTokens: true, TokenMemo: tokens.NewMemo(tokens.DefaultMemoBytes)})
					}
					if _, err := a.Assemble(snap, nil, c.req, fuzzNow); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCount counts the assembled text of each example and scenario
// whole, without a memo, in o200k_base and cl100k_base; MB/s is the
// tokenizer's speed on real text, to compare with tiktoken's Rust core
// (../shared/bench/tokenizer/anchor on the same text).
func BenchmarkCount(b *testing.B) {
	snap, err := library.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	a := assembler.New(assembler.Config{})
	for _, c := range benchCases(b) {
		res, err := a.Assemble(snap, nil, c.req, fuzzNow)
		if err != nil {
			b.Fatal(err)
		}
		for _, enc := range []string{"o200k_base", "cl100k_base"} {
			counter, err := tokens.ForEncoding(enc)
			if err != nil {
				b.Fatal(err)
			}
			whole := counter.WithMemo(nil)
			b.Run(c.name+"/"+enc, func(b *testing.B) {
				b.SetBytes(int64(len(res.Text)))
				for b.Loop() {
					whole.Count(res.Text)
				}
			})
		}
	}
}

// BenchmarkDecodeRequest decodes the body of each example and scenario
// the way the API does (one strict pass); MB/s is over the body.
func BenchmarkDecodeRequest(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := assembler.DecodeRequest(c.body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAssembleLarge assembles the app's examples with the builtin
// library (35 ids) and with the generated library of
// librarytest.Large ids, side by side: with -count N the two sizes
// alternate, so their ratio holds on a noisy machine.
//
//	go test ./assembler -run '^$' -bench '^BenchmarkAssembleLarge$' -benchtime 2s -count 3
func BenchmarkAssembleLarge(b *testing.B) {
	builtin, err := library.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	large, err := librarytest.Library(librarytest.Large)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range benchCases(b) {
		if !strings.HasPrefix(c.name, "example/") {
			continue
		}
		for _, mode := range []string{"off", "on"} {
			for _, lib := range []struct {
				name string
				snap *library.Snapshot
			}{{"builtin", builtin}, {"large", large}} {
				a := assembler.New(assembler.Config{CountTokens: mode == "on"})
				b.Run(c.name+"/tokens="+mode+"/library="+lib.name, func(b *testing.B) {
					if _, err := a.Assemble(lib.snap, nil, c.req, fuzzNow); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					for b.Loop() {
						if _, err := a.Assemble(lib.snap, nil, c.req, fuzzNow); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

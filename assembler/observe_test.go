package assembler_test

import (
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
)

// Config.Observe is told of each successful assembly once: its duration,
// and the part spent counting tokens, none when counting is off.
func TestObserveTimesEachAssembly(t *testing.T) {
	for _, counting := range []bool{false, true} {
		var seen []assembler.Timing
		a := assembler.New(assembler.Config{CountTokens: counting, Observe: func(t assembler.Timing) { seen = append(seen, t) }})
		req, err := assembler.DecodeRequest([]byte(`{"locale":"en-US","command":"/fieldnotes"}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Assemble(builtinLib(t), nil, req, fixedNow); err != nil {
			t.Fatal(err)
		}
		bad, err := assembler.DecodeRequest([]byte(`{"locale":"en-US","profile":"none"}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Assemble(builtinLib(t), nil, bad, fixedNow); err == nil {
			t.Fatal("a missing profile assembled")
		}
		if len(seen) != 1 {
			t.Fatalf("counting %v: %d observations, want 1 (failures are not timed)", counting, len(seen))
		}
		got := seen[0]
		if got.Assemble <= 0 || got.Tokens < 0 || got.Tokens > got.Assemble || (got.Tokens > 0) != counting {
			t.Errorf("counting %v: %+v, want a duration with a token part only when counting", counting, got)
		}
	}
}

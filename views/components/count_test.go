package components

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 modules", 1: "1 module", 2: "2 modules", 21: "21 modules"} {
		if got := Count(n, "module", "modules"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

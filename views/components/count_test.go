package components

import "testing"

// Count takes the console's counts from the label files, in their plural
// form.
func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 modules", 1: "1 module", 2: "2 modules", 21: "21 modules"} {
		if got := Count("count.modules", n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Count("count.impact", 1, "total", "3"); got != "1 of 3 changes" {
		t.Errorf("impact count %q", got)
	}
}

package lint

import "testing"

// The builtin library lints with no finding at all, in every locale: it
// is the example operators copy, so each module follows the checklist.
func TestBuiltinLintsClean(t *testing.T) {
	r, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		t.Errorf("%s", f)
	}
	if r.Modules != 70 {
		t.Errorf("linted %d modules, want 70 (35 in zh-CN and en-US each)", r.Modules)
	}
}

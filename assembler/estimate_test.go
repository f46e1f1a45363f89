package assembler

import (
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// The output buffer is sized once from estimate: it must cover the text
// (or the buffer grows by doubling) and stay close to it (or memory is
// wasted), here within 5 % for the app's examples.
func TestEstimateCoversText(t *testing.T) {
	snap, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	examples, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	a := New(Config{})
	for _, ex := range examples {
		req, err := DecodeRequest(ex.Request)
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Assemble(snap, nil, req, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		r := &renderer{lab: a.labelsFor(snap, res.Locale)}
		pl, err := a.plan(snap, &State{}, req, nil, res.Locale, r)
		if err != nil {
			t.Fatal(err)
		}
		if est := estimate(pl, req); est < len(res.Text) || est > len(res.Text)*105/100 {
			t.Errorf("%s: estimate %d bytes for a text of %d", ex.ID, est, len(res.Text))
		}
	}
}

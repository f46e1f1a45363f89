package assembler

import (
	"github.com/promptdesk/promptdesk/library"

	"os"
	"path/filepath"
	"testing"
	"time"
)

// The output buffer is sized once from estimate: it must cover the text
// (or the buffer grows by doubling) and stay close to it (or memory is
// wasted), here within 3 % for the app's examples and the real scenarios.
func TestEstimateCoversText(t *testing.T) {
	snap, examples := builtinExamples(t)
	a := New(Config{})
	scenarios, _ := filepath.Glob("../../shared/cases/scenarios/*.json")
	for _, p := range scenarios {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		examples = append(examples, Example{ID: filepath.Base(p), Request: data})
	}
	for _, ex := range examples {
		req, err := DecodeRequest(ex.Request)
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Assemble(snap, nil, req, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		r := &renderer{a: a, snap: snap, st: &State{}, locale: library.LocaleKey(res.Locale), declared: map[string]bool{}, req: req, loc: time.UTC, lab: a.labelsFor(snap, res.Locale), vars: req.Variables, model: req.Model}
		pl, err := a.plan(snap, r.st, req, nil, res.Locale, r)
		if err != nil {
			t.Fatal(err)
		}
		r.prepareKnowledgeTables()
		if pl.skills != nil {
			if _, err := a.fitSkills(r, *pl.skills, a.SkillBudget(nil)); err != nil {
				t.Fatal(err)
			}
		}
		if est := estimate(pl, r); est < len(res.Text) || est > len(res.Text)*103/100 {
			t.Errorf("%s: estimate %d bytes for a text of %d", ex.ID, est, len(res.Text))
		} else {
			t.Logf("%s: estimate %d bytes for a text of %d", ex.ID, est, len(res.Text))
		}
	}
}

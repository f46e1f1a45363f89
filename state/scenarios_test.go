package state_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/state"
)

// saveClock is the Now of the scenario service in these tests.
var saveClock = time.Date(2026, 3, 1, 9, 30, 15, 0, time.UTC)

func newScenarios(t *testing.T) (*service, *state.Scenarios) {
	t.Helper()
	s := newService(t)
	return s, &state.Scenarios{Store: s.st, Served: s.Served, Assembler: s.Assembler, Now: func() time.Time { return saveClock }}
}

const translateRequest = `{"locale": "en-US", "message": "Please translate this note", "model": "gpt-4o", "now": "2026-11-29T15:45:00Z"}`

func TestScenarioSeedOnce(t *testing.T) {
	t.Parallel()
	s, sc := newScenarios(t)
	if err := sc.Seed(s.ctx); err != nil {
		t.Fatal(err)
	}
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatal(err)
	}
	list, err := sc.List(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(examples) {
		t.Fatalf("%d scenarios seeded, want %d", len(list), len(examples))
	}
	for i, ex := range examples {
		if list[i].ID != ex.ID || !list[i].Builtin || list[i].Accepted != nil {
			t.Errorf("seeded %+v, want the example %s, never accepted", list[i], ex.ID)
		}
	}
	// The examples are ordinary scenarios: edited, accepted and deleted,
	// and not seeded again while any scenario exists.
	if _, err := sc.Update(s.ctx, examples[0].ID, state.ScenarioDraft{Name: "Mine now", Request: string(examples[0].Request)}); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Accept(s.ctx, examples[0].ID, ""); err != nil {
		t.Fatal(err)
	}
	if err := sc.Delete(s.ctx, examples[1].ID); err != nil {
		t.Fatal(err)
	}
	if err := sc.Seed(s.ctx); err != nil {
		t.Fatal(err)
	}
	if list, _ := sc.List(s.ctx); len(list) != len(examples)-1 || list[0].Name != "Mine now" || list[0].Accepted == nil {
		t.Errorf("after a second Seed: %d scenarios, first %+v", len(list), list[0])
	}
}

func TestScenarioCreateChecksAndPins(t *testing.T) {
	t.Parallel()
	s, sc := newScenarios(t)
	saved, _, err := sc.Create(s.ctx, state.ScenarioDraft{Name: "  Translate a note  ", Description: "d",
		Request: `{"message": "Please translate this note", "model": "gpt-4o"}`, Locale: "en-US"}, false)
	if err != nil {
		t.Fatal(err)
	}
	// The id comes from the name; the locale field and the time of saving
	// are written into the request, its own members kept in order.
	want := `{"message": "Please translate this note", "model": "gpt-4o", "locale": "en-US", "now": "2026-03-01T09:30:15Z"}`
	if saved.ID != "translate-a-note" || saved.Name != "Translate a note" || string(saved.Request) != want {
		t.Errorf("saved %s %q %s, want translate-a-note with %s", saved.ID, saved.Name, saved.Request, want)
	}
	// A request with its own now keeps it; a second scenario of the same
	// name gets -2; a Chinese name is transliterated (the slug library of
	// module names), a name with nothing to keep is "scenario-" and a short
	// hash of the name.
	again, _, err := sc.Create(s.ctx, state.ScenarioDraft{Name: "Translate a note", Request: translateRequest, Locale: "zh-CN"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != "translate-a-note-2" || !strings.Contains(string(again.Request), `"now": "2026-11-29T15:45:00Z"`) || !strings.Contains(string(again.Request), `"locale": "zh-CN"`) {
		t.Errorf("second: %s %s", again.ID, again.Request)
	}
	zh, _, err := sc.Create(s.ctx, state.ScenarioDraft{Name: "会议纪要", Request: `{}`}, false)
	if err != nil || zh.ID != "hui-yi-ji-yao" {
		t.Errorf("a Chinese name: id %q, %v; want hui-yi-ji-yao", zh.ID, err)
	}
	if none, _, err := sc.Create(s.ctx, state.ScenarioDraft{Name: "!!! ???", Request: `{}`}, false); err != nil || none.ID != "scenario-2618f69b" {
		t.Errorf("a name of punctuation: id %q, %v; want scenario-2618f69b (its name's SHA-256)", none.ID, err)
	}
	if other, _, err := sc.Create(s.ctx, state.ScenarioDraft{Name: "?!?", Request: `{}`}, false); err != nil || other.ID == "scenario-2618f69b" || !strings.HasPrefix(other.ID, "scenario-") {
		t.Errorf("another name of punctuation: id %q, %v; want its own scenario- hash", other.ID, err)
	}
	// A given id is used as it is, and a taken one is a conflict.
	if got, _, err := sc.Create(s.ctx, state.ScenarioDraft{ID: "mine", Name: "x", Request: `{}`}, false); err != nil || got.ID != "mine" {
		t.Errorf("given id: %q, %v", got.ID, err)
	}
	if _, _, err := sc.Create(s.ctx, state.ScenarioDraft{ID: "mine", Name: "x", Request: `{}`}, false); !errors.Is(err, library.ErrConflict) {
		t.Errorf("taken id: %v, want ErrConflict", err)
	}

	for _, tt := range []struct {
		name   string
		d      state.ScenarioDraft
		fields []string
	}{
		{"nothing", state.ScenarioDraft{}, []string{"name", "request"}},
		{"bad id", state.ScenarioDraft{ID: "Not OK", Name: "n", Request: `{}`}, []string{"id"}},
		{"two-line name", state.ScenarioDraft{Name: "a\nb", Request: `{}`}, []string{"name"}},
		{"long name", state.ScenarioDraft{Name: strings.Repeat("x", state.MaxScenarioName+1), Request: `{}`}, []string{"name"}},
		{"control character", state.ScenarioDraft{Name: "n", Description: "a\x00b", Request: `{}`}, []string{"description"}},
		{"malformed JSON", state.ScenarioDraft{Name: "n", Request: `{"locale": `}, []string{"request"}},
		{"not an object", state.ScenarioDraft{Name: "n", Request: `[1]`}, []string{"request"}},
		{"bad field", state.ScenarioDraft{Name: "n", Request: `{"knowledgeBases": [{"id": "k", "name": "K", "type": "wiki"}]}`}, []string{"request.knowledgeBases[0].type"}},
		{"unknown field", state.ScenarioDraft{Name: "n", Request: `{"colour": "red"}`}, []string{"request.colour"}},
		{"bad locale field", state.ScenarioDraft{Name: "n", Request: `{}`, Locale: "not a locale!"}, []string{"request.locale"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := sc.Create(s.ctx, tt.d, false)
			var se state.ScenarioError
			if !errors.As(err, &se) || !errors.Is(err, library.ErrInvalid) {
				t.Fatalf("err = %v, want a ScenarioError", err)
			}
			var fields []string
			for _, f := range se {
				fields = append(fields, f.Field)
				if f.Msg == "" {
					t.Errorf("field %s without a message", f.Field)
				}
			}
			if !reflect.DeepEqual(fields, tt.fields) {
				t.Errorf("fields %v, want %v (%v)", fields, tt.fields, err)
			}
		})
	}
}

// The life of a scenario: never accepted, accepted (unchanged), changed
// by a published override (not by a draft), refused with a stale
// fingerprint, accepted again; and a scenario that does not assemble.
func TestScenarioRunCompareAccept(t *testing.T) {
	t.Parallel()
	s, sc := newScenarios(t)
	saved, run, err := sc.Create(s.ctx, state.ScenarioDraft{Name: "Translate", Request: translateRequest}, false)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "" {
		t.Errorf("a create without accept ran: %+v", run)
	}
	run, err = sc.Run(s.ctx, saved.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != state.RunNeverAccepted || run.Result == nil || run.Output.Text != run.Result.Text || run.TextDiff != nil || len(run.Fingerprint) != 64 {
		t.Fatalf("first run: %+v", run)
	}
	for _, l := range run.Output.Report {
		if strings.HasPrefix(l, "library(") {
			t.Errorf("the output keeps the library line %q", l)
		}
	}
	if len(run.Output.Report) != len(run.Result.Report)-1 || run.Output.Tokens != run.Result.Tokens {
		t.Errorf("output report %d lines of %d, tokens %d of %d", len(run.Output.Report), len(run.Result.Report), run.Output.Tokens, run.Result.Tokens)
	}

	accepted, err := sc.Accept(s.ctx, saved.ID, run.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if a := accepted.Scenario.Accepted; accepted.Status != state.RunUnchanged || a == nil || a.Text != run.Output.Text || a.By != "tester" {
		t.Fatalf("accept: %+v", accepted)
	}
	if run, _ = sc.Run(s.ctx, saved.ID); run.Status != state.RunUnchanged {
		t.Fatalf("after accept: %s", run.Status)
	}

	// A draft does not change what is served, so not the scenario.
	const line = "Answer in the register of a ship's log."
	text := s.withLine(t, "base.identity", line)
	draft := s.save(t, "base.identity", text, 0)
	if run, _ = sc.Run(s.ctx, saved.ID); run.Status != state.RunUnchanged {
		t.Fatalf("with a draft: %s", run.Status)
	}
	stale := run.Fingerprint
	if _, err := s.Publish(s.ctx, "base.identity", "en-US", draft.Revision); err != nil {
		t.Fatal(err)
	}
	run, err = sc.Run(s.ctx, saved.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != state.RunChanged {
		t.Fatalf("after publishing: %s", run.Status)
	}
	ins, del := linediff.Count(run.TextDiff)
	if ins == 0 || !hasLine(run.TextDiff, linediff.Insert, line) {
		t.Errorf("text diff +%d -%d lacks the inserted line %q", ins, del, line)
	}
	if !hasLine(run.ReportDiff, linediff.Insert, "prompt(base.identity v1 · default · override r1)") ||
		!hasLine(run.ReportDiff, linediff.Delete, "prompt(base.identity v1 · default)") {
		t.Errorf("report diff %+v", run.ReportDiff)
	}
	if _, err := sc.Accept(s.ctx, saved.ID, stale); !errors.Is(err, state.ErrOutputMoved) || !errors.Is(err, library.ErrConflict) {
		t.Errorf("accept with the old fingerprint: %v, want ErrOutputMoved", err)
	}
	if got, _ := sc.Get(s.ctx, saved.ID); got.Accepted.Text == run.Output.Text {
		t.Error("the refused accept stored the output")
	}
	if _, err := sc.Accept(domain.WithActor(s.ctx, "alice"), saved.ID, run.Fingerprint); err != nil {
		t.Fatal(err)
	}
	runs, err := sc.RunAll(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Status != state.RunUnchanged || runs[0].Scenario.Accepted.By != "alice" {
		t.Errorf("RunAll after the second accept: %+v", runs)
	}

	// A request naming a profile that does not exist fails to run, and
	// cannot be accepted; Create with accept keeps it, not accepted.
	bad, failed, err := sc.Create(s.ctx, state.ScenarioDraft{Name: "Ghost profile", Request: `{"profile": "ghost"}`}, true)
	if err != nil {
		t.Fatal(err)
	}
	if failed.Status != state.RunFailed || !errors.Is(failed.Err, library.ErrNotFound) || failed.Result != nil {
		t.Errorf("run of a missing profile: %+v", failed)
	}
	if got, err := sc.Get(s.ctx, bad.ID); err != nil || got.Accepted != nil {
		t.Errorf("the failed scenario: %+v, %v", got, err)
	}
	if _, err := sc.Accept(s.ctx, bad.ID, ""); !errors.Is(err, state.ErrNotAcceptable) || !strings.Contains(err.Error(), "ghost") {
		t.Errorf("accepting it: %v, want ErrNotAcceptable naming the profile", err)
	}
	if _, err := sc.Run(s.ctx, "nope"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("running a missing scenario: %v", err)
	}
}

// A stored request without "now" (saved before saves pinned it) runs at
// the scenario's last update, so two runs a day apart agree.
func TestScenarioWithoutNowRunsAtItsUpdate(t *testing.T) {
	t.Parallel()
	s, sc := newScenarios(t)
	stored, err := s.st.SaveScenario(s.ctx, domain.Scenario{ID: "clockless", Name: "Clockless", Request: json.RawMessage(`{"locale": "en-US"}`)})
	if err != nil {
		t.Fatal(err)
	}
	run := sc.RunOn(t.Context(), s.Served.Current(), stored)
	if run.Status != state.RunNeverAccepted {
		t.Fatalf("run: %+v", run)
	}
	if now := "Current time: " + stored.UpdatedAt.UTC().Format(time.RFC3339); !strings.Contains(run.Output.Text, now) {
		t.Errorf("the text lacks %q: the run is not at the scenario's update", now)
	}
	again := sc.RunOn(t.Context(), s.Served.Current(), stored)
	if again.Fingerprint != run.Fingerprint {
		t.Error("two runs of the same request on the same state differ")
	}
}

func hasLine(lines []linediff.Line, op linediff.Op, text string) bool {
	for _, l := range lines {
		if l.Op == op && l.Text == text {
			return true
		}
	}
	return false
}

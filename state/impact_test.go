package state_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/state"
)

// withScenarios is newService with token counting on and the app's
// example scenarios saved, plus extra scenarios (id → request JSON).
func withScenarios(t *testing.T, extra map[string]string) *service {
	t.Helper()
	s := newService(t)
	s.Assembler = assembler.New(assembler.Config{CountTokens: true})
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		if _, err := s.st.SaveScenario(s.ctx, domain.Scenario{ID: ex.ID, Name: ex.Name, Request: ex.Request, Builtin: true}); err != nil {
			t.Fatal(err)
		}
	}
	for id, req := range extra {
		if _, err := s.st.SaveScenario(s.ctx, domain.Scenario{ID: id, Name: id, Request: json.RawMessage(req)}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// builtinWithLine is the builtin text of id in locale with line added to
// its body.
func (s *service) builtinWithLine(t *testing.T, id, locale, line string) string {
	t.Helper()
	m, ok := s.lib.Module(id, locale)
	if !ok {
		t.Fatalf("no builtin %s (%s)", id, locale)
	}
	return strings.TrimRight(m.Text, "\n") + "\n\n" + line + "\n"
}

// byID indexes impacts by scenario id.
func byID(scs []state.ScenarioImpact) map[string]state.ScenarioImpact {
	out := map[string]state.ScenarioImpact{}
	for _, s := range scs {
		out[s.ID] = s
	}
	return out
}

// An unsaved edit of task.doc-minutes (zh-CN) changes exactly the two
// minutes scenarios, which enter it; the others stay the same, a
// scenario that cannot assemble is listed with its error, and nothing is
// stored.
func TestImpactOfAnUnsavedEdit(t *testing.T) {
	t.Parallel()
	s := withScenarios(t, map[string]string{"broken-profile": `{"profile": "no-such-profile", "locale": "en-US", "message": "hi"}`})
	const line = "每条行动项都写明负责人。"
	text := s.builtinWithLine(t, "task.doc-minutes", "zh-CN", line)

	scs, err := s.Impact(s.ctx, "task.doc-minutes", "zh-CN", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) != 6 {
		t.Fatalf("%d scenarios assembled, want the 5 examples and the broken one", len(scs))
	}
	got := byID(scs)
	for _, id := range []string{"minutes-zh", "command-minutes-zh"} {
		i := got[id]
		if !i.Changed() || i.Failed() {
			t.Errorf("%s: changed %v, errors %q %q; want changed", id, i.Changed(), i.BeforeErr, i.AfterErr)
		}
		if strings.Contains(i.Before, line) || !strings.Contains(i.After, line) {
			t.Errorf("%s: the new line is not what changed", id)
		}
		if i.BeforeTokens == 0 || i.AfterTokens <= i.BeforeTokens {
			t.Errorf("%s: tokens %d → %d, want a real count that grows", id, i.BeforeTokens, i.AfterTokens)
		}
	}
	for _, id := range []string{"translate-en", "fallback-ja"} {
		if i := got[id]; i.Changed() || i.Failed() || i.Before == "" || i.BeforeTokens != i.AfterTokens {
			t.Errorf("%s: changed %v (errors %q %q), tokens %d → %d; want the same output", id, i.Changed(), i.BeforeErr, i.AfterErr, i.BeforeTokens, i.AfterTokens)
		}
	}
	if b := got["broken-profile"]; !b.Failed() || b.BeforeErr == nil || b.AfterErr == nil || !strings.Contains(b.BeforeErr.Error(), "no-such-profile") || b.AfterErr.Error() != b.BeforeErr.Error() {
		t.Errorf("broken scenario: before %q after %q; want both failing on the profile", b.BeforeErr, b.AfterErr)
	}
	if _, err := s.st.GetOverride(context.Background(), "task.doc-minutes", "zh-CN"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("the impact stored an override: %v", err)
	}

	// A text that fails the checks cannot be assembled: its errors, by line.
	_, err = s.Impact(s.ctx, "task.doc-minutes", "zh-CN", strings.Replace(text, "version: 1\n", "version: one\n", 1))
	var te *state.TextError
	if !errors.As(err, &te) || !errors.Is(err, library.ErrInvalid) || len(te.Errors) != 1 || te.Errors[0].Line == 0 {
		t.Fatalf("impact of an invalid text: %v, want a TextError naming the line", err)
	}
}

// Effect of a removal: the published override serves now, the builtin
// after; every scenario entering base.identity in en-US (ja-JP falls
// back to it) changes.
func TestEffectOfARemoval(t *testing.T) {
	t.Parallel()
	s := withScenarios(t, nil)
	const line = "Sign every answer as the research desk."
	saved := s.save(t, "base.identity", s.withLine(t, "base.identity", line), 0)
	if _, err := s.Publish(s.ctx, "base.identity", "en-US", saved.Revision); err != nil {
		t.Fatal(err)
	}
	e, err := s.Effect(s.ctx, state.Change{ID: "base.identity", Locale: "en-US", Remove: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.lib.Module("base.identity", "en-US")
	if e.Before.From != "override revision 1 (en-US)" || !strings.Contains(e.Before.Text, line) {
		t.Errorf("before: %q", e.Before.From)
	}
	if e.After.From != "builtin en-US v1" || e.After.Text != b.Text {
		t.Errorf("after: %q, want the builtin text", e.After.From)
	}
	got := byID(e.Scenarios)
	for id, want := range map[string]bool{"translate-en": true, "fallback-ja": true, "minutes-zh": false, "command-minutes-zh": false} {
		i := got[id]
		if i.Changed() != want || i.Failed() {
			t.Errorf("%s: changed %v (errors %q %q), want %v", id, i.Changed(), i.BeforeErr, i.AfterErr, want)
		}
		if want && (!strings.Contains(i.Before, line) || strings.Contains(i.After, line)) {
			t.Errorf("%s: the override's line is not what goes", id)
		}
	}
	// The draft label names the text after.
	e, err = s.Effect(s.ctx, state.Change{ID: "base.identity", Locale: "en-US", Text: s.withLine(t, "base.identity", "Another line."), Label: "draft revision 2"})
	if err != nil || e.After.From != "draft revision 2 (en-US)" {
		t.Errorf("after of a draft: %q, %v", e.After.From, err)
	}
}

// A save of the head's exact text on an older revision is no conflict:
// nothing is stored and the head comes back; another text on that
// revision is still a conflict.
func TestSaveEqualToTheHeadIsUnchanged(t *testing.T) {
	t.Parallel()
	s := newService(t)
	first := s.withLine(t, "base.identity", "First line.")
	second := s.withLine(t, "base.identity", "Second line.")
	s.save(t, "base.identity", first, 0)
	s.save(t, "base.identity", second, 1)

	for _, rev := range []int{1, 0, 9} {
		out, err := s.Save(s.ctx, state.Edit{ID: "base.identity", Locale: "en-US", Text: second, Revision: rev})
		if err != nil || out.Kind != state.OutcomeUnchanged || out.Head == nil || out.Head.Revision != 2 {
			t.Fatalf("revision %d with the head's text: %v %+v, want unchanged with the head at revision 2", rev, err, out.Kind)
		}
	}
	// Whitespace at the end does not count, as for the builtin.
	if out, _ := s.Save(s.ctx, state.Edit{ID: "base.identity", Locale: "en-US", Text: second + "\n\n", Revision: 1}); out.Kind != state.OutcomeUnchanged {
		t.Errorf("the head's text with trailing blank lines: %s, want unchanged", out.Kind)
	}
	if out, _ := s.Save(s.ctx, state.Edit{ID: "base.identity", Locale: "en-US", Text: first, Revision: 1}); out.Kind != state.OutcomeConflict {
		t.Errorf("another text on a stale revision: %s, want conflict", out.Kind)
	}
	revs, err := s.st.ListRevisions(context.Background(), "base.identity", "en-US")
	if err != nil || len(revs) != 2 {
		t.Errorf("%d revisions (%v), want 2: nothing stored", len(revs), err)
	}
}

// A stale save's three-way: the common text is the revision it started
// from, the merge holds both edits; a merge saved with markers left is
// refused under their lines.
func TestThreeWayOfAStaleSave(t *testing.T) {
	t.Parallel()
	s := newService(t)
	b, _ := s.lib.Module("base.identity", "en-US")
	common := b.Text + "\nA line both start from.\n"
	s.save(t, "base.identity", common, 0)
	theirs := strings.Replace(common, "\n---\n", "\n---\nTheir opening line.\n", 1)
	head := s.save(t, "base.identity", theirs, 1)
	yours := strings.Replace(common, "A line both start from.", "A line I changed.", 1)

	tw, err := s.ThreeWay(s.ctx, "base.identity", "en-US", 1, yours, head)
	if err != nil {
		t.Fatal(err)
	}
	if tw.Common != common || !strings.HasPrefix(tw.CommonFrom, "revision 1 by tester") {
		t.Errorf("common from %q", tw.CommonFrom)
	}
	if len(tw.Merged.Conflicts) != 0 || !strings.Contains(tw.Merged.Text, "Their opening line.") || !strings.Contains(tw.Merged.Text, "A line I changed.") {
		t.Errorf("merge with %d conflicts:\n%s", len(tw.Merged.Conflicts), tw.Merged.Text)
	}

	// Both change the same line: a conflict, marked yours / theirs.
	clash := strings.Replace(theirs, "Their opening line.", "My opening line.", 1)
	mine := strings.Replace(common, "\n---\n", "\n---\nMy opening line.\n", 1)
	tw, err = s.ThreeWay(s.ctx, "base.identity", "en-US", 1, mine, head)
	if err != nil {
		t.Fatal(err)
	}
	if len(tw.Merged.Conflicts) != 1 || !strings.Contains(tw.Merged.Text, linediff.MarkerYours+"\nMy opening line.\n=======\nTheir opening line.\n"+linediff.MarkerTheirs) {
		t.Fatalf("conflicting merge:\n%s", tw.Merged.Text)
	}
	out, err := s.Save(s.ctx, state.Edit{ID: "base.identity", Locale: "en-US", Text: tw.Merged.Text, Revision: head.Revision})
	if err != nil || out.Kind != state.OutcomeInvalid || len(out.Errors) != 1 || !strings.Contains(out.Errors[0].Msg, "conflict markers") {
		t.Fatalf("saving the merge with markers: %v %s %+v, want one conflict marker error", err, out.Kind, out.Errors)
	}
	out, err = s.Save(s.ctx, state.Edit{ID: "base.identity", Locale: "en-US", Text: clash, Revision: head.Revision})
	if err != nil || out.Kind != state.OutcomeStored || out.Saved.Revision != 3 {
		t.Fatalf("saving the resolved merge: %v %s", err, out.Kind)
	}

	// An edit of a new override started from the builtin.
	tw, err = s.ThreeWay(s.ctx, "base.identity", "en-US", 0, yours, out.Saved)
	if err != nil || tw.Common != b.Text || tw.CommonFrom != "the builtin en-US text, version 1" {
		t.Errorf("common of revision 0: %q, %v", tw.CommonFrom, err)
	}
}

// Where used: the profiles naming the module and the scenarios it enters,
// with the composition report's reasons.
func TestWhereUsed(t *testing.T) {
	t.Parallel()
	s := withScenarios(t, nil)
	profiles := &state.Profiles{Store: s.st, Served: s.Served}
	if _, err := profiles.Create(s.ctx, state.ProfileDraft{ID: "minutes-desk", Name: "Minutes desk", Locale: "zh-CN",
		PromptModules: "base.identity\ntask.doc-minutes"}); err != nil {
		t.Fatal(err)
	}
	u, err := s.WhereUsed(s.ctx, "task.doc-minutes")
	if err != nil {
		t.Fatal(err)
	}
	if u.Total != 5 || len(u.Scenarios) != 2 {
		t.Fatalf("task.doc-minutes enters %d of %d scenarios: %+v", len(u.Scenarios), u.Total, u.Scenarios)
	}
	reasons := map[string]string{}
	for _, sc := range u.Scenarios {
		if len(sc.Entries) != 1 || sc.Entries[0].Kind != assembler.KindPrompt {
			t.Fatalf("%s entries %+v", sc.ID, sc.Entries)
		}
		reasons[sc.ID] = sc.Entries[0].Reason
	}
	if reasons["command-minutes-zh"] != "command:/minutes" || !strings.HasPrefix(reasons["minutes-zh"], "intent:") {
		t.Errorf("reasons %v", reasons)
	}
	if len(u.Profiles) != 1 || u.Profiles[0].ID != "minutes-desk" || u.Profiles[0].Position != 2 {
		t.Errorf("profiles %+v, want minutes-desk at position 2", u.Profiles)
	}
	if u, _ := s.WhereUsed(s.ctx, "task.code-review"); len(u.Profiles) != 0 || len(u.Scenarios) != 0 {
		t.Errorf("task.code-review is used in %+v", u)
	}
}

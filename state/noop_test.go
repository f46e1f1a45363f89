package state_test

import (
	"errors"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/state"
)

// counts is how many revisions of id (en-US) and audit entries of
// overrides there are.
func (s *service) counts(t *testing.T, id string) (revisions, audit int) {
	t.Helper()
	revs, err := s.st.ListRevisions(s.ctx, id, "en-US")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := s.st.ListAudit(s.ctx, domain.AuditFilter{Subject: domain.SubjectOverride})
	if err != nil {
		t.Fatal(err)
	}
	return len(revs), len(entries)
}

// A save of the head's own text (the draft's, or the published one's
// when no draft is pending; trailing white space aside) stores nothing:
// no revision, no audit entry; a restore of the head's text likewise, and
// a discard with no draft pending says so without recording anything.
func TestNoOpWritesRecordNothing(t *testing.T) {
	t.Parallel()
	s := newService(t)
	text := s.withLine(t, "base.identity", "Answer briefly.")
	d := s.save(t, "base.identity", text, 0)
	if _, err := s.Publish(s.ctx, "base.identity", "en-US", d.Revision); err != nil {
		t.Fatal(err)
	}
	revs, audit := s.counts(t, "base.identity")

	for _, again := range []string{text, text + "\n\n"} {
		out, err := s.Save(s.ctx, state.Edit{ID: "base.identity", Locale: "en-US", Text: again, Revision: d.Revision})
		if err != nil || out.Kind != state.OutcomeUnchanged || out.Head == nil || out.Head.Revision != d.Revision {
			t.Fatalf("save of the published head's text: %v %+v; want unchanged at revision %d", err, out.Kind, d.Revision)
		}
	}
	draft := s.save(t, "base.identity", s.withLine(t, "base.identity", "Answer at length."), d.Revision)
	out, err := s.Save(s.ctx, state.Edit{ID: "base.identity", Locale: "en-US", Text: draft.Text, Revision: draft.Revision})
	if err != nil || out.Kind != state.OutcomeUnchanged {
		t.Fatalf("save of the draft's text: %v %+v; want unchanged", err, out.Kind)
	}
	out, err = s.Restore(s.ctx, "base.identity", "en-US", draft.Revision, draft.Revision)
	if err != nil || out.Kind != state.OutcomeUnchanged {
		t.Fatalf("restore of the head itself: %v %+v; want unchanged", err, out.Kind)
	}
	if r, a := s.counts(t, "base.identity"); r != revs+1 || a != audit+1 {
		t.Errorf("%d revisions, %d audit entries; want %d and %d: only the one real save recorded", r, a, revs+1, audit+1)
	}

	if _, _, err := s.Discard(s.ctx, "base.identity", "en-US", draft.Revision); err != nil {
		t.Fatal(err)
	}
	revs, audit = s.counts(t, "base.identity")
	_, _, err = s.Discard(s.ctx, "base.identity", "en-US", draft.Revision) // posted again
	var none *state.NoDraft
	if !errors.As(err, &none) || none.Head.Revision != draft.Revision+1 {
		t.Fatalf("discard posted again: %v; want NoDraft at revision %d", err, draft.Revision+1)
	}
	if r, a := s.counts(t, "base.identity"); r != revs || a != audit {
		t.Errorf("the second discard recorded something: %d revisions, %d audit entries; want %d and %d", r, a, revs, audit)
	}
}

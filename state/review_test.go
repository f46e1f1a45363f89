package state_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// With review on, a draft serves only after someone else approves its
// change request: a direct publish is refused, the author's approval is
// refused by the service and by the store, a rejection needs a reason
// and serves nothing, and an approval serves the draft with the author's
// note, recorded in the audit log.
func TestChangeReview(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.Review = true
	ada := domain.WithActor(t.Context(), "ada")
	bob := domain.WithActor(t.Context(), "bob")
	text := s.withLine(t, "base.identity", "Answer in one line.")
	out, err := s.Save(ada, state.Edit{ID: "base.identity", Locale: "en-US", Text: text})
	if err != nil || out.Kind != state.OutcomeStored {
		t.Fatal(err, out.Kind)
	}
	if _, err := s.Publish(ada, "base.identity", "en-US", 1); !errors.Is(err, state.ErrReviewRequired) {
		t.Fatalf("a direct publish with review on: %v, want ErrReviewRequired", err)
	}
	r, err := s.Request(domain.WithNote(ada, "one line is enough"), domain.ChangeRequest{Action: domain.ActionPublish, ModuleID: "base.identity", Locale: "en-US", Revision: 1})
	if err != nil || r.Status != domain.RequestOpen || r.Author != "ada" || r.Note != "one line is enough" {
		t.Fatalf("request %+v, %v", r, err)
	}
	if _, err := s.Request(ada, domain.ChangeRequest{Action: domain.ActionPublish, ModuleID: "base.identity", Locale: "en-US", Revision: 1}); !errors.Is(err, library.ErrConflict) {
		t.Errorf("a second open request: %v, want a conflict", err)
	}
	var self *domain.SelfApproval
	if _, err := s.Approve(ada, r.ID, ""); !errors.As(err, &self) || !errors.Is(err, library.ErrForbidden) {
		t.Errorf("self-approval through the service: %v, want SelfApproval", err)
	}
	if _, err := s.st.ApproveChangeRequest(ada, r.ID, ""); !errors.As(err, &self) {
		t.Errorf("self-approval through the store: %v, want SelfApproval", err)
	}
	if served := s.Served.Current().State.Overrides.Len(); served != 0 {
		t.Fatalf("%d overrides serve before approval", served)
	}
	approved, err := s.Approve(bob, r.ID, "looks right")
	if err != nil || approved.Status != domain.RequestApproved || approved.DecidedBy != "bob" || approved.Reason != "looks right" {
		t.Fatalf("approve: %+v, %v", approved, err)
	}
	head, err := s.Head(t.Context(), "base.identity", "en-US")
	if err != nil || head.PublishedRevision != 1 || head.Published.By != "bob" || head.Published.Note != "one line is enough" {
		t.Errorf("after approval: %+v, %v; want revision 1 published by bob with the author's note", head, err)
	}
	if _, ok := s.Served.Current().State.Overrides.Get(assembler.Key("base.identity", "en-US")); !ok {
		t.Error("the approved draft does not serve")
	}
	if _, err := s.Approve(bob, r.ID, ""); !errors.As(err, new(*domain.Decided)) {
		t.Errorf("approving twice: %v, want Decided", err)
	}

	// A rejection: a reason is required, nothing serves differently.
	if _, err := s.Save(ada, state.Edit{ID: "base.identity", Locale: "en-US", Text: s.withLine(t, "base.identity", "Answer in two lines."), Revision: 1}); err != nil {
		t.Fatal(err)
	}
	r2, err := s.Request(ada, domain.ChangeRequest{Action: domain.ActionDelete, ModuleID: "base.identity", Locale: "en-US", Revision: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reject(bob, r2.ID, " "); !errors.Is(err, library.ErrInvalid) {
		t.Errorf("a rejection without reason: %v, want invalid", err)
	}
	rejected, err := s.Reject(bob, r2.ID, "the override is still needed")
	if err != nil || rejected.Status != domain.RequestRejected || rejected.Reason != "the override is still needed" {
		t.Fatalf("reject: %+v, %v", rejected, err)
	}
	if head, err := s.Head(t.Context(), "base.identity", "en-US"); err != nil || head.Revision != 2 || head.PublishedRevision != 1 {
		t.Errorf("after the rejection: %+v, %v; want the draft 2 on published 1", head, err)
	}
	audit, err := s.st.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectOverride})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range audit {
		got = append(got, a.Actor+" "+a.Action+" "+a.Note)
	}
	want := []string{"bob reject the override is still needed", "ada request ", "ada save ", "bob approve looks right", "bob publish one line is enough", "ada request one line is enough", "ada create "}
	if len(got) != len(want) {
		t.Fatalf("audit %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("audit %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// TestStaleKeepMineIsNotApproved: a keep mine requested against a builtin
// text that no longer serves is refused at approval (it would not end
// the drift), and stays open.
func TestStaleKeepMineIsNotApproved(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.Review = true
	ada := domain.WithActor(t.Context(), "ada")
	bob := domain.WithActor(t.Context(), "bob")
	text := s.withLine(t, "base.identity", "Answer in one line.")
	if out, err := s.Save(ada, state.Edit{ID: "base.identity", Locale: "en-US", Text: text}); err != nil || out.Kind != state.OutcomeStored {
		t.Fatal(err, out.Kind)
	}
	// Requested while the builtin was another text (as when the library
	// is reloaded with a new version after the request).
	r, err := s.st.RequestChange(ada, domain.ChangeRequest{Action: domain.ActionKeepMine, ModuleID: "base.identity", Locale: "en-US", Revision: 1,
		BuiltinVersion: 1, BuiltinText: "an older builtin text", BuiltinHash: domain.TextHash("an older builtin text")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Approve(bob, r.ID, ""); !errors.Is(err, library.ErrConflict) || !strings.Contains(err.Error(), "moved on since keep mine was requested") {
		t.Errorf("approving a stale keep mine: %v; want a conflict saying the builtin moved on", err)
	}
	if cur, err := s.ChangeRequest(t.Context(), r.ID); err != nil || cur.Status != domain.RequestOpen {
		t.Errorf("the request after the refused approval: %+v, %v; want it open", cur, err)
	}
}

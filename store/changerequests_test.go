package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// The store refuses a self-approval and a second decision whatever the
// caller; an approval whose events cannot be written stores nothing of
// it: the request stays open, nothing is published, no audit entry.
func TestChangeRequestStoreRules(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	endpoints(t, s, 1)
	ada := domain.WithActor(t.Context(), "ada")
	bob := domain.WithActor(t.Context(), "bob")
	if _, err := s.SaveOverride(ada, override("identity", "en-US", "one"), 0); err != nil {
		t.Fatal(err)
	}
	r, err := s.RequestChange(domain.WithNote(ada, "why not"), domain.ChangeRequest{Action: domain.ActionPublish, ModuleID: "identity", Locale: "en-US", Revision: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RequestChange(ada, domain.ChangeRequest{Action: domain.ActionDelete, ModuleID: "identity", Locale: "en-US", Revision: 2}); !errors.Is(err, library.ErrConflict) {
		t.Errorf("a request on a stale revision: %v, want a conflict", err)
	}
	var self *domain.SelfApproval
	if _, err := s.ApproveChangeRequest(ada, r.ID, ""); !errors.As(err, &self) {
		t.Errorf("self-approval: %v", err)
	}

	failEvents(t, dbURL)
	if _, err := s.ApproveChangeRequest(bob, r.ID, "ok"); err == nil || !strings.Contains(err.Error(), "the event cannot be written") {
		t.Fatalf("approval with its events failing: %v, want the trigger's error", err)
	}
	got, err := s.GetChangeRequest(t.Context(), r.ID)
	if err != nil || got.Status != domain.RequestOpen || got.DecidedBy != "" {
		t.Errorf("request after the failed approval: %+v, %v; want it open", got, err)
	}
	head, err := s.GetOverride(t.Context(), "identity", "en-US")
	if err != nil || head.PublishedRevision != 0 {
		t.Errorf("head after the failed approval: %+v, %v; want nothing published", head, err)
	}
	if a, err := s.ListAudit(t.Context(), domain.AuditFilter{Actor: "bob"}); err != nil || len(a) != 0 {
		t.Errorf("audit of the failed approval: %+v, %v; want none", a, err)
	}
	if _, err := s.RejectChangeRequest(bob, r.ID, "no"); err == nil {
		t.Error("a rejection with its event failing: no error")
	}
	if got, _ := s.GetChangeRequest(t.Context(), r.ID); got.Status != domain.RequestOpen {
		t.Errorf("request after the failed rejection: %s, want open", got.Status)
	}
}

// A request, its approval and the publish it makes are each a webhook
// event; the publish carries the author's note and the approver as actor.
func TestChangeRequestEvents(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	endpoints(t, s, 1)
	ada := domain.WithActor(t.Context(), "ada")
	if _, err := s.SaveOverride(ada, override("identity", "en-US", "one"), 0); err != nil {
		t.Fatal(err)
	}
	r, err := s.RequestChange(domain.WithNote(ada, "why not"), domain.ChangeRequest{Action: domain.ActionPublish, ModuleID: "identity", Locale: "en-US", Revision: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveChangeRequest(domain.WithActor(t.Context(), "bob"), r.ID, "fine"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range outbox(t, dbURL) {
		e := o.event
		line := o.key + " " + e.Actor + " " + e.Note
		if e.Request != nil {
			line += " " + e.Request.Status + " " + e.Request.Reason
		}
		got = append(got, line)
	}
	want := []string{
		"override.change-requested:identity:en-us:request-1 ada why not open ",
		"override.published:identity:en-us:1 bob why not",
		"override.change-approved:identity:en-us:request-1 bob why not approved fine",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

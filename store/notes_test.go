package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
)

// A note given with a save is kept with its revision, its audit entry
// and the head; a publish's note with its audit entry, the webhook event
// and the head's publication, which also says who published and when.
func TestNotesAndPublication(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	endpoints(t, s, 1)
	ada := domain.WithActor(t.Context(), "ada")
	bob := domain.WithActor(t.Context(), "bob")

	saved, err := s.SaveOverride(domain.WithNote(ada, "shorter greeting"), override("identity", "en-US", "one"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Note != "shorter greeting" || saved.Published.By != "" {
		t.Errorf("saved head: note %q, published %+v; want the note, nothing published", saved.Note, saved.Published)
	}
	before := time.Now()
	pub, err := s.Publish(domain.WithNote(bob, "approved in the weekly review"), "identity", "en-US", 1)
	if err != nil {
		t.Fatal(err)
	}
	if pub.Published.By != "bob" || pub.Published.Note != "approved in the weekly review" || pub.Published.At.Before(before.Add(-time.Minute)) {
		t.Errorf("published head: %+v; want bob, now, with the publish's note", pub.Published)
	}
	if _, err := s.SaveOverride(ada, override("identity", "en-US", "two"), 1); err != nil { // 2, a draft without note
		t.Fatal(err)
	}

	revs, err := s.ListRevisions(t.Context(), "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 2 {
		t.Fatalf("%d revisions, want 2", len(revs))
	}
	if r := revs[0]; r.Revision != 2 || r.Note != "" || r.Serving || r.Published.By != "" {
		t.Errorf("revision 2: %+v; want no note, a draft not serving", r)
	}
	if r := revs[1]; r.Revision != 1 || r.Note != "shorter greeting" || !r.Serving || r.Published.By != "bob" ||
		r.Published.Note != "approved in the weekly review" || r.Published.At.IsZero() {
		t.Errorf("revision 1: note %q serving %v published %+v; want its note, serving, published by bob with the note", r.Note, r.Serving, r.Published)
	}
	served, err := s.ListOverrides(t.Context())
	if err != nil || len(served) != 1 || served[0].Note != "shorter greeting" || served[0].Published.By != "bob" {
		t.Errorf("served %+v, %v; want revision 1 with its note, published by bob", served, err)
	}

	audit, err := s.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectOverride})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, a := range audit {
		notes = append(notes, a.Action+":"+a.Note)
	}
	if got, want := strings.Join(notes, "|"), "save:|publish:approved in the weekly review|create:shorter greeting"; got != want {
		t.Errorf("audit notes %q, want %q", got, want)
	}
	events := outbox(t, dbURL)
	if len(events) != 1 || events[0].event.Note != "approved in the weekly review" || events[0].event.Actor != "bob" {
		t.Errorf("events %+v; want the publish by bob with its note", events)
	}
	if !strings.Contains(mustBody(t, dbURL), `"note":"approved in the weekly review"`) {
		t.Errorf("the stored webhook body has no note: %s", mustBody(t, dbURL))
	}
}

// A delete is published at once: the head's publication names who
// deleted, with the delete's note, and the revision is the served one.
func TestRemovalIsItsOwnPublication(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ada := domain.WithActor(t.Context(), "ada")
	if _, err := s.SaveOverride(ada, override("identity", "en-US", "one"), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteOverride(domain.WithNote(domain.WithActor(t.Context(), "cy"), "builtin is better now"), "identity", "en-US", 1); err != nil {
		t.Fatal(err)
	}
	revs, err := s.ListRevisions(t.Context(), "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if r := revs[0]; r.Action != domain.ActionDelete || r.Note != "builtin is better now" || !r.Serving || r.Published.By != "cy" ||
		r.Published.Note != "builtin is better now" {
		t.Errorf("delete revision %+v; want cy's delete with its note, serving", r)
	}
}

// mustBody is the stored body of the only webhook event.
func mustBody(t *testing.T, dbURL string) string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var body string
	if err := conn.QueryRow(t.Context(), `SELECT body FROM webhook_events`).Scan(&body); err != nil {
		t.Fatal(err)
	}
	return body
}

// A publish whose event cannot be written stores none of its
// publication: no publisher, no note, the draft still the head.
func TestFailedPublishRecordsNoPublication(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	endpoints(t, s, 1)
	ada := domain.WithActor(t.Context(), "ada")
	if _, err := s.SaveOverride(ada, override("identity", "en-US", "one"), 0); err != nil {
		t.Fatal(err)
	}
	failEvents(t, dbURL)
	if _, err := s.Publish(domain.WithNote(ada, "ship it"), "identity", "en-US", 1); err == nil {
		t.Fatal("publish with its event failing: no error")
	}
	head, err := s.GetOverride(t.Context(), "identity", "en-US")
	if err != nil || head.PublishedRevision != 0 || head.Published != (domain.Publication{}) {
		t.Errorf("head %+v, %v; want nothing published, no publication", head, err)
	}
	if got, err := s.ListAudit(t.Context(), domain.AuditFilter{Action: domain.ActionPublish}); err != nil || len(got) != 0 {
		t.Errorf("publish audit %+v, %v; want none", got, err)
	}
}

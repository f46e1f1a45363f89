package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

func TestCreateUpdateScenario(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "alice")
	in := domain.Scenario{ID: "minutes", Name: "Minutes", Description: "d", Request: json.RawMessage(minutesRequest)}
	created, err := s.CreateScenario(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if created.ID != "minutes" || created.Name != "Minutes" || string(created.Request) != minutesRequest || created.Accepted != nil || created.Builtin {
		t.Errorf("created = %+v", created)
	}
	if _, err := s.CreateScenario(ctx, domain.Scenario{ID: "minutes", Name: "Other", Request: json.RawMessage(`{}`)}); !errors.Is(err, library.ErrConflict) {
		t.Errorf("creating a taken id: %v, want ErrConflict", err)
	}
	if got, _ := s.GetScenario(ctx, "minutes"); got.Name != "Minutes" {
		t.Errorf("the refused create changed the scenario: %+v", got)
	}
	if _, err := s.CreateScenario(ctx, domain.Scenario{ID: "bad", Request: json.RawMessage(`[1]`)}); !errors.Is(err, library.ErrInvalid) {
		t.Errorf("a request that is not an object: %v, want ErrInvalid", err)
	}

	// An update keeps the accepted output and the example mark.
	if _, err := s.AcceptScenario(ctx, "minutes", domain.ScenarioOutput{Text: "old text\n", Report: []string{"prompt(a v1 · default)"}, Tokens: 3}); err != nil {
		t.Fatal(err)
	}
	upd, err := s.UpdateScenario(ctx, domain.Scenario{ID: "minutes", Name: "Minutes 2", Description: "", Request: json.RawMessage(`{"locale": "en-US"}`), Builtin: true})
	if err != nil {
		t.Fatal(err)
	}
	if upd.Name != "Minutes 2" || upd.Description != "" || string(upd.Request) != `{"locale": "en-US"}` || upd.Builtin {
		t.Errorf("updated = %+v", upd)
	}
	if upd.Accepted == nil || upd.Accepted.Text != "old text\n" {
		t.Errorf("the update dropped the accepted output: %+v", upd.Accepted)
	}
	if !upd.UpdatedAt.After(created.UpdatedAt) {
		t.Errorf("UpdatedAt %v not after %v", upd.UpdatedAt, created.UpdatedAt)
	}
	if _, err := s.UpdateScenario(ctx, domain.Scenario{ID: "nope", Name: "x", Request: json.RawMessage(`{}`)}); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("updating a missing scenario: %v, want ErrNotFound", err)
	}

	entries, err := s.ListAudit(ctx, domain.AuditFilter{Subject: domain.SubjectScenario, SubjectID: "minutes"})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
		if e.Actor != "alice" {
			t.Errorf("audit %s by %q, want alice", e.Action, e.Actor)
		}
	}
	if want := []string{domain.ActionUpdate, domain.ActionAccept, domain.ActionCreate}; !reflect.DeepEqual(actions, want) {
		t.Errorf("audit actions %v, want %v (newest first)", actions, want)
	}
}

func TestAcceptScenario(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "bob")
	if _, err := s.SaveScenario(ctx, domain.Scenario{ID: "faq", Name: "FAQ", Request: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcceptScenario(ctx, "missing", domain.ScenarioOutput{Text: "x"}); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("accepting a missing scenario: %v, want ErrNotFound", err)
	}
	first := domain.ScenarioOutput{Text: "You are Quill.\n", Report: []string{"prompt(base.identity v1 · default)", "prompt(env.pure-agent v1 · no-knowledge-base)"}, Tokens: 42}
	got, err := s.AcceptScenario(ctx, "faq", first)
	if err != nil {
		t.Fatal(err)
	}
	a := got.Accepted
	if a == nil || a.Text != first.Text || !reflect.DeepEqual(a.Report, first.Report) || a.Tokens != 42 || a.By != "bob" || a.At.IsZero() {
		t.Fatalf("accepted = %+v, want %+v by bob", a, first)
	}
	// Read back through List, an empty report stays an empty list (not
	// "never accepted").
	second := domain.ScenarioOutput{Text: "", Report: nil, Tokens: 0}
	if _, err := s.AcceptScenario(domain.WithActor(ctx, "carol"), "faq", second); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListScenarios(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Accepted == nil || list[0].Accepted.Text != "" || list[0].Accepted.Report == nil || len(list[0].Accepted.Report) != 0 || list[0].Accepted.By != "carol" {
		t.Errorf("listed = %+v", list)
	}
	if !list[0].Accepted.At.After(a.At) && !list[0].Accepted.At.Equal(a.At) {
		t.Errorf("accepted at %v before the first accept %v", list[0].Accepted.At, a.At)
	}

	entries, err := s.ListAudit(ctx, domain.AuditFilter{Action: domain.ActionAccept, SubjectID: "faq"})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%d accept entries, want 2", len(entries))
	}
	newest, oldest := entries[0], entries[1]
	if oldest.Before != "" || !strings.HasPrefix(oldest.After, "You are Quill.\n") ||
		!strings.Contains(oldest.After, "42 tokens") || !strings.Contains(oldest.After, "prompt(env.pure-agent v1 · no-knowledge-base)\n") {
		t.Errorf("first accept audit: before %q after %q", oldest.Before, oldest.After)
	}
	if newest.Before != oldest.After || newest.Actor != "carol" {
		t.Errorf("second accept audit: before %q (want the first output), actor %q", newest.Before, newest.Actor)
	}
}

// A row whose accepted columns are only partly set is refused by the
// schema: the five are set together.
func TestAcceptedColumnsTogether(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	if _, err := s.SaveScenario(t.Context(), domain.Scenario{ID: "a", Request: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), `UPDATE scenarios SET accepted_text = 'x' WHERE id = 'a'`)
	if err == nil || !strings.Contains(err.Error(), "scenarios_accepted_together") {
		t.Errorf("partial accepted columns: %v, want the check constraint", err)
	}
}

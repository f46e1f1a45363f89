package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
)

// line is an audit entry without its id and time, for comparison.
type line struct {
	Actor, Action, Subject, SubjectID, Locale string
	Revision                                  int
	Before, After                             string
}

func lines(t *testing.T, s *store.Store, f domain.AuditFilter) []line {
	t.Helper()
	entries, err := s.ListAudit(t.Context(), f)
	if err != nil {
		t.Fatal(err)
	}
	out := []line{}
	for i, e := range entries {
		if e.At.IsZero() || i > 0 && e.ID >= entries[i-1].ID {
			t.Errorf("entry %d: At %v, ID %d; want set, newest first", i, e.At, e.ID)
		}
		out = append(out, line{e.Actor, e.Action, e.Subject, e.SubjectID, e.Locale, e.Revision, e.Before, e.After})
	}
	return out
}

func wantLines(t *testing.T, what string, got, want []line) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func TestAuditOverrides(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "console")
	steps := []func() error{
		func() error { _, err := s.SaveOverride(ctx, override("identity", "zh-CN", "one"), 0); return err },
		func() error { _, err := s.SaveOverride(ctx, override("identity", "zh-CN", "two"), 1); return err },
		func() error { _, err := s.KeepMine(ctx, "identity", "zh-CN", 2, 3, "builtin v3", ""); return err },
		func() error { return s.TakeBuiltin(domain.WithActor(ctx, "reviewer"), "identity", "zh-CN", 3) },
		func() error { _, err := s.RestoreRevision(ctx, "identity", "zh-CN", 1, 4); return err },
		func() error { return s.DeleteOverride(domain.WithActor(ctx, "api"), "identity", "zh-CN", 5) },
		// Refused changes leave no trace.
		func() error {
			_, err := s.SaveOverride(ctx, override("identity", "zh-CN", "stale"), 2)
			if !errors.Is(err, library.ErrConflict) {
				return errors.Join(errors.New("stale save not refused"), err)
			}
			return nil
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	o := func(actor, action string, rev int, before, after string) line {
		return line{actor, action, "override", "identity", "zh-CN", rev, before, after}
	}
	wantLines(t, "override audit", lines(t, s, domain.AuditFilter{}), []line{
		o("api", "delete", 6, "one", ""),
		o("console", "restore", 5, "", "one"),
		o("reviewer", "take-builtin", 4, "two", ""),
		o("console", "keep-mine", 3, "two", "two"),
		o("console", "save", 2, "one", "two"),
		o("console", "create", 1, "", "one"),
	})

	// Filters, limit and paging.
	wantLines(t, "actor filter", lines(t, s, domain.AuditFilter{Actor: "reviewer"}), []line{o("reviewer", "take-builtin", 4, "two", "")})
	wantLines(t, "action filter", lines(t, s, domain.AuditFilter{Action: "save"}), []line{o("console", "save", 2, "one", "two")})
	wantLines(t, "subject filter", lines(t, s, domain.AuditFilter{Subject: "profile"}), []line{})
	wantLines(t, "subject id filter", lines(t, s, domain.AuditFilter{Subject: "override", SubjectID: "other"}), []line{})
	page, err := s.ListAudit(t.Context(), domain.AuditFilter{Actor: "console", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].Action != "restore" || page[1].Action != "keep-mine" {
		t.Fatalf("first page = %+v", page)
	}
	wantLines(t, "second page", lines(t, s, domain.AuditFilter{Actor: "console", Limit: 2, BeforeID: page[1].ID}), []line{
		o("console", "save", 2, "one", "two"),
		o("console", "create", 1, "", "one"),
	})
	for _, f := range []domain.AuditFilter{{Limit: -1}, {BeforeID: -1}} {
		_, err := s.ListAudit(t.Context(), f)
		wantErr(t, "bad filter", err, library.ErrInvalid)
	}
}

func TestAuditProfilesAndScenarios(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "console")
	if _, err := s.CreateProfile(ctx, domain.Profile{ID: "desk", Name: "Desk", PromptModules: []string{"identity"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateProfile(ctx, domain.Profile{ID: "desk", Name: "Front desk", TokenBudget: 100}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteProfile(ctx, "desk"); err != nil {
		t.Fatal(err)
	}
	// Refused changes leave no trace.
	if _, err := s.UpdateProfile(ctx, domain.Profile{ID: "desk"}); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("update of a deleted profile: %v", err)
	}
	if _, err := s.CreateProfile(ctx, domain.Profile{ID: ""}); !errors.Is(err, library.ErrInvalid) {
		t.Fatalf("create with no id: %v", err)
	}

	sc := domain.Scenario{ID: "minutes", Name: "Minutes", Request: json.RawMessage(`{"locale": "zh-CN"}`)}
	if _, err := s.SaveScenario(ctx, sc); err != nil {
		t.Fatal(err)
	}
	sc.Name = "Meeting minutes"
	if _, err := s.SaveScenario(domain.WithActor(ctx, "cli"), sc); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteScenario(ctx, "minutes"); err != nil {
		t.Fatal(err)
	}

	desk := `{"id":"desk","name":"Desk","locale":"","model":"","timeZone":"","promptModules":["identity"],"systemPrompt":"","skillDisclosure":false,"tokenBudget":0,"skillBudget":0}`
	front := `{"id":"desk","name":"Front desk","locale":"","model":"","timeZone":"","promptModules":[],"systemPrompt":"","skillDisclosure":false,"tokenBudget":100,"skillBudget":0}`
	wantLines(t, "profile audit", lines(t, s, domain.AuditFilter{Subject: "profile"}), []line{
		{"console", "delete", "profile", "desk", "", 0, front, ""},
		{"console", "update", "profile", "desk", "", 0, desk, front},
		{"console", "create", "profile", "desk", "", 0, "", desk},
	})
	m1 := `{"id":"minutes","name":"Minutes","description":"","request":{"locale":"zh-CN"},"builtin":false}`
	m2 := `{"id":"minutes","name":"Meeting minutes","description":"","request":{"locale":"zh-CN"},"builtin":false}`
	wantLines(t, "scenario audit", lines(t, s, domain.AuditFilter{SubjectID: "minutes"}), []line{
		{"console", "delete", "scenario", "minutes", "", 0, m2, ""},
		{"cli", "update", "scenario", "minutes", "", 0, m1, m2},
		{"console", "create", "scenario", "minutes", "", 0, "", m1},
	})
}

// The audit row commits with its change or not at all.
func TestAuditRollsBackWithTheChange(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	boom := errors.New("boom")
	err := s.WithTx(ctx, func(tx *store.Store) error {
		if _, err := tx.SaveOverride(ctx, override("identity", "en-US", "x"), 0); err != nil {
			return err
		}
		if _, err := tx.CreateProfile(ctx, domain.Profile{ID: "p"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WithTx = %v, want boom", err)
	}
	wantLines(t, "after rollback", lines(t, s, domain.AuditFilter{}), []line{})
	wantHistory(t, s, "identity", "en-US")
}

// listen opens a connection listening on ChangesChannel.
func listen(t *testing.T, dbURL string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(t.Context(), "LISTEN "+store.ChangesChannel); err != nil {
		t.Fatal(err)
	}
	return conn
}

// next waits up to 5 s for the next change on conn.
func next(t *testing.T, conn *pgx.Conn) store.Change {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	n, err := conn.WaitForNotification(ctx)
	if err != nil {
		t.Fatalf("no notification: %v", err)
	}
	if n.Channel != store.ChangesChannel {
		t.Errorf("channel %q, want %q", n.Channel, store.ChangesChannel)
	}
	var ch store.Change
	if err := json.Unmarshal([]byte(n.Payload), &ch); err != nil {
		t.Fatalf("payload %q: %v", n.Payload, err)
	}
	if ch.At.IsZero() || time.Since(ch.At) > time.Minute {
		t.Errorf("payload %q: at is not the time of the change", n.Payload)
	}
	ch.At = time.Time{}
	return ch
}

func TestNotify(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	conn := listen(t, dbURL)
	ctx := t.Context()

	if _, err := s.SaveOverride(ctx, override("identity", "zh-CN", "one"), 0); err != nil {
		t.Fatal(err)
	}
	if got, want := next(t, conn), (store.Change{Subject: "override", ID: "identity", Locale: "zh-CN", Revision: 1}); got != want {
		t.Errorf("after create: %+v, want %+v", got, want)
	}

	// A rolled-back change announces nothing; the next one arrives next.
	_ = s.WithTx(ctx, func(tx *store.Store) error {
		if _, err := tx.SaveOverride(ctx, override("identity", "zh-CN", "lost"), 1); err != nil {
			return err
		}
		return errors.New("roll back")
	})
	if err := s.DeleteOverride(ctx, "identity", "zh-CN", 1); err != nil {
		t.Fatal(err)
	}
	if got, want := next(t, conn), (store.Change{Subject: "override", ID: "identity", Locale: "zh-CN", Revision: 2}); got != want {
		t.Errorf("after delete: %+v, want %+v", got, want)
	}
	if _, err := s.CreateProfile(ctx, domain.Profile{ID: "desk"}); err != nil {
		t.Fatal(err)
	}
	if got, want := next(t, conn), (store.Change{Subject: "profile", ID: "desk"}); got != want {
		t.Errorf("after profile create: %+v, want %+v", got, want)
	}

	// The raw payload is the documented shape.
	if _, err := s.UpdateProfile(ctx, domain.Profile{ID: "desk"}); err != nil {
		t.Fatal(err)
	}
	n, err := conn.WaitForNotification(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := regexp.MustCompile(`^\{"subject":"profile","id":"desk","locale":"","revision":0,"at":"[0-9T:.+Z-]+"\}$`); !want.MatchString(n.Payload) {
		t.Errorf("payload %s, want %s", n.Payload, want)
	}
}

// The primary key of override_revisions backs the head's revision check:
// a second row for one revision is refused.
func TestRevisionsAreUnique(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	if _, err := s.SaveOverride(t.Context(), override("identity", "en-US", "x"), 0); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), `INSERT INTO override_revisions (module_id, locale_key, revision, action, text)
		VALUES ('identity', 'en-us', 1, 'save', 'y')`)
	if err == nil {
		t.Fatal("a second revision 1 was accepted")
	}
}

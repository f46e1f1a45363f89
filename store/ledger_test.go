package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

func upstream(name, version, text string) domain.LedgerUpstream {
	return domain.LedgerUpstream{Name: name, Kind: "tool-description", Version: version, Text: text}
}

// A sync stores what upstream has; a decision records the upstream text
// it was taken on, who took it and when, with its audit entry; a later
// sync replaces the upstream text and leaves the decision, so that the
// decided text is still there to compare with; removed entries are
// marked, not dropped.
func TestLedgerSyncAndDecide(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ada := domain.WithActor(t.Context(), "ada")
	if err := s.SyncLedger(ada, "claude-code", []domain.LedgerUpstream{upstream("tool-bash", "2.0.1", "Run a command."),
		upstream("tool-web", "2.0.1", "Fetch a page.")}, nil, "2 new"); err != nil {
		t.Fatal(err)
	}
	d, err := s.DecideLedger(ada, "claude-code", "tool-bash", domain.DecisionPort, "base.identity", "", domain.TextHash("Run a command."))
	if err != nil {
		t.Fatal(err)
	}
	if d.DecidedBy != "ada" || d.DecidedAt.IsZero() || d.DecidedText != "Run a command." || d.DecidedVersion != "2.0.1" || d.DecidedHash != d.Hash {
		t.Errorf("decided %+v; want ada, now, on upstream 2.0.1's text", d)
	}
	if _, err := s.DecideLedger(ada, "claude-code", "tool-web", domain.DecisionDoNotPort, "", "no web tool", ""); err != nil {
		t.Fatal(err)
	}

	if err := s.SyncLedger(ada, "claude-code", []domain.LedgerUpstream{upstream("tool-bash", "2.0.2", "Run a command; quote paths.")},
		[]string{"tool-web"}, "1 changed, 1 removed"); err != nil {
		t.Fatal(err)
	}
	e, err := s.GetLedgerEntry(t.Context(), "claude-code", "tool-bash")
	if err != nil {
		t.Fatal(err)
	}
	if e.Text != "Run a command; quote paths." || e.Version != "2.0.2" || e.DecidedText != "Run a command." || e.Decision != domain.DecisionPort ||
		e.Hash == e.DecidedHash || !e.ChangedAt.After(e.FirstSeen) {
		t.Errorf("after the sync: %+v; want the new upstream text beside the decided one, the decision kept", e)
	}
	list, err := s.ListLedger(t.Context(), "claude-code")
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v, %v", list, err)
	}
	if list[0].Name != "tool-bash" || list[0].Text != "" || list[0].DecidedText != "" || list[0].Hash != e.Hash {
		t.Errorf("listed %+v; want no texts, the hash", list[0])
	}
	if list[1].Name != "tool-web" || !list[1].Removed || list[1].Decision != domain.DecisionDoNotPort {
		t.Errorf("listed %+v; want tool-web removed, its decision kept", list[1])
	}
	if cats, err := s.ListLedgerCatalogues(t.Context()); err != nil || len(cats) != 1 || cats[0] != "claude-code" {
		t.Errorf("catalogues %q, %v", cats, err)
	}

	// A decision on a text the decider did not see is refused.
	if _, err := s.DecideLedger(ada, "claude-code", "tool-bash", domain.DecisionPort, "base.identity", "", domain.TextHash("Run a command.")); !errors.Is(err, library.ErrConflict) {
		t.Errorf("deciding on a stale text: %v, want a conflict", err)
	}
	if _, err := s.DecideLedger(ada, "claude-code", "tool-none", domain.DecisionPort, "base.identity", "", ""); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("deciding on an unknown entry: %v, want not found", err)
	}
	// The table keeps the rules too: a do-not-port needs its reason.
	if _, err := s.DecideLedger(ada, "claude-code", "tool-bash", domain.DecisionDoNotPort, "", "", ""); !errors.Is(err, library.ErrInvalid) {
		t.Errorf("do-not-port without a reason: %v, want invalid", err)
	}

	audit, err := s.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectLedger})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range audit {
		got = append(got, a.Actor+" "+a.Action+" "+a.SubjectID+": "+a.Before+" / "+a.After)
	}
	want := []string{
		"ada sync claude-code:  / 1 changed, 1 removed",
		"ada decide claude-code/tool-web:  / do-not-port (upstream 2.0.1)",
		"ada decide claude-code/tool-bash:  / port → base.identity (upstream 2.0.1)",
		"ada sync claude-code:  / 2 new",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// raise makes the database refuse writes to ledger_entries: on the
// statement itself (a BEFORE trigger), or only at commit (a deferred
// constraint trigger), after every statement of the transaction went
// through.
func raise(t *testing.T, dbURL string, atCommit bool) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	trigger := `CREATE TRIGGER fail_ledger BEFORE INSERT OR UPDATE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION fail_ledger();`
	if atCommit {
		trigger = `CREATE CONSTRAINT TRIGGER fail_ledger AFTER INSERT OR UPDATE ON ledger_entries DEFERRABLE INITIALLY DEFERRED
			FOR EACH ROW EXECUTE FUNCTION fail_ledger();`
	}
	_, err = conn.Exec(t.Context(), `CREATE FUNCTION fail_ledger() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'the ledger cannot be written'; END $$;`+trigger)
	if err != nil {
		t.Fatal(err)
	}
}

// A sync or a decision whose write fails, on its statement or at
// commit, stores nothing of it: no upstream text, no decision, no audit
// entry.
func TestLedgerWriteFailingBeforeAndAtCommit(t *testing.T) {
	t.Parallel()
	for _, atCommit := range []bool{false, true} {
		dbURL, s := setupURL(t)
		ada := domain.WithActor(t.Context(), "ada")
		if err := s.SyncLedger(ada, "claude-code", []domain.LedgerUpstream{upstream("tool-bash", "1", "one")}, nil, "1 new"); err != nil {
			t.Fatal(err)
		}
		raise(t, dbURL, atCommit)

		err := s.SyncLedger(ada, "claude-code", []domain.LedgerUpstream{upstream("tool-bash", "2", "two"), upstream("tool-web", "2", "web")}, nil, "1 new, 1 changed")
		if err == nil || !strings.Contains(err.Error(), "the ledger cannot be written") {
			t.Errorf("at commit %v: sync: %v, want the trigger's error", atCommit, err)
		}
		if _, err := s.DecideLedger(ada, "claude-code", "tool-bash", domain.DecisionPort, "base.identity", "", ""); err == nil {
			t.Errorf("at commit %v: decide: no error", atCommit)
		}
		list, err := s.ListLedger(t.Context(), "claude-code")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].Version != "1" || list[0].Hash != domain.TextHash("one") || list[0].Decision != "" {
			t.Errorf("at commit %v: ledger %+v; want only the first sync", atCommit, list)
		}
		audit, err := s.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectLedger})
		if err != nil || len(audit) != 1 || audit[0].After != "1 new" {
			t.Errorf("at commit %v: audit %+v, %v; want only the first sync's entry", atCommit, audit, err)
		}
	}
}

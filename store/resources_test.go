package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/store"
)

// refuseRevisions makes every insert into override_revisions fail with
// the SQLSTATE named code (a condition name such as disk_full), as
// Postgres does when it is out of that resource; "" removes the trigger.
func refuseRevisions(t *testing.T, dbURL, code string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	sql := `DROP TRIGGER IF EXISTS refuse ON override_revisions`
	if code != "" {
		sql = `CREATE OR REPLACE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '` + code + `'; END $$;
			DROP TRIGGER IF EXISTS refuse ON override_revisions;
			CREATE TRIGGER refuse BEFORE INSERT ON override_revisions FOR EACH ROW EXECUTE FUNCTION refuse();`
	}
	if _, err := conn.Exec(t.Context(), sql); err != nil {
		t.Fatal(err)
	}
}

// A write the database refuses for want of resources (SQLSTATE class 53)
// is a ResourceError naming the cause, not an unreachable database, and
// WriteFailure reports it from the first failure until a write commits.
func TestWriteOutOfResources(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	ctx := domain.WithActor(t.Context(), "ada")
	if _, _, failing := s.WriteFailure(); failing {
		t.Fatal("writes failing before any write")
	}
	var began time.Time // of the first failure: later ones go on from it
	for i, c := range []struct{ condition, code, cause string }{
		{"disk_full", "53100", "disk full"},
		{"out_of_memory", "53200", "out of memory"},
		{"too_many_connections", "53300", "too many connections"},
		{"configuration_limit_exceeded", "53400", "insufficient resources"},
	} {
		refuseRevisions(t, dbURL, c.condition)
		_, err := s.SaveOverride(ctx, override("identity", "en-US", "text"), 0)
		var re *domain.ResourceError
		if !errors.As(err, &re) || re.Cause != c.cause || re.Code != c.code || !errors.Is(err, domain.ErrResources) ||
			errors.Is(err, domain.ErrUnavailable) || store.IsUnavailable(err) {
			t.Errorf("%s: %v (%+v), want a ResourceError %q %s and not unreachable", c.condition, err, re, c.cause, c.code)
		}
		got, since, failing := s.WriteFailure()
		if i == 0 {
			began = since
		}
		if !failing || got == nil || got.Code != c.code || since.IsZero() || !since.Equal(began) {
			t.Errorf("%s: WriteFailure %+v since %v, %v; want the latest failure, since the first (%v)", c.condition, got, since, failing, began)
		}
	}
	if _, err := s.GetOverride(t.Context(), "identity", "en-US"); err == nil {
		t.Error("a refused save stored the override")
	}
	refuseRevisions(t, dbURL, "")
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "text"), 0); err != nil {
		t.Fatal(err)
	}
	if got, _, failing := s.WriteFailure(); failing {
		t.Errorf("WriteFailure still reports %+v after a write committed", got)
	}
}

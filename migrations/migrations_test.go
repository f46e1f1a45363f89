package migrations_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/migrations"
	"github.com/promptdesk/promptdesk/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// allTables is how many tables the migrations create.
const allTables = 6

// tables returns how many of the schema's six tables exist.
func tables(t *testing.T, dbURL string) int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	err = conn.QueryRow(t.Context(), `SELECT count(*) FROM information_schema.tables
		WHERE table_schema = current_schema()
			AND table_name IN ('overrides', 'profiles', 'scenarios', 'override_revisions', 'audit_log', 'api_tokens')`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestUpDownUp(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t) // already migrated up

	if err := migrations.Up(t.Context(), dbURL); err != nil {
		t.Fatalf("Up on an up-to-date schema: %v, want nil (no change is success)", err)
	}
	if got := tables(t, dbURL); got != allTables {
		t.Fatalf("after Up: %d tables, want %d", got, allTables)
	}
	if err := migrations.Down(t.Context(), dbURL); err != nil {
		t.Fatal(err)
	}
	if got := tables(t, dbURL); got != 0 {
		t.Fatalf("after Down: %d tables, want 0", got)
	}
	if err := migrations.Up(t.Context(), dbURL); err != nil {
		t.Fatal(err)
	}
	if got := tables(t, dbURL); got != allTables {
		t.Fatalf("after Down, Up: %d tables, want %d", got, allTables)
	}
}

// Processes starting together all migrate: the advisory lock makes
// the others wait, then find nothing to do.
func TestConcurrentUp(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	if err := migrations.Down(t.Context(), dbURL); err != nil {
		t.Fatal(err)
	}
	const n = 5
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = migrations.Up(t.Context(), dbURL) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Up #%d: %v", i, err)
		}
	}
	if got := tables(t, dbURL); got != allTables {
		t.Fatalf("after concurrent Ups: %d tables, want %d", got, allTables)
	}
}

func TestUpKeywordValueConnString(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	dsn := fmt.Sprintf("host='%s' port=%d user='%s' dbname='%s'", cfg.Host, cfg.Port, cfg.User, cfg.Database)
	if cfg.Password != "" {
		dsn += fmt.Sprintf(" password='%s'", cfg.Password)
	}
	if err := migrations.Down(t.Context(), dsn); err != nil {
		t.Fatalf("Down(%q): %v", dsn, err)
	}
	if err := migrations.Up(t.Context(), dsn); err != nil {
		t.Fatalf("Up(%q): %v", dsn, err)
	}
	if got := tables(t, dbURL); got != allTables {
		t.Fatalf("after Down, Up: %d tables, want %d", got, allTables)
	}
}

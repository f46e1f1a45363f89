package migrations_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/migrations"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// migrateTo moves the schema at dbURL to version, reading this folder's
// files (the ones the package embeds).
func migrateTo(t *testing.T, dbURL string, version uint) {
	t.Helper()
	db, err := sql.Open("pgx/v5", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	driver, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := iofs.New(os.DirFS("."), ".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Migrate(version); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		t.Fatalf("migrate to %d: %v", version, err)
	}
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// 0002 starts the history of every existing override with one create
// revision at its current revision, and fills in the base hash.
func TestLifecycleBackfill(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dbURL := storetest.NewDatabase(t)
	migrateTo(t, dbURL, 1)

	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, `INSERT INTO overrides (module_id, locale, text, title, version, fields,
		based_on_version, base_snapshot, revision, author, updated_at) VALUES
		('base.identity', 'zh-CN', 'mine', 'Identity', 2, '{"id": "base.identity"}', 1, '内置 v1', 3, 'ada', '2026-01-02T03:04:05Z'),
		('task.notes', 'en-US', 'user module', '', 1, NULL, 0, '', 1, 'bob', '2026-02-03T04:05:06Z')`)
	if err != nil {
		t.Fatal(err)
	}

	if err := migrations.Up(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	type rev struct {
		ModuleID, LocaleKey, Action, Text, BaseSnapshot, BaseHash, Author, Created string
		Revision, BasedOnVersion                                                   int
	}
	rows, err := conn.Query(ctx, `SELECT module_id, locale_key, action, text, base_snapshot, base_hash, author,
		to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'), revision, based_on_version
		FROM override_revisions ORDER BY module_id`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[rev])
	if err != nil {
		t.Fatal(err)
	}
	want := []rev{
		{"base.identity", "zh-cn", "create", "mine", "内置 v1", hash("内置 v1"), "ada", "2026-01-02T03:04:05", 3, 1},
		{"task.notes", "en-us", "create", "user module", "", "", "bob", "2026-02-03T04:05:06", 1, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("revisions = %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("revision %d = %+v\nwant %+v", i, got[i], want[i])
		}
	}
	var headHash string
	if err := conn.QueryRow(ctx, `SELECT base_hash FROM overrides WHERE module_id = 'base.identity'`).Scan(&headHash); err != nil {
		t.Fatal(err)
	}
	if headHash != hash("内置 v1") {
		t.Errorf("head base_hash = %q, want the sha256 of its base snapshot", headHash)
	}

	// Down drops what 0002 added, deleted heads included; 0001 stays.
	if _, err := conn.Exec(ctx, `UPDATE overrides SET deleted = true WHERE module_id = 'task.notes'`); err != nil {
		t.Fatal(err)
	}
	migrateTo(t, dbURL, 1)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM overrides`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("after down to 1: %d overrides, want 1 (the deleted one dropped)", n)
	}
	if got := tables(t, dbURL); got != 3 {
		t.Errorf("after down to 1: %d tables, want 3", got)
	}
}

// 0003 (drafts) keeps everything served: every existing head is its own
// published revision, a delete included; down drops the column and turns
// discard revisions back into saves or deletes.
func TestDraftsBackfill(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dbURL := storetest.NewDatabase(t)
	migrateTo(t, dbURL, 2)
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, `INSERT INTO overrides (module_id, locale, text, revision, deleted) VALUES
		('base.identity', 'en-US', 'mine', 3, false), ('task.gone', 'en-US', '', 2, true)`)
	if err != nil {
		t.Fatal(err)
	}
	migrateTo(t, dbURL, 3)
	rows, err := conn.Query(ctx, `SELECT module_id || ' ' || revision || ' ' || published_revision FROM overrides ORDER BY module_id`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "base.identity 3 3" || got[1] != "task.gone 2 2" {
		t.Errorf("published revisions after 0003: %q", got)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO override_revisions (module_id, locale_key, revision, action, text)
		VALUES ('base.identity', 'en-us', 4, 'discard', 'mine')`); err != nil {
		t.Errorf("a discard revision: %v", err)
	}
	if _, err := conn.Exec(ctx, `UPDATE overrides SET published_revision = 9 WHERE module_id = 'base.identity'`); err == nil {
		t.Error("a published revision past the head was accepted")
	}
	migrateTo(t, dbURL, 2)
	var action string
	if err := conn.QueryRow(ctx, `SELECT action FROM override_revisions WHERE revision = 4`).Scan(&action); err != nil || action != "save" {
		t.Errorf("the discard after down: %q, %v; want save", action, err)
	}
}

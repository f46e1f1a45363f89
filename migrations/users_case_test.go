package migrations_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/migrations"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// 0008 makes user names unique ignoring case. Names differing only in
// case are refused before anything runs, naming them, and the schema
// stays clean: once renamed, Up goes through.
func TestUserNamesIgnoringCase(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dbURL := storetest.NewDatabase(t)
	migrateTo(t, dbURL, 7)
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO users (name, role, password_hash) VALUES
		('alice', 'admin', 'x'), ('Alice', 'viewer', 'x'), ('bob', 'editor', 'x'), ('BOB', 'editor', 'x'), ('carol', 'viewer', 'x')`); err != nil {
		t.Fatal(err)
	}

	err = migrations.Up(ctx, dbURL)
	if !errors.Is(err, migrations.ErrUserNamesDifferInCase) || !strings.Contains(err.Error(), "(Alice, alice) (BOB, bob);") ||
		!strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Up with names differing in case: %v, want ErrUserNamesDifferInCase naming (Alice, alice) (BOB, bob)", err)
	}
	version := func() (v int, dirty bool) {
		if err := conn.QueryRow(ctx, `SELECT version, dirty FROM schema_migrations`).Scan(&v, &dirty); err != nil {
			t.Fatal(err)
		}
		return v, dirty
	}
	if v, dirty := version(); v != 7 || dirty {
		t.Fatalf("after the refused Up: version %d dirty %v, want 7 clean", v, dirty)
	}

	if _, err := conn.Exec(ctx, `UPDATE users SET name = 'alice-viewer' WHERE name = 'Alice'; UPDATE users SET name = 'bob2' WHERE name = 'BOB'`); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, dbURL); err != nil {
		t.Fatalf("Up after renaming: %v", err)
	}
	if v, dirty := version(); v < 8 || dirty {
		t.Fatalf("after Up: version %d dirty %v", v, dirty)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO users (name, role, password_hash) VALUES ('CAROL', 'viewer', 'x')`); err == nil || !strings.Contains(err.Error(), "users_name_lower_key") {
		t.Errorf("insert CAROL beside carol: %v, want the unique index refusing it", err)
	}

	// Down to 7 drops the index: names differing in case can be stored again.
	migrateTo(t, dbURL, 7)
	if _, err := conn.Exec(ctx, `INSERT INTO users (name, role, password_hash) VALUES ('CAROL', 'viewer', 'x')`); err != nil {
		t.Errorf("after down to 7: %v", err)
	}
}

// 0013 keys the sessions open at upgrade by their token's SHA-256, so
// they keep working under the store that looks them up that way.
func TestSessionTokensHashed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dbURL := storetest.NewDatabase(t)
	migrateTo(t, dbURL, 12)
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO sessions (token, data, expiry) VALUES ('open-session', '\x01', now() + interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	migrateTo(t, dbURL, 13)
	var key string
	if err := conn.QueryRow(ctx, `SELECT token FROM sessions`).Scan(&key); err != nil {
		t.Fatal(err)
	}
	if key == "open-session" {
		t.Fatal("the token is still stored as it is")
	}
	st := storetest.OpenOn(t, dbURL)
	if b, found, err := st.Sessions().FindCtx(ctx, "open-session"); err != nil || !found || len(b) != 1 {
		t.Errorf("the open session after 0013: %v %v %v", b, found, err)
	}
}

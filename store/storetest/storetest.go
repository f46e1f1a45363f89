// Package storetest gives tests a fresh, migrated Postgres database: on the
// server at DATABASE_URL when set, else on one private cluster per
// test binary. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/migrations"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/pgcluster"
)

var (
	mainCalled bool

	startOnce sync.Once
	startErr  error
	adminURL  string // a database to run CREATE/DROP DATABASE from
	cluster   *pgcluster.Cluster
	dataDir   string

	// template is a database migrated once per test binary; each
	// NewDatabase clones it (CREATE DATABASE … TEMPLATE), which costs a
	// file copy instead of running every migration again.
	templateOnce sync.Once
	templateErr  error
	template     string
	// cloneMu serialises clones: Postgres refuses to copy a template
	// while another session is connected to it.
	cloneMu sync.Mutex
)

// Main runs m and returns the exit code for os.Exit. The private cluster,
// if any, is started by the first NewDatabase (test runs needing none pay
// nothing), then stopped and its folder removed here after the tests; a
// failed cleanup turns a passing run's code into 1.
func Main(m *testing.M) int {
	mainCalled = true
	code := m.Run()
	if template != "" && cluster == nil {
		// On a shared server the template outlives the binary unless dropped.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := admin(ctx, "DROP DATABASE IF EXISTS "+template+" WITH (FORCE)"); err != nil {
			fmt.Fprintln(os.Stderr, "storetest:", err)
			code = max(code, 1)
		}
		cancel()
	}
	if cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := cluster.Stop(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "storetest:", err)
			code = max(code, 1)
		}
	}
	if dataDir != "" {
		if err := os.RemoveAll(dataDir); err != nil {
			fmt.Fprintln(os.Stderr, "storetest:", err)
			code = max(code, 1)
		}
	}
	return code
}

// NewDatabase creates a database pdt_<16 hex digits> holding every
// migration (a copy of one migrated once per test binary) and returns its
// connection string; the database is dropped
// (connections and all) at t's cleanup. With DATABASE_URL set, that role
// needs CREATEDB. It calls t.Fatal, never t.Skip, when Postgres is missing
// (pgcluster.ErrNoBinaries) or anything fails: tests must not pass silently.
func NewDatabase(t testing.TB) string {
	t.Helper()
	if !mainCalled {
		t.Fatal("storetest: call storetest.Main from the package's TestMain")
	}
	startOnce.Do(start)
	if startErr != nil {
		t.Fatal("storetest:", startErr)
	}

	templateOnce.Do(makeTemplate)
	if templateErr != nil {
		t.Fatal("storetest:", templateErr)
	}
	// t.Context is already cancelled when cleanups run.
	ctx := context.Background()
	name := randomName()
	dbURL, err := withDatabase(adminURL, name)
	if err != nil {
		t.Fatal("storetest:", err)
	}
	cloneMu.Lock()
	err = admin(ctx, "CREATE DATABASE "+name+" TEMPLATE "+template)
	cloneMu.Unlock()
	if err != nil {
		t.Fatal("storetest:", err)
	}
	t.Cleanup(func() {
		// FORCE (PostgreSQL 13+) ends connections a test left open.
		if err := admin(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Error("storetest:", err)
		}
	})
	return dbURL
}

// randomName is a database name no other test or test binary uses.
func randomName() string {
	var b [8]byte
	rand.Read(b[:]) // never fails
	return "pdt_" + hex.EncodeToString(b[:])
}

// makeTemplate creates and migrates the database NewDatabase clones.
// migrations.Up closes its connections before returning, so the
// template has none left when the first clone is made.
func makeTemplate() {
	ctx := context.Background()
	name := randomName()
	dbURL, err := withDatabase(adminURL, name)
	if err == nil {
		err = admin(ctx, "CREATE DATABASE "+name)
	}
	if err != nil {
		templateErr = err
		return
	}
	template = name
	if err := migrations.Up(ctx, dbURL); err != nil {
		templateErr = fmt.Errorf("migrating the template database: %w", err)
	}
}

func start() {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		adminURL = u
		return
	}
	// A short name: the socket path inside must stay under ~100 bytes.
	dir, err := os.MkdirTemp("", "pdt")
	if err != nil {
		startErr = err
		return
	}
	dataDir = dir
	// As root the server runs as postgres, which must reach the folder.
	if err := os.Chmod(dir, 0o755); err != nil {
		startErr = err
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cluster, startErr = pgcluster.Start(ctx, dir, nil)
	if startErr == nil {
		adminURL = cluster.URL("postgres")
	}
}

func admin(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// withDatabase points a pgx connection string, URL or keyword=value form,
// at database name.
func withDatabase(connString, name string) (string, error) {
	if !strings.Contains(connString, "://") {
		return connString + " dbname=" + name, nil // a later keyword wins
	}
	u, err := url.Parse(connString)
	if err != nil {
		return "", fmt.Errorf("DATABASE_URL: %w", err)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// Open opens a store on a fresh database (NewDatabase) and closes it at
// t's cleanup; it returns the database's connection string too, for a
// server or a second store on the same database.
func Open(t testing.TB) (*store.Store, string) {
	t.Helper()
	dbURL := NewDatabase(t)
	return OpenOn(t, dbURL), dbURL
}

// OpenOn opens a store on the database at dbURL and closes it at t's
// cleanup.
func OpenOn(t testing.TB, dbURL string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal("storetest:", err)
	}
	t.Cleanup(st.Close)
	return st
}

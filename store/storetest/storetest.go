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
	"github.com/promptdesk/promptdesk/store/pgcluster"
)

var (
	mainCalled bool

	startOnce sync.Once
	startErr  error
	adminURL  string // a database to run CREATE/DROP DATABASE from
	cluster   *pgcluster.Cluster
	dataDir   string
)

// Main runs m and returns the exit code for os.Exit. The private cluster,
// if any, is started by the first NewDatabase (test runs needing none pay
// nothing), then stopped and its folder removed here after the tests; a
// failed cleanup turns a passing run's code into 1.
func Main(m *testing.M) int {
	mainCalled = true
	code := m.Run()
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

// NewDatabase creates an empty database pdt_<16 hex digits>, applies
// migrations.Up and returns its connection string; the database is dropped
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

	// t.Context is already cancelled when cleanups run.
	ctx := context.Background()
	var b [8]byte
	rand.Read(b[:]) // never fails
	name := "pdt_" + hex.EncodeToString(b[:])
	dbURL, err := withDatabase(adminURL, name)
	if err != nil {
		t.Fatal("storetest:", err)
	}
	if err := admin(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal("storetest:", err)
	}
	t.Cleanup(func() {
		// FORCE (PostgreSQL 13+) ends connections a test left open.
		if err := admin(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Error("storetest:", err)
		}
	})
	if err := migrations.Up(ctx, dbURL); err != nil {
		t.Fatal("storetest:", err)
	}
	return dbURL
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

package pgcluster

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// newDir returns a fresh data folder with a short path (the socket limit)
// that the postgres user can reach when tests run as root.
func newDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pdc")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func start(t *testing.T, dir string) *Cluster {
	t.Helper()
	c, err := Start(t.Context(), dir, slog.New(slog.NewTextHandler(t.Output(), nil)))
	if err != nil {
		t.Fatal(err)
	}
	// Runs before newDir's cleanup; a no-op once the test stopped it.
	t.Cleanup(func() {
		if err := c.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return c
}

func run(t *testing.T, c *Cluster, sql string) error {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), c.URL("promptdesk"))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), sql)
	return err
}

func TestStartReuseStop(t *testing.T) {
	t.Parallel()
	dir := newDir(t)

	first := start(t, dir)
	if !first.owned {
		t.Fatal("first Start on a fresh folder: owned = false, want true")
	}
	if err := run(t, first, "CREATE TABLE marker (id int)"); err != nil {
		t.Fatal(err)
	}

	second := start(t, dir)
	if second.owned {
		t.Error("second Start while running: owned = true, want false (reuse)")
	}
	if got, want := second.URL("promptdesk"), first.URL("promptdesk"); got != want {
		t.Errorf("second URL = %q, want %q", got, want)
	}
	if err := second.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := run(t, first, "SELECT 1"); err != nil {
		t.Fatalf("after Stop by the non-owner the server must still run: %v", err)
	}

	if err := first.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := run(t, first, "SELECT 1"); err == nil {
		t.Fatal("after Stop by the owner the server still accepts connections")
	}

	// A restart reuses the initialised data: the table is still there.
	third := start(t, dir)
	if !third.owned {
		t.Error("Start on a stopped cluster: owned = false, want true")
	}
	if err := run(t, third, "SELECT count(*) FROM marker"); err != nil {
		t.Fatalf("restart lost data: %v", err)
	}
}

func TestConcurrentStart(t *testing.T) {
	t.Parallel()
	dir := newDir(t)

	const n = 3
	clusters := make([]*Cluster, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { clusters[i] = start(t, dir) })
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	owners := 0
	for _, c := range clusters {
		if c.owned {
			owners++
		}
	}
	if owners != 1 {
		t.Errorf("%d of %d concurrent Starts own the server, want 1", owners, n)
	}
}

func TestStartSocketPathTooLong(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(os.TempDir(), strings.Repeat("d", 100))
	_, err := Start(t.Context(), dir, nil)
	if err == nil || !strings.Contains(err.Error(), "PROMPTDESK_DATA_DIR") {
		t.Fatalf("Start(%s) error = %v, want one suggesting a shorter PROMPTDESK_DATA_DIR", dir, err)
	}
	if _, statErr := os.Stat(dir); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("Start created %s before refusing it", dir)
	}
}

func TestFindBinaries(t *testing.T) {
	root := t.TempDir()
	install := func(dir string, names ...string) {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(root, dir, n), nil, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	install("lib/postgresql/9/bin", "pg_ctl", "initdb")
	install("lib/postgresql/15/bin", "pg_ctl", "initdb")
	install("lib/postgresql/17/bin", "pg_ctl") // incomplete: no initdb
	install("brew/postgresql@16/bin", "pg_ctl", "initdb")
	install("path", "pg_ctl", "initdb")

	tests := []struct {
		name  string
		path  string
		globs []string
		want  string // folder of the binaries found; "" for ErrNoBinaries
	}{
		{"PATH first", "path", []string{"lib/postgresql/*/bin"}, "path"},
		{"highest complete version", "", []string{"lib/postgresql/*/bin", "brew/postgresql*/bin"}, "brew/postgresql@16/bin"},
		{"numeric not lexical order", "", []string{"lib/postgresql/*/bin"}, "lib/postgresql/15/bin"},
		{"none", "", []string{"nowhere/*/bin"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", filepath.Join(root, tt.path))
			var globs []string
			for _, g := range tt.globs {
				globs = append(globs, filepath.Join(root, g))
			}
			pgCtl, initdb, err := findBinaries(globs)
			if tt.want == "" {
				if !errors.Is(err, ErrNoBinaries) {
					t.Fatalf("err = %v, want ErrNoBinaries", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(root, tt.want)
			if pgCtl != filepath.Join(want, "pg_ctl") || initdb != filepath.Join(want, "initdb") {
				t.Errorf("found %s, %s; want both in %s", pgCtl, initdb, want)
			}
		})
	}
}

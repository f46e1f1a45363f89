package storetest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/promptdesk/promptdesk/migrations"
	"github.com/promptdesk/promptdesk/store/pgcluster"
)

// Cluster is a private Postgres cluster one test started for itself, with
// the migrated database promptdesk at URL, so that the test may freeze it
// (Signal) without touching the clusters other tests share.
type Cluster struct {
	URL  string
	data string // the data directory, which holds postmaster.pid
}

// StartCluster starts a Cluster for t; it is thawed and stopped when t
// ends. Errors fail t.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "pdf") // short: the socket path lives inside
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // as root the cluster runs as postgres
		t.Fatal(err)
	}
	cluster, err := pgcluster.Start(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{URL: cluster.URL("promptdesk"), data: filepath.Join(dir, "pg")}
	t.Cleanup(func() {
		c.Signal(t, syscall.SIGCONT)
		if err := cluster.Stop(ctx); err != nil {
			t.Error(err)
		}
		os.RemoveAll(dir)
	})
	if err := migrations.Up(ctx, c.URL); err != nil {
		t.Fatal(err)
	}
	return c
}

// Signal sends sig to the cluster's postmaster and to every process it
// started (the backends holding the pools' connections): SIGSTOP freezes
// the database as a hung host would, accepting connections and answering
// nothing; SIGCONT thaws it.
func (c *Cluster) Signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.data, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{pid}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		s, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after ')'.
		fields := strings.Fields(string(s[strings.LastIndexByte(string(s), ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			pids = append(pids, child)
		}
	}
	for _, p := range pids {
		_ = syscall.Kill(p, sig)
	}
}

// Package pgcluster runs the private PostgreSQL cluster promptdesk starts
// when no DATABASE_URL is given: the host's initdb and pg_ctl, data in
// <dir>/pg, reachable only through a Unix socket in <dir>/run.
package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"
)

const (
	// superuser is the role initdb creates; trust auth is safe because the
	// only way in is a socket in a folder only the server user can open.
	superuser = "promptdesk"
	// port only names the socket file (.s.PGSQL.5432); nothing listens on TCP.
	port = 5432
	// maxSocketPath keeps under sun_path (108 bytes on Linux, 104 on macOS).
	maxSocketPath = 100
	// serverUser runs the server when promptdesk runs as root, which
	// PostgreSQL refuses.
	serverUser = "postgres"
	// unsafePathChars break pg_ctl's shell command line or the
	// unix_socket_directories list syntax.
	unsafePathChars = "'\"`$\\,\n"
)

// Cluster is a private PostgreSQL cluster that is running. Connect with URL;
// call Stop when done. A Cluster is not safe for concurrent Stop calls.
type Cluster struct {
	dir, pgData, runDir, logFile string
	pgCtl                        string
	cred                         *syscall.Credential // the postgres OS user when running as root, else nil
	owned                        bool                // this process started the server, so Stop stops it
	log                          *slog.Logger
}

// Start makes sure a private cluster in dir is running and has a database
// named "promptdesk", and returns it. dir (e.g. "./.promptdesk") is
// created if missing; the cluster lives in dir/pg, logs to dir/pg.log and
// listens only on a socket in dir/run. A cluster already initialised is
// reused; one already running (started by another process) is reused and
// left running by Stop. Concurrent Starts on one dir, in one process or
// several, serialise on a lock file dir/pg.lock. Running as root, initdb and
// the server run as the "postgres" OS user. log may be nil.
//
// Errors: ErrNoBinaries when initdb/pg_ctl are not installed; an error
// suggesting a shorter PROMPTDESK_DATA_DIR or DATABASE_URL when the socket
// path would be too long; a failed start includes the tail of dir/pg.log.
func Start(ctx context.Context, dir string, log *slog.Logger) (*Cluster, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("postgres data folder: %w", err)
	}
	c := &Cluster{
		dir:     dir,
		pgData:  filepath.Join(dir, "pg"),
		runDir:  filepath.Join(dir, "run"),
		logFile: filepath.Join(dir, "pg.log"),
		log:     log,
	}
	if n := len(c.socketPath()); n >= maxSocketPath {
		return nil, fmt.Errorf("postgres socket path %s is %d bytes, Unix sockets allow fewer than %d: "+
			"set a shorter PROMPTDESK_DATA_DIR or set DATABASE_URL to an existing server", c.socketPath(), n, maxSocketPath)
	}
	if strings.ContainsAny(dir, unsafePathChars) {
		return nil, fmt.Errorf("postgres data folder %q contains a character PostgreSQL's tools cannot take (one of %q): "+
			"set another PROMPTDESK_DATA_DIR", dir, unsafePathChars)
	}
	pgCtl, initdb, err := findBinaries(searchGlobs)
	if err != nil {
		return nil, err
	}
	c.pgCtl = pgCtl

	if err := c.prepareFolders(); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, filepath.Join(dir, "pg.lock"))
	if err != nil {
		return nil, fmt.Errorf("postgres: lock %s: %w", dir, err)
	}
	defer unlock()

	if _, err := os.Stat(filepath.Join(c.pgData, "PG_VERSION")); errors.Is(err, fs.ErrNotExist) {
		log.Info("postgres: creating cluster", "dir", c.pgData, "initdb", initdb)
		if err := c.run(ctx, initdb, "-D", c.pgData, "--auth=trust", "--username="+superuser,
			"--encoding=UTF8", "--locale=C"); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}

	if err := c.ping(ctx); err == nil {
		log.Info("postgres: reusing running cluster", "dir", c.pgData)
	} else {
		if err := c.start(ctx); err != nil {
			return nil, err
		}
		c.owned = true
		log.Info("postgres: started cluster", "dir", c.pgData, "socket", c.socketPath())
	}
	if err := c.createDatabase(ctx, "promptdesk"); err != nil {
		return nil, errors.Join(err, c.Stop(ctx))
	}
	return c, nil
}

// URL returns a pgx connection URL for database on the cluster, of the form
// postgres://promptdesk@/<database>?host=<dir>/run&port=5432 (escaped).
func (c *Cluster) URL(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(superuser),
		Path:     "/" + database,
		RawQuery: url.Values{"host": {c.runDir}, "port": {strconv.Itoa(port)}}.Encode(),
	}
	return u.String()
}

// Stop stops the server (pg_ctl stop -m fast -w) if this process started
// it, and is a no-op otherwise: a cluster reused from another process
// belongs to that process. It returns pg_ctl's error with its output.
// A second call is a no-op.
func (c *Cluster) Stop(ctx context.Context) error {
	if !c.owned {
		return nil
	}
	if err := c.run(ctx, c.pgCtl, "stop", "-D", c.pgData, "-m", "fast", "-w", "-t", "60"); err != nil {
		return err
	}
	c.owned = false
	c.log.Info("postgres: stopped cluster", "dir", c.pgData)
	return nil
}

func (c *Cluster) socketPath() string {
	return filepath.Join(c.runDir, ".s.PGSQL."+strconv.Itoa(port))
}

// prepareFolders creates dir, dir/run (0700) and, as root, hands dir/pg,
// dir/run and dir/pg.log to the postgres user, who must also be able to
// reach dir.
func (c *Cluster) prepareFolders() error {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := os.MkdirAll(c.runDir, 0o700); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup(serverUser)
	if err != nil {
		return fmt.Errorf("postgres: running as root, the server must run as the %q OS user, which is missing (%w): "+
			"install the PostgreSQL server package, run promptdesk as another user, or set DATABASE_URL", serverUser, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32) // numeric on Unix
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}

	// o+x lets the server user through the data folder without listing it.
	fi, err := os.Stat(c.dir)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := os.Chmod(c.dir, fi.Mode().Perm()|0o001); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := checkReachable(filepath.Dir(c.dir), c.cred); err != nil {
		return err
	}
	if err := os.MkdirAll(c.pgData, 0o700); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	f, err := os.OpenFile(c.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	f.Close()
	for _, p := range []string{c.pgData, c.runDir, c.logFile} {
		if err := os.Chown(p, int(uid), int(gid)); err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
	}
	return nil
}

// checkReachable reports the first folder from dir up to / that cred's user
// cannot traverse; changing it is the operator's call, not ours.
func checkReachable(dir string, cred *syscall.Credential) error {
	for {
		fi, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		mode := fi.Mode().Perm()
		ok = ok && (mode&0o001 != 0 ||
			st.Uid == cred.Uid && mode&0o100 != 0 ||
			st.Gid == cred.Gid && mode&0o010 != 0)
		if !ok {
			return fmt.Errorf("postgres: the %q OS user that runs the server cannot enter %s (mode %04o): "+
				"run chmod o+x %s, or set PROMPTDESK_DATA_DIR to a folder it can reach (e.g. under /var/lib), or set DATABASE_URL",
				serverUser, dir, mode, dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// start runs pg_ctl start; a stale postmaster.pid left by a crash is
// pg_ctl's to handle.
func (c *Cluster) start(ctx context.Context) error {
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories='%s' -p %d", c.runDir, port)
	if err := c.run(ctx, c.pgCtl, "start", "-D", c.pgData, "-w", "-t", "60", "-l", c.logFile, "-o", opts); err != nil {
		return fmt.Errorf("%w\n%s (last lines):\n%s", err, c.logFile, logTail(c.logFile, 20))
	}
	return nil
}

// run runs a PostgreSQL tool as the server user; errors carry its output.
func (c *Cluster) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = c.dir // the caller's working folder may be closed to the server user
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	cmd.WaitDelay = 5 * time.Second // in case a child keeps the output pipe open
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("postgres: %s %s: %w: %s", filepath.Base(name), args[0], err, bytes.TrimSpace(out))
	}
	return nil
}

// ping connects to the cluster's maintenance database.
func (c *Cluster) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

func (c *Cluster) createDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("postgres: connect: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("postgres: look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("postgres: create database %s: %w", name, err)
	}
	c.log.Info("postgres: created database", "name", name)
	return nil
}

// lockFile takes an exclusive flock on path, polling so ctx can cancel the
// wait. The returned func releases it.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases the lock
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// logTail returns the last n lines of the file at path, or why it cannot.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

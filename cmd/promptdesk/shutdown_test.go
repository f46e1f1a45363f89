package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/store/pgcluster"
)

// TestShutdown: SIGTERM to `promptdesk serve` on its own private cluster,
// with a request stuck in flight (its body never comes): the process
// stops accepting, cuts the stuck request at --shutdown-timeout, stops
// its loops without an error in the log, stops the cluster it started
// and exits 0.
func TestShutdown(t *testing.T) {
	const shutdownTimeout = time.Second
	bin := buildBinary(t)
	// A short folder name: the socket path inside must stay short.
	dir, err := os.MkdirTemp("", "pds")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // as root the server runs as postgres
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := &process{name: "serve", url: "http://" + addr, out: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, "serve", "--addr", addr, "--shutdown-timeout", shutdownTimeout.String(), "--read-timeout", "1m")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") {
			p.cmd.Env = append(p.cmd.Env, kv)
		}
	}
	p.cmd.Env = append(p.cmd.Env, "PROMPTDESK_DATA_DIR="+dir)
	var stderr bytes.Buffer
	p.cmd.Stdout, p.cmd.Stderr = p.out, &stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	p.waitReady(t)
	pid := filepath.Join(dir, "pg", "postmaster.pid")
	if _, err := os.Stat(pid); err != nil {
		t.Fatalf("no private cluster running: %v", err)
	}

	// The cluster serve started, reused (Stop leaves it to serve), for a
	// token: the stuck request passes the token check and waits for its
	// body in the handler.
	cluster, err := pgcluster.Start(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cliRun(t, "token", "add", "--scope", "assemble", "--database-url", cluster.URL("promptdesk"), "shutdown")
	m := tokenLine.FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("token add: %v\n%s", err, out)
	}

	// A request in flight that never finishes sending its body.
	stuck, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	io.WriteString(stuck, "POST /api/v1/assemble HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nAuthorization: Bearer "+m[1]+"\r\n\r\n{")
	time.Sleep(100 * time.Millisecond)

	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30 s after SIGTERM\n%s%s", p.out, &stderr)
	}
	took := time.Since(start)
	t.Logf("exited %s after SIGTERM (shutdown timeout %s): %v", took.Round(time.Millisecond), shutdownTimeout, p.err)
	if p.err != nil {
		t.Errorf("exit: %v, want status 0\n%s", p.err, &stderr)
	}
	if took < shutdownTimeout {
		t.Errorf("exited after %s, before the stuck request's %s were up", took, shutdownTimeout)
	}
	if log := stderr.String(); strings.Contains(log, "level=ERROR") || strings.Contains(log, "deadline exceeded") || !strings.Contains(log, "cut off") {
		t.Errorf("log of the shutdown: want no error, the stuck request reported cut off:\n%s", log)
	}
	stuck.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := io.Copy(io.Discard, stuck); err != nil {
		t.Errorf("the stuck request's connection: %v, want closed", err)
	}
	if _, err := os.Stat(pid); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the private cluster still runs after exit (%s: %v)", pid, err)
	}
}

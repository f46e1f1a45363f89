package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// TestSlowClientsAreCutOff: clients that send their headers and then
// trickle the body (with a token or without), or trickle the headers
// themselves, are disconnected once the read timeout has passed; an idle
// keep-alive connection is closed after the idle timeout. The timeouts
// are short here; the server's defaults are DefaultReadTimeout and the
// others.
func TestSlowClientsAreCutOff(t *testing.T) {
	t.Parallel()
	const (
		readTimeout = 300 * time.Millisecond
		idleTimeout = 300 * time.Millisecond
		trickle     = 50 * time.Millisecond
		slowBodies  = 20
	)
	st, err := store.Open(context.Background(), storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	_, secret, err := st.CreateToken(context.Background(), "slow", []string{domain.ScopeAssemble})
	if err != nil {
		t.Fatal(err)
	}
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), Config{
		Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store: st, Library: reload.Fixed(lib), Assembler: assembler.New(assembler.Config{}),
		ReadHeaderTimeout: readTimeout, ReadTimeout: readTimeout, IdleTimeout: idleTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })

	// cutOff sends head, then one byte of body every trickle, and returns
	// how long until the server closed the connection (or an error when
	// it is still open after 5 s) and what it answered.
	cutOff := func(head string) (time.Duration, string, error) {
		conn, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			return 0, "", err
		}
		defer conn.Close()
		start := time.Now()
		if _, err := io.WriteString(conn, head); err != nil {
			return 0, "", err
		}
		closed := make(chan struct{})
		var answer strings.Builder
		go func() {
			defer close(closed)
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			io.Copy(&answer, conn) // until the server closes (EOF) or the deadline
		}()
		for {
			select {
			case <-closed:
				if time.Since(start) >= 5*time.Second {
					return 0, "", errors.New("still open after 5 s")
				}
				return time.Since(start), answer.String(), nil
			case <-time.After(trickle):
				conn.Write([]byte(" "))
			}
		}
	}
	body := func(auth string) string {
		return "POST /api/v1/assemble HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n" + auth + "\r\n{"
	}
	cases := map[string]string{"slow headers": "POST /api/v1/assemble HTTP/1.1\r\nHost: x\r\nX-Slow: "}
	for i := range slowBodies {
		cases[fmt.Sprintf("slow body %d without a token", i)] = body("")
		cases[fmt.Sprintf("slow body %d with a token", i)] = body("Authorization: Bearer " + secret + "\r\n")
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	worst := time.Duration(0)
	for name, head := range cases {
		wg.Go(func() {
			d, answer, err := cutOff(head)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			// A client with a token reaches the handler, which says what
			// happened without the connection's addresses.
			if strings.HasSuffix(name, "with a token") &&
				(!strings.Contains(answer, "did not arrive within the server's read timeout") || strings.Contains(answer, "127.0.0.1")) {
				t.Errorf("%s: answered %q", name, answer)
			}
			worst = max(worst, d)
		})
	}
	wg.Wait()
	t.Logf("%d slow clients cut off, the last after %s (read timeout %s)", len(cases), worst, readTimeout)

	// An idle keep-alive connection is closed after the idle timeout.
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %v", err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) || time.Since(start) >= 5*time.Second {
		t.Errorf("idle keep-alive connection: %v after %s, want closed by the server after %s", err, time.Since(start), idleTimeout)
	}
}

package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// headAsGet serves HEAD as GET without the body: every route that answers
// GET answers HEAD with the same status and headers (Content-Length
// included), /healthz and the API alike.
type headAsGet struct{ next http.Handler }

func (h *headAsGet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodHead {
		h.next.ServeHTTP(w, r)
		return
	}
	get := *r
	get.Method = http.MethodGet
	h.next.ServeHTTP(bodiless{w}, &get)
}

// bodiless is a ResponseWriter that drops the body.
type bodiless struct{ http.ResponseWriter }

func (b bodiless) Write(p []byte) (int, error) { return len(p), nil }

// Unwrap lets http.ResponseController reach the connection's writer.
func (b bodiless) Unwrap() http.ResponseWriter { return b.ResponseWriter }

// apiErrorListener wraps the server's listener so that the answers
// net/http gives by itself, before any handler runs, to a request it
// cannot read (bad header bytes, a malformed path, headers over
// http.DefaultMaxHeaderBytes: plain-text 400 and 431) come in the API's
// JSON error shape when the request was for /api/.
type apiErrorListener struct{ net.Listener }

func (l apiErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &apiErrorConn{Conn: c}, nil
}

// maxRequestLine bounds how much of a request line apiErrorConn keeps.
const maxRequestLine = 8 << 10

// apiErrorConn remembers the request line read since its last answer and
// rewrites net/http's own error answers on it.
type apiErrorConn struct {
	net.Conn
	mu   sync.Mutex
	line []byte
	done bool // the line is complete
}

func (c *apiErrorConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if !c.done && n > 0 {
		chunk := p[:n]
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			chunk, c.done = chunk[:i], true
		}
		c.line = append(c.line, chunk[:min(len(chunk), maxRequestLine-len(c.line))]...)
	}
	c.mu.Unlock()
	return n, err
}

// serverErrorHeaders are the headers of net/http's own error answers,
// which no handler's answer has (those carry a Date).
const serverErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *apiErrorConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	line := string(c.line)
	c.line, c.done = c.line[:0], false
	c.mu.Unlock()
	head, text, ok := bytes.Cut(p, []byte(serverErrorHeaders))
	if !ok || !bytes.HasPrefix(head, []byte("HTTP/1.1 ")) || bytes.Contains(head, []byte("\r\n")) {
		return c.Conn.Write(p)
	}
	target := requestTarget(line)
	if !strings.HasPrefix(target, "/api/") {
		return c.Conn.Write(p)
	}
	status, err := strconv.Atoi(string(head[len("HTTP/1.1 "):min(len(head), len("HTTP/1.1 000"))]))
	if err != nil {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(apiServerError(status, string(text), target)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// requestTarget is the target of a request line ("GET /api/v1/x HTTP/1.1"
// → "/api/v1/x"), "" when it has none.
func requestTarget(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return ""
	}
	return f[1]
}

// apiServerError is the whole HTTP answer, in the API's JSON error shape,
// that replaces net/http's own plain-text answer (status, text) to a
// request for target.
func apiServerError(status int, text, target string) []byte {
	e := apiError{Code: "invalid_request"}
	detail := strings.TrimPrefix(strings.TrimPrefix(text, strconv.Itoa(status)+" "+http.StatusText(status)), ": ")
	_, perr := url.ParseRequestURI(target)
	switch {
	case status == http.StatusRequestHeaderFieldsTooLarge:
		e.Code = "limit_exceeded"
		e.Message = fmt.Sprintf("the request headers are larger than the limit of %d MiB", http.DefaultMaxHeaderBytes>>20)
	case perr != nil:
		e.Message = "the request path is not a valid URL: " + strings.TrimPrefix(perr.Error(), "parse "+strconv.Quote(target)+": ")
	case detail != "":
		e.Message = "the request could not be read: " + detail
	default:
		e.Message = "the request could not be read: a malformed request line or header"
	}
	body, _ := json.Marshal(apiErrorBody{Error: e})
	body = append(body, '\n')
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}

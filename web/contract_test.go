package web

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
)

// wantAPIField checks a JSON error answer: status, code and field.
func wantAPIField(t *testing.T, what string, rec *httptest.ResponseRecorder, status int, code, field string) {
	t.Helper()
	var body apiErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != status || body.Error.Code != code || body.Error.Field != field {
		t.Errorf("%s: %d %s, want %d %s with field %q", what, rec.Code, rec.Body.String(), status, code, field)
	}
}

// A JSON body is held to the document: null where no field is nullable,
// invalid UTF-8 anywhere and a time that does not parse are refused,
// each naming the field; so is a query parameter the route does not take.
func TestAPIRefusesWhatTheDocumentRefuses(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	token := newToken(t, st, "strict", domain.ScopeAssemble, domain.ScopeRead)
	for _, c := range []struct {
		what, method, target, body string
		status                     int
		code, field                string
	}{
		{"null now", http.MethodPost, "/api/v1/assemble", `{"locale":"en-US","now":null}`, 422, "invalid_request", "now"},
		{"null profile", http.MethodPost, "/api/v1/assemble", `{"profile":null}`, 422, "invalid_request", "profile"},
		{"null in a skill", http.MethodPost, "/api/v1/assemble", `{"skills":[{"name":"a","description":"b"},{"name":null}]}`, 422, "invalid_request", "skills[1].name"},
		{"null variable", http.MethodPost, "/api/v1/render", `{"module":"aux.title-gen","variables":{"conversation":null}}`, 422, "invalid_request", "variables.conversation"},
		{"bad UTF-8 in message", http.MethodPost, "/api/v1/assemble", "{\"message\":\"caf\xe9\"}", 400, "invalid_json", "message"},
		{"bad UTF-8 in a variable", http.MethodPost, "/api/v1/render", "{\"module\":\"aux.title-gen\",\"variables\":{\"conversation\":\"a\xffb\"}}", 400, "invalid_json", "variables.conversation"},
		{"bad now", http.MethodPost, "/api/v1/assemble", `{"now":"yesterday"}`, 422, "invalid_request", "now"},
		{"unknown query parameter", http.MethodGet, "/api/v1/modules/base.identity?localle=en-US", "", 400, "invalid_request", "localle"},
		{"a pin beyond int64", http.MethodPost, "/api/v1/assemble", `{"revisions":{"base.identity@en-US":99999999999999999999}}`, 422, "invalid_request", "revisions.base.identity@en-US"},
		{"a pin beyond the revisions", http.MethodPost, "/api/v1/render", `{"module":"aux.title-gen","variables":{"conversation":"hi"},"revisions":{"aux.title-gen@en-US":3000000000}}`, 422, "invalid_request", "revisions.aux.title-gen@en-US"},
		{"a fractional docCount", http.MethodPost, "/api/v1/assemble", `{"knowledgeBases":[{"id":"k","name":"K","type":"faq","docCount":1.5}]}`, 422, "invalid_request", "knowledgeBases[0].docCount"},
		{"query on a route that takes none", http.MethodPost, "/api/v1/render?builtinOnly=true", `{"module":"aux.title-gen","variables":{"conversation":"hi"}}`, 400, "invalid_request", "builtinOnly"},
	} {
		wantAPIField(t, c.what, serveAPI(h, c.method, c.target, c.body, token), c.status, c.code, c.field)
	}
	// A pin past int64 says what a revision is, not how Go reads JSON.
	if rec := serveAPI(h, http.MethodPost, "/api/v1/assemble", `{"revisions":{"base.identity@en-US":99999999999999999999}}`, token); !strings.Contains(rec.Body.String(), "out of range") || strings.Contains(rec.Body.String(), "expected int") {
		t.Errorf("pin beyond int64: %s", rec.Body.String())
	}
	// What JSON and RFC 3339 allow is taken: an integer written 1.0 or
	// 1E2, a time with lower-case t and z.
	for _, body := range []string{
		`{"locale":"en-US","now":"2026-12-03t15:45:00z"}`,
		`{"locale":"en-US","knowledgeBases":[{"id":"k","name":"K","type":"faq","docCount":1E2}]}`,
		`{"locale":"en-US","knowledgeBases":[{"id":"k","name":"K","type":"faq","docCount":1.0}]}`,
	} {
		rec := serveAPI(h, http.MethodPost, "/api/v1/assemble", body, token)
		var res struct{ Segments []json.RawMessage }
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &res) != nil || len(res.Segments) == 0 {
			t.Errorf("assemble %s: %d %.300s", body, rec.Code, rec.Body.String())
		}
	}
	rec := serveAPI(h, http.MethodPost, "/api/v1/assemble", `{"locale":"en-US","now":"2026-12-03t15:45:00z"}`, token)
	if !strings.Contains(rec.Body.String(), "2026-12-03 (Thursday)") {
		t.Errorf("lower-case time: the prompt does not carry its date: %.300s", rec.Body.String())
	}
	// The parameters the document declares are taken.
	if rec := serveAPI(h, http.MethodGet, "/api/v1/commands?locale=en-US", "", token); rec.Code != http.StatusOK {
		t.Errorf("GET /api/v1/commands?locale=en-US: %d %s", rec.Code, rec.Body.String())
	}
	if rec := serveAPI(h, http.MethodPost, "/api/v1/assemble?builtinOnly=true", `{"locale":"en-US"}`, token); rec.Code != http.StatusOK {
		t.Errorf("assemble ?builtinOnly=true: %d %s", rec.Code, rec.Body.String())
	}
}

// HEAD answers wherever GET does, with GET's status and headers and no
// body: the health check, the console and the API.
func TestHEADWhereverGET(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	token := newToken(t, st, "head", domain.ScopeRead)
	for _, target := range []string{"/healthz", "/readyz", "/api/v1/modules", "/api/v1/modules/base.identity?locale=en-US", "/api/v1/modules/task.nope", "/api/v1/openapi.json"} {
		get := serveAPI(h, http.MethodGet, target, "", token)
		head := serveAPI(h, http.MethodHead, target, "", token)
		if head.Code != get.Code || head.Body.Len() != 0 || head.Header().Get("Content-Type") != get.Header().Get("Content-Type") ||
			head.Header().Get("Content-Length") != get.Header().Get("Content-Length") {
			t.Errorf("HEAD %s: %d %q, %d-byte body, Content-Length %q; GET: %d %q, Content-Length %q", target,
				head.Code, head.Header().Get("Content-Type"), head.Body.Len(), head.Header().Get("Content-Length"),
				get.Code, get.Header().Get("Content-Type"), get.Header().Get("Content-Length"))
		}
	}
	if rec := serve(h, http.MethodHead, "/"); rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Errorf("HEAD / (console): %d with %d bytes", rec.Code, rec.Body.Len())
	}
}

// rawHTTP sends req as it is over a new TCP connection to addr and
// returns the answer's status, Content-Type and body.
func rawHTTP(t *testing.T, addr, req string) (int, string, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = io.WriteString(conn, req) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to %.60q: %v", req, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

// The answers net/http gives before any handler runs (a malformed path,
// bad header bytes, headers over the limit) come in the JSON error shape
// on /api/, and stay plain text elsewhere.
func TestServerOwnErrorsAreJSONOnTheAPI(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, nil)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	addr := srv.Addr()
	huge := strings.Repeat("a", http.DefaultMaxHeaderBytes+8192)
	for _, c := range []struct {
		what, req string
		status    int
		code      string
		words     string
	}{
		{"%zz in the path", "GET /api/v1/modules/%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "invalid_request", "escape"},
		{"bad header name", "GET /api/v1/modules HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", 400, "invalid_request", "header"},
		{"bad header value", "GET /api/v1/modules HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n", 400, "invalid_request", "header"},
		{"headers too large", "GET /api/v1/modules HTTP/1.1\r\nHost: x\r\nX-Big: " + huge + "\r\n\r\n", 431, "limit_exceeded", "1 MiB"},
	} {
		status, ct, body := rawHTTP(t, addr, c.req)
		var e apiErrorBody
		if status != c.status || ct != "application/json" || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != c.code || !strings.Contains(e.Error.Message, c.words) {
			t.Errorf("%s: %d %q %s, want %d JSON %s naming %q", c.what, status, ct, body, c.status, c.code, c.words)
		}
	}
	if status, ct, _ := rawHTTP(t, addr, "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n"); status != 400 || !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("console %%zz: %d %q, want net/http's own plain 400", status, ct)
	}
	// The connection's next request after a good one is still read right.
	if status, ct, _ := rawHTTP(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/%zz HTTP/1.1\r\nHost: x\r\n\r\n"); status != 200 || !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("healthz: %d %q", status, ct)
	}
	if status, _, _ := rawHTTP(t, addr, "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); status != 200 {
		t.Errorf("HEAD /healthz over TCP: %d", status)
	}
}

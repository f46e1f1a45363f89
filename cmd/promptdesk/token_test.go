package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
)

// bearer adds token to req as "Authorization: Bearer": the one helper
// through which this package's tests call /api/v1.
func bearer(req *http.Request, token string) *http.Request {
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

var tokenLine = regexp.MustCompile(`(?m)^(pd_[A-Za-z0-9_-]{43})$`)

// TestTokenCommands: token add prints a token that works against a
// running server's /api/v1/modules, list shows it, revoke makes it 401.
func TestTokenCommands(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	t.Setenv("DATABASE_URL", dbURL)

	out, err := cliRun(t, "token", "add", "--scope", "read,assemble", "ci-reader")
	if err != nil {
		t.Fatalf("token add: %v\n%s", err, out)
	}
	m := tokenLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("token add printed no token line:\n%s", out)
	}
	secret := m[1]
	if !strings.Contains(out, `curl -H "Authorization: Bearer `+secret+`"`) || strings.Count(out, "\n") != 3 {
		t.Errorf("token add output, want the token and a one-line curl hint:\n%s", out)
	}
	if !strings.Contains(out, "http://127.0.0.1:8080/api/v1/modules") {
		t.Errorf("token add without --url: want the default address in the hint:\n%s", out)
	}
	if _, err := cliRun(t, "token", "add", "--scope", "superuser", "bad"); err == nil || !strings.Contains(err.Error(), `"superuser"`) {
		t.Errorf("unknown scope: %v, want an error naming it", err)
	}
	if _, err := cliRun(t, "token", "add", "--scope", "read", "ci-reader"); !errors.Is(err, library.ErrConflict) {
		t.Errorf("same name again: %v, want conflict", err)
	}

	st := openStore(t, dbURL)
	snap, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(context.Background(), web.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store: st, Library: reload.Fixed(snap), Assembler: assembler.New(assembler.Config{}), Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	// Started, so that its change listener reloads the in-memory tokens and
	// its background loop records their uses.
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	modules := func() int {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, bearer(httptest.NewRequest(http.MethodGet, "/api/v1/modules", nil), secret))
		return rec.Code
	}
	if code := modules(); code != http.StatusOK {
		t.Fatalf("GET /api/v1/modules with the new token: %d, want 200", code)
	}

	// The use is recorded in the background.
	var lines []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, err = cliRun(t, "token", "list")
		if err != nil {
			t.Fatal(err)
		}
		lines = strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || !strings.Contains(lines[1], "never") || time.Now().After(deadline) {
			break
		}
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("token list:\n%s", out)
	}
	f := strings.Fields(lines[1])
	// name, prefix, scopes, created, last used, revoked
	if len(f) != 6 || f[0] != "ci-reader" || f[1] != secret[:8]+"…" || f[2] != "assemble,read" || f[4] == "never" || f[5] != "-" {
		t.Errorf("token list row %q", lines[1])
	}
	if strings.Contains(out, secret) {
		t.Error("token list shows the secret")
	}

	if out, err := cliRun(t, "token", "revoke", "ci-reader"); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("token revoke: %v\n%s", err, out)
	}
	// Every instance refuses a revoked token within a second.
	revokedAt := time.Now()
	code := modules()
	for code != http.StatusUnauthorized && time.Since(revokedAt) < time.Second {
		time.Sleep(20 * time.Millisecond)
		code = modules()
	}
	if code != http.StatusUnauthorized {
		t.Errorf("GET /api/v1/modules with the revoked token, 1 s after revoking: %d, want 401", code)
	}
	if _, err := st.Authenticate(context.Background(), secret, "GET", "/api/v1/modules"); !errors.Is(err, domain.ErrTokenRevoked) {
		t.Errorf("Authenticate after revoke: %v", err)
	}
	out, _ = cliRun(t, "token", "list")
	if f := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1]); len(f) != 6 || f[5] == "-" {
		t.Errorf("after revoke, token list:\n%s", out)
	}
	if _, err := cliRun(t, "token", "revoke", "nobody"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("revoke unknown: %v, want not found", err)
	}
	all, err := st.ListAudit(context.Background(), domain.AuditFilter{Subject: domain.SubjectToken})
	// The uses (at most one a minute) aside: the create and the revoke.
	var audit []domain.AuditEntry
	uses := 0
	for _, e := range all {
		if e.Action == domain.ActionUse {
			uses++
			continue
		}
		audit = append(audit, e)
	}
	if err != nil || uses != 1 || len(audit) != 2 || audit[0].Actor != cliActor || audit[0].Action != domain.ActionRevoke || audit[1].Action != domain.ActionCreate {
		t.Errorf("audit %+v (%d uses) %v", audit, uses, err)
	}
}

// token add --url puts the console's address into the curl hint (serve
// may run on another address than the default).
func TestTokenAddURL(t *testing.T) {
	t.Setenv("DATABASE_URL", storetest.NewDatabase(t))
	out, err := cliRun(t, "token", "add", "--scope", "assemble", "--url", "http://127.0.0.1:8091/", "runtime")
	if err != nil || !strings.Contains(out, " http://127.0.0.1:8091/api/v1/commands\n") {
		t.Errorf("token add --url: the hint does not use the given console URL (%v):\n%s", err, out)
	}
	// Each token's hint is a GET its scopes allow.
	for scope, want := range map[string]string{"admin": " http://127.0.0.1:8080/api/v1/webhooks\n", "read,write": " http://127.0.0.1:8080/api/v1/modules\n", "write": "reads nothing"} {
		if out, err := cliRun(t, "token", "add", "--scope", scope, "only-"+strings.ReplaceAll(scope, ",", "-")); err != nil || !strings.Contains(out, want) {
			t.Errorf("token add --scope %s: want %q in the hint (%v):\n%s", scope, want, err, out)
		}
	}
	for _, bad := range []string{"ftp://x y", "http://h/base?x=1", "127.0.0.1:8080", "http://u:p@h/"} {
		if out, err := cliRun(t, "token", "add", "--scope", "assemble", "--url", bad, "other"); err == nil || !strings.Contains(err.Error(), "--url") || strings.Contains(out, "pd_") {
			t.Errorf("token add --url %q: %v, want a --url error before any token is made:\n%s", bad, err, out)
		}
	}
}

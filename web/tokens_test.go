package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
)

var tokenSecret = regexp.MustCompile(`<code data-testid="token-secret">(pd_[A-Za-z0-9_-]+)</code>`)

// The admins' tokens page lists tokens, creates one whose secret is shown
// once and works against the API, revokes it (401 from then on), keeps
// the form with the error next to the field, and is refused to editors.
func TestTokensPage(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	admin := login(t, h, testUser)

	rec := admin.do(h, httptest.NewRequest(http.MethodGet, "/tokens", nil))
	if body := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(body, `data-testid="no-tokens"`) || strings.Contains(body, `data-testid="tokens"`) {
		t.Fatalf("GET /tokens before the first token: want the no-tokens line and no table, got %d %s", rec.Code, body)
	}

	newToken(t, st, "old-runtime", domain.ScopeAssemble)
	rec = admin.do(h, httptest.NewRequest(http.MethodGet, "/tokens", nil))
	body := rec.Body.String()
	if strings.Contains(body, `data-testid="no-tokens"`) || rec.Code != http.StatusOK || !strings.Contains(body, `data-name="old-runtime"`) || !strings.Contains(body, "never") || !strings.Contains(body, `href="/tokens"`) {
		t.Fatalf("GET /tokens: %d %s", rec.Code, body)
	}

	rec = admin.do(h, admin.form(http.MethodPost, "/tokens", url.Values{"name": {"ci-reader"}, "scope": {"read", "assemble"}}))
	m := tokenSecret.FindStringSubmatch(rec.Body.String())
	if rec.Code != http.StatusOK || m == nil || !strings.Contains(rec.Body.String(), "will not be shown again") {
		t.Fatalf("create: %d, no secret shown once: %s", rec.Code, rec.Body.String())
	}
	secret := m[1]
	rec = admin.do(h, httptest.NewRequest(http.MethodGet, "/tokens", nil))
	if strings.Contains(rec.Body.String(), secret) || strings.Contains(rec.Body.String(), "token-secret") || !strings.Contains(rec.Body.String(), `data-name="ci-reader"`) {
		t.Errorf("second GET shows the secret or lacks the token: %s", rec.Body.String())
	}
	if rec := serveAPI(h, http.MethodGet, "/api/v1/modules", "", secret); rec.Code != http.StatusOK {
		t.Fatalf("the new token on /api/v1/modules: %d %s", rec.Code, rec.Body.String())
	}
	srv.tokens.Flush(t.Context()) // uses are recorded in the background
	list, err := st.ListTokens(t.Context())
	if err != nil || len(list) != 2 || list[0].Name != "ci-reader" || list[0].LastUsedAt == nil {
		t.Errorf("tokens %+v %v, want ci-reader used", list, err)
	}
	audit, err := st.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectToken, SubjectID: "ci-reader"})
	var rows []string
	for _, e := range audit {
		rows = append(rows, e.Actor+" "+e.Action)
	}
	if want := "token:ci-reader use," + testUser + " create"; err != nil || strings.Join(rows, ",") != want {
		t.Errorf("audit %q %v, want %q", rows, err, want)
	}

	// Errors keep the form, next to the field.
	rec = admin.do(h, admin.form(http.MethodPost, "/tokens", url.Values{"name": {"ci-reader"}, "scope": {"write"}}))
	if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), `data-field="name"`) || !strings.Contains(rec.Body.String(), `value="ci-reader"`) {
		t.Errorf("duplicate name: %d %s", rec.Code, rec.Body.String())
	}
	rec = admin.do(h, admin.form(http.MethodPost, "/tokens", url.Values{"name": {"CI Reader"}, "scope": {"read"}}))
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `data-field="name"`) || !strings.Contains(rec.Body.String(), `begins with &#39;C&#39;`) || !strings.Contains(rec.Body.String(), `value="CI Reader"`) {
		t.Errorf("bad name: %d %s", rec.Code, rec.Body.String())
	}
	rec = admin.do(h, admin.form(http.MethodPost, "/tokens", url.Values{"name": {"no-scope"}}))
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `data-field="scope"`) || !strings.Contains(rec.Body.String(), `value="no-scope"`) {
		t.Errorf("no scope: %d %s", rec.Code, rec.Body.String())
	}

	rec = admin.do(h, admin.form(http.MethodPost, "/tokens/revoke", url.Values{"name": {"ci-reader"}}))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("revoke: %d %s", rec.Code, rec.Body.String())
	}
	if rec := serveAPI(h, http.MethodGet, "/api/v1/modules", "", secret); rec.Code != http.StatusUnauthorized {
		t.Errorf("the revoked token: %d, want 401", rec.Code)
	}
	rec = admin.do(h, httptest.NewRequest(http.MethodGet, "/tokens", nil))
	if strings.Count(rec.Body.String(), `data-testid="token-revoke-form"`) != 1 {
		t.Errorf("after revoke, want one revoke button (old-runtime): %s", rec.Body.String())
	}
	if audit, err := st.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectToken, Action: domain.ActionRevoke}); err != nil || len(audit) != 1 || audit[0].Actor != testUser {
		t.Errorf("revoke audit %+v %v, want by %s", audit, err, testUser)
	}
	// Revoking again (a repeated post) changes nothing and says so.
	rec = admin.do(h, admin.form(http.MethodPost, "/tokens/revoke", url.Values{"name": {"ci-reader"}}))
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/tokens" {
		t.Fatalf("revoke again: %d to %q, want 303 to /tokens", rec.Code, rec.Header().Get("Location"))
	}
	rec = admin.do(h, httptest.NewRequest(http.MethodGet, "/tokens", nil))
	if flash := rec.Body.String(); !strings.Contains(flash, `data-testid="flash">API token ci-reader was already revoked (`) || !strings.Contains(flash, "; nothing changed.</div>") {
		t.Errorf("after revoking again, want the flash saying nothing changed: %s", flash)
	}
	if audit, _ := st.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectToken, Action: domain.ActionRevoke}); len(audit) != 1 {
		t.Errorf("revoking again is audited: %d revokes", len(audit))
	}

	newUser(t, st, "ed", domain.RoleEditor)
	editor := login(t, h, "ed")
	if rec := editor.do(h, httptest.NewRequest(http.MethodGet, "/tokens", nil)); rec.Code != http.StatusForbidden {
		t.Errorf("editor on /tokens: %d, want 403", rec.Code)
	}
	if rec := editor.do(h, httptest.NewRequest(http.MethodGet, "/", nil)); strings.Contains(rec.Body.String(), `href="/tokens"`) {
		t.Error("an editor sees the Tokens link")
	}
}

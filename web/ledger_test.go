package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/state/ledger"
	"github.com/promptdesk/promptdesk/store"
)

// The ledger's list pages 200 entries at a time (a page past the end
// shows the last one, the pager keeps the filter); the export is a
// Markdown download of what the filter selects; a decision needs the
// CSRF token and an editor.
func TestLedgerPagesExportAndForm(t *testing.T) {
	t.Parallel()
	frags := make([]ledger.Fragment, 450)
	for i := range frags {
		frags[i] = ledger.Fragment{Name: fmt.Sprintf("tool-%03d", i), Kind: "tool-description", Version: "1", Text: fmt.Sprintf("Tool %d.", i)}
	}
	srv, st := newServer(t, func(ctx context.Context, st *store.Store, lib *library.Snapshot) {
		if _, err := (&state.Ledger{Store: st}).Sync(ctx, "claude-code", frags); err != nil {
			t.Fatal(err)
		}
	})
	h := srv.Handler()
	admin := login(t, h, testUser)
	rows := func(body string) int { return strings.Count(body, `data-testid="ledger-row"`) }

	rec := admin.do(h, get("/ledger"))
	if rec.Code != http.StatusOK || rows(rec.Body.String()) != 200 || !strings.Contains(rec.Body.String(), "1–200 of 450") ||
		!strings.Contains(rec.Body.String(), `href="/ledger?catalogue=claude-code&amp;page=2"`) {
		t.Errorf("page 1: %d, %d rows\n%.2000s", rec.Code, rows(rec.Body.String()), rec.Body.String())
	}
	for _, target := range []string{"/ledger?catalogue=claude-code&page=3", "/ledger?catalogue=claude-code&page=9"} {
		rec = admin.do(h, get(target))
		if body := rec.Body.String(); rows(body) != 50 || !strings.Contains(body, "401–450 of 450") || strings.Contains(body, `data-testid="page-next"`) {
			t.Errorf("%s: %d rows\n%.2000s", target, rows(body), body)
		}
	}
	rec = admin.do(h, get("/ledger?catalogue=claude-code&q=tool-1&decision=undecided"))
	if body := rec.Body.String(); rows(body) != 100 || !strings.Contains(body, "100 of 450 entries") {
		t.Errorf("q=tool-1: %d rows", rows(body))
	}
	if rec = admin.do(h, get("/ledger?catalogue=claude-code&flag=drifted")); rec.Code != http.StatusUnprocessableEntity && rec.Code != http.StatusBadRequest {
		t.Errorf("a flag that is not one: %d", rec.Code)
	}

	rec = admin.do(h, get("/ledger/export.md?catalogue=claude-code&q=tool-44"))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/markdown; charset=utf-8" ||
		rec.Header().Get("Content-Disposition") != `attachment; filename="ledger-claude-code.md"` ||
		!strings.HasPrefix(rec.Body.String(), "# Porting ledger: claude-code\n\n10 entries: ") {
		t.Errorf("export: %d %v\n%s", rec.Code, rec.Header(), rec.Body.String())
	}

	decide := url.Values{"decision": {"do-not-port"}, "reason": {"No such tool here."}}
	const target = "/ledger/decide?catalogue=claude-code&name=tool-007"
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(decide.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec := admin.do(h, req); rec.Code != http.StatusForbidden {
		t.Errorf("a decision without the CSRF token: %d, want 403", rec.Code)
	}
	newUser(t, st, "vic", domain.RoleViewer)
	viewer := login(t, h, "vic")
	if rec := viewer.do(h, viewer.form(http.MethodPost, target, decide)); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer's decision: %d, want 403", rec.Code)
	}
	if rec := admin.do(h, admin.form(http.MethodPost, target, decide)); rec.Code != http.StatusSeeOther {
		t.Errorf("the admin's decision: %d %s", rec.Code, rec.Body.String())
	}
	if e, err := st.GetLedgerEntry(t.Context(), "claude-code", "tool-007"); err != nil || e.Decision != domain.DecisionDoNotPort || e.DecidedBy != testUser {
		t.Errorf("stored: %+v, %v", e, err)
	}
}

func get(target string) *http.Request { return httptest.NewRequest(http.MethodGet, target, nil) }

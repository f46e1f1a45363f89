package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/state/ledger"
	"github.com/promptdesk/promptdesk/store"
)

// The ledger's API lists and exports with read, decides with write
// (recorded as the token), refuses a decision naming the field at fault
// (an unknown module, a do-not-port without a reason), answers 404 for an
// unknown entry and 409 for a decision on an upstream text that moved;
// every exchange is validated against the OpenAPI document.
func TestAPILedger(t *testing.T) {
	t.Parallel()
	var svc *state.Ledger
	srv, st := newServer(t, func(ctx context.Context, st *store.Store, lib *library.Snapshot) {
		svc = &state.Ledger{Store: st, Exists: lib.Has}
		if _, err := svc.Sync(ctx, "claude-code", ledgerV1); err != nil {
			t.Fatal(err)
		}
	})
	h := srv.Handler()
	reader := newToken(t, st, "reader", domain.ScopeRead)
	writer := newToken(t, st, "writer", domain.ScopeWrite)

	list := func(query string) handlers.APILedgerList {
		t.Helper()
		rec := serveAPI(h, http.MethodGet, "/api/v1/ledger"+query, "", reader)
		var out handlers.APILedgerList
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil {
			t.Fatalf("GET /api/v1/ledger%s: %d %s", query, rec.Code, rec.Body.String())
		}
		return out
	}
	if l := list(""); l.Catalogue != "claude-code" || len(l.Entries) != 5 || l.Entries[0].Name != "mode-plan" || l.Entries[0].Flags[0] != "undecided" {
		t.Fatalf("list: %+v", l)
	}
	bash := list("?q=bash").Entries[0]

	for _, c := range []struct {
		what, body  string
		status      int
		code, field string
	}{
		{"unknown module", `{"name":"tool-bash","decision":"port","module":"tool.none"}`, 422, "invalid_request", "module"},
		{"do-not-port without reason", `{"name":"tool-bash","decision":"do-not-port"}`, 422, "invalid_request", "reason"},
		{"unknown entry", `{"name":"tool-none","decision":"port","module":"base.caution"}`, 404, "not_found", "name"},
		{"unknown catalogue name", `{"catalogue":"Claude Code","name":"tool-bash","decision":"port","module":"base.caution"}`, 422, "invalid_request", "catalogue"},
		{"stale hash", `{"name":"tool-bash","decision":"port","module":"base.caution","hash":"` + strings.Repeat("0", 64) + `"}`, 409, "conflict", "hash"},
	} {
		wantAPIField(t, c.what, serveAPI(h, http.MethodPost, "/api/v1/ledger/decisions", c.body, writer), c.status, c.code, c.field)
	}
	if rec := serveAPI(h, http.MethodPost, "/api/v1/ledger/decisions", `{"name":"tool-bash","decision":"port","module":"base.caution"}`, reader); rec.Code != http.StatusForbidden {
		t.Errorf("decide with read: %d, want 403", rec.Code)
	}
	rec := serveAPI(h, http.MethodPost, "/api/v1/ledger/decisions", `{"name":"tool-bash","decision":"port","module":"base.caution","reason":"our shell tool","hash":"`+bash.Hash+`"}`, writer)
	var decided handlers.APILedgerEntry
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &decided) != nil {
		t.Fatalf("decide: %d %s", rec.Code, rec.Body.String())
	}
	if decided.Decision != "port" || decided.Module != "base.caution" || decided.DecidedBy != "token:writer" || decided.DecidedAt == nil || decided.DecidedVersion != "2.0.1" || len(decided.Flags) != 0 {
		t.Errorf("decided %+v", decided)
	}

	if _, err := svc.Sync(t.Context(), "claude-code", ledgerV2); err != nil {
		t.Fatal(err)
	}
	drifted := list("?flag=upstream-drifted&decision=port")
	if len(drifted.Entries) != 1 || drifted.Entries[0].Name != "tool-bash" || drifted.Entries[0].Version != "2.0.2" || drifted.Entries[0].DecidedVersion != "2.0.1" {
		t.Errorf("upstream-drifted: %+v", drifted.Entries)
	}
	wantAPIField(t, "bad flag", serveAPI(h, http.MethodGet, "/api/v1/ledger?flag=drifted", "", reader), 422, "invalid_request", "flag")

	rec = serveAPI(h, http.MethodGet, "/api/v1/ledger/export?decision=port", "", reader)
	var exp handlers.APILedgerExport
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &exp) != nil {
		t.Fatalf("export: %d %s", rec.Code, rec.Body.String())
	}
	md, err := svc.Export(t.Context(), "claude-code", ledger.Filter{Decision: domain.DecisionPort})
	if err != nil {
		t.Fatal(err)
	}
	if exp.Markdown != md || !strings.Contains(md, "| tool-bash | tool-description | 2.0.2 | port | `base.caution` | our shell tool | token:writer, ") {
		t.Errorf("export:\n%s\nwant the service's:\n%s", exp.Markdown, md)
	}
}

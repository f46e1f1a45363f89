package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/store"
)

// newToken creates an API token called name with scopes and returns its
// secret.
func newToken(t *testing.T, st *store.Store, name string, scopes ...string) string {
	t.Helper()
	_, secret, err := st.CreateToken(domain.WithActor(context.Background(), "test"), name, scopes)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// authorize adds token to req as "Authorization: Bearer": the one helper
// through which the web tests call /api/v1.
func authorize(req *http.Request, token string) *http.Request {
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// serveAPI is serve with token and a body (JSON, or text/plain for the PUT
// of an override).
func serveAPI(h http.Handler, method, target, body, token string) *httptest.ResponseRecorder {
	req := authorize(httptest.NewRequest(method, target, strings.NewReader(body)), token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		if method == http.MethodPut && strings.HasPrefix(target, "/api/v1/overrides/") {
			req.Header.Set("Content-Type", "text/plain; charset=utf-8")
		}
	}
	rec := httptest.NewRecorder()
	validated(h).ServeHTTP(rec, req)
	return rec
}

// apiScopes is the scope table (README, Runtime API): the scopes each
// /api/v1 route accepts (any one of them). A route registered but missing
// here fails TestEveryAPIRouteNeedsAToken, so a new route must be given its
// scopes.
var apiScopes = map[string][]string{
	"POST /api/v1/assemble":                                    {domain.ScopeAssemble},
	"POST /api/v1/render":                                      {domain.ScopeAssemble},
	"GET /api/v1/modules":                                      {domain.ScopeRead},
	"GET /api/v1/modules/:id":                                  {domain.ScopeRead},
	"GET /api/v1/commands":                                     {domain.ScopeAssemble, domain.ScopeRead},
	"GET /api/v1/tools":                                        {domain.ScopeAssemble, domain.ScopeRead},
	"GET /api/v1/profiles":                                     {domain.ScopeAssemble, domain.ScopeRead},
	"GET /api/v1/overrides":                                    {domain.ScopeRead},
	"GET /api/v1/changes":                                      {domain.ScopeAssemble, domain.ScopeRead},
	"GET /api/v1/openapi.json":                                 {domain.ScopeAssemble, domain.ScopeRead},
	"GET /api/v1/overrides/:id":                                {domain.ScopeRead},
	"PUT /api/v1/overrides/:id":                                {domain.ScopeWrite},
	"DELETE /api/v1/overrides/:id":                             {domain.ScopeWrite},
	"POST /api/v1/overrides/:id/publish":                       {domain.ScopeWrite},
	"GET /api/v1/overrides/:id/revisions":                      {domain.ScopeRead},
	"GET /api/v1/overrides/:id/revisions/:n":                   {domain.ScopeRead},
	"POST /api/v1/overrides/:id/revisions/:n/restore":          {domain.ScopeWrite},
	"GET /api/v1/scenarios":                                    {domain.ScopeRead},
	"POST /api/v1/scenarios":                                   {domain.ScopeWrite},
	"GET /api/v1/scenarios/:id":                                {domain.ScopeRead},
	"PUT /api/v1/scenarios/:id":                                {domain.ScopeWrite},
	"DELETE /api/v1/scenarios/:id":                             {domain.ScopeWrite},
	"POST /api/v1/scenarios/:id/run":                           {domain.ScopeAssemble},
	"POST /api/v1/scenarios/:id/accept":                        {domain.ScopeWrite},
	"GET /api/v1/webhooks":                                     {domain.ScopeAdmin},
	"POST /api/v1/webhooks":                                    {domain.ScopeAdmin},
	"GET /api/v1/webhooks/:id":                                 {domain.ScopeAdmin},
	"PUT /api/v1/webhooks/:id":                                 {domain.ScopeAdmin},
	"DELETE /api/v1/webhooks/:id":                              {domain.ScopeAdmin},
	"GET /api/v1/webhooks/:id/deliveries":                      {domain.ScopeAdmin},
	"POST /api/v1/webhooks/:id/redeliver":                      {domain.ScopeAdmin},
	"POST /api/v1/webhooks/:id/deliveries/:delivery/redeliver": {domain.ScopeAdmin},
	"GET /api/v1/ledger":                                       {domain.ScopeRead},
	"GET /api/v1/ledger/export":                                {domain.ScopeRead},
	"POST /api/v1/ledger/decisions":                            {domain.ScopeWrite},
}

// apiTargetID is the :id of a route in TestEveryAPIRouteNeedsAToken: a
// seeded example scenario for the scenario routes (DELETE another one,
// since the routes come in any order), webhook 1 (DELETE 2) for the
// webhook routes, else a module.
func apiTargetID(method, path string) string {
	switch {
	case strings.HasPrefix(path, "/api/v1/webhooks/") && method == http.MethodDelete:
		return "2"
	case strings.HasPrefix(path, "/api/v1/webhooks/"):
		return "1"
	case !strings.HasPrefix(path, "/api/v1/scenarios/"):
		return "base.identity"
	case method == http.MethodDelete:
		return "fallback-ja"
	}
	return "minutes-zh"
}

// apiBodies are request bodies that succeed with the right scope.
var apiBodies = map[string]string{
	"POST /api/v1/assemble": `{"locale":"en-US"}`,
	"POST /api/v1/render":   `{"module":"aux.title-gen","variables":{"conversation":"hi"}}`,
}

// wantAPIError wants the JSON error of status and code.
func wantAPIError(t *testing.T, what string, rec *httptest.ResponseRecorder, status int, code string, words ...string) {
	t.Helper()
	var body apiErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != status || body.Error.Code != code {
		t.Errorf("%s: %d %s, want %d %s", what, rec.Code, rec.Body.String(), status, code)
		return
	}
	for _, w := range words {
		if !strings.Contains(body.Error.Message, w) {
			t.Errorf("%s: message %q lacks %q", what, body.Error.Message, w)
		}
	}
}

// TestEveryAPIRouteNeedsAToken enumerates the server's routes: every
// /api/v1 route answers 401 (with WWW-Authenticate: Bearer) without a
// token, with an unknown one and with a revoked one; 403 naming the scope
// with a token lacking it; and not 401 or 403 with a token holding it.
// /healthz and /readyz answer without a token.
func TestEveryAPIRouteNeedsAToken(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	tokens := map[string]string{}
	for _, s := range domain.Scopes {
		tokens[s] = newToken(t, st, "only-"+s, s)
	}
	revoked := newToken(t, st, "revoked", domain.Scopes...)
	if _, err := st.RevokeToken(context.Background(), "revoked"); err != nil {
		t.Fatal(err)
	}
	// Webhooks 1 and 2 (apiTargetID): the routes that take an id find one.
	for i := range 2 {
		if _, err := st.CreateWebhook(context.Background(), domain.Webhook{URL: fmt.Sprintf("http://127.0.0.1:%d/", 9+i), Secret: strings.Repeat("s", 16)}); err != nil {
			t.Fatal(err)
		}
	}

	// Revision 1 of an override, for the revision routes to read.
	seed := newToken(t, st, "seed", domain.Scopes...)
	var cur struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(serveAPI(h, http.MethodGet, "/api/v1/overrides/base.identity?locale=en-US", "", seed).Body.Bytes(), &cur)
	if rec := serveAPI(h, http.MethodPut, "/api/v1/overrides/base.identity?locale=en-US", cur.Text+"\nSeeded for the revision routes.\n", seed); rec.Code != http.StatusOK {
		t.Fatalf("seeding an override: %d %s", rec.Code, rec.Body.String())
	}

	seen := 0
	for _, r := range srv.echo.Routes() {
		if !strings.HasPrefix(r.Path, "/api/v1/") {
			continue
		}
		seen++
		key := r.Method + " " + r.Path
		scopes, ok := apiScopes[key]
		if !ok {
			t.Errorf("route %s has no entry in apiScopes: give it its scopes", key)
			continue
		}
		target := strings.ReplaceAll(strings.ReplaceAll(r.Path, ":id", apiTargetID(r.Method, r.Path)), ":n", "1")
		body := apiBodies[key]
		for what, token := range map[string]string{"no token": "", "unknown token": "pd_" + strings.Repeat("x", 43), "revoked token": revoked, "not bearer": "-"} {
			req := httptest.NewRequest(r.Method, target, strings.NewReader(body))
			if token == "-" {
				req.Header.Set("Authorization", "Basic dXNlcjpwYXNz")
			} else {
				authorize(req, token)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			wantAPIError(t, key+" with "+what, rec, http.StatusUnauthorized, "unauthorized")
			if got := rec.Header().Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("%s with %s: WWW-Authenticate %q, want Bearer", key, what, got)
			}
		}
		for _, s := range domain.Scopes {
			rec := serveAPI(h, r.Method, target, body, tokens[s])
			if slices.Contains(scopes, s) {
				if rec.Code == http.StatusUnauthorized || rec.Code == http.StatusForbidden {
					t.Errorf("%s with scope %s: %d %s, want it let through", key, s, rec.Code, rec.Body.String())
				}
				if r.Method == http.MethodGet || body != "" {
					if rec.Code != http.StatusOK {
						t.Errorf("%s with scope %s: %d %s, want 200", key, s, rec.Code, rec.Body.String())
					}
				}
				continue
			}
			wantAPIError(t, key+" with scope "+s, rec, http.StatusForbidden, "forbidden", `"`+scopes[0]+`"`, "only-"+s)
		}
	}
	if seen != len(apiScopes) {
		t.Errorf("%d /api/v1 routes registered, apiScopes lists %d", seen, len(apiScopes))
	}

	for _, path := range []string{"/healthz", "/readyz"} {
		if rec := serve(h, http.MethodGet, path); rec.Code != http.StatusOK {
			t.Errorf("%s without a token: %d, want 200", path, rec.Code)
		}
	}
	// An unknown API route is still the JSON 404, and a known path with
	// another method the 405, token or not.
	wantAPIError(t, "unknown route", serve(h, http.MethodGet, "/api/v1/nothing"), http.StatusNotFound, "not_found")
	rec := serve(h, http.MethodDelete, "/api/v1/modules")
	wantAPIError(t, "405", rec, http.StatusMethodNotAllowed, "method_not_allowed")
	// GET routes answer HEAD too, so the Allow header says so.
	if allow := rec.Header().Get("Allow"); allow != "GET, HEAD" {
		t.Errorf("405 Allow %q, want GET, HEAD", allow)
	}
	// OPTIONS is a method the API does not list: 405 like any other
	// (the router alone would answer 204, which the document does not
	// describe), through the contract check.
	for path, want := range map[string]string{"/api/v1/modules": "GET, HEAD", "/api/v1/assemble": "POST", "/api/v1/overrides/base.identity": "DELETE, GET, PUT, HEAD"} {
		rec := serveAPI(h, http.MethodOptions, path, "", "")
		wantAPIError(t, "OPTIONS "+path, rec, http.StatusMethodNotAllowed, "method_not_allowed")
		if allow := rec.Header().Get("Allow"); allow != want {
			t.Errorf("OPTIONS %s: Allow %q, want %q", path, allow, want)
		}
	}
	wantAPIError(t, "OPTIONS on an unknown route", serve(h, http.MethodOptions, "/api/v1/nothing"), http.StatusNotFound, "not_found")
}

// TestAPIWritesRecordTheToken: an override written through the API is
// recorded with the actor token:<name>, and using a token sets its
// last-used time.
func TestAPIWritesRecordTheToken(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	token := newToken(t, st, "deploy-bot", domain.ScopeRead, domain.ScopeWrite)
	get := serveAPI(srv.Handler(), http.MethodGet, "/api/v1/overrides/base.identity?locale=en-US", "", token)
	var cur struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(get.Body.Bytes(), &cur); err != nil || get.Code != http.StatusOK {
		t.Fatalf("GET override: %d %s", get.Code, get.Body.String())
	}
	text := strings.TrimRight(cur.Text, "\n") + "\n\nWritten by the deploy bot.\n"
	if rec := serveAPI(srv.Handler(), http.MethodPut, "/api/v1/overrides/base.identity?locale=en-US", text, token); rec.Code != http.StatusOK {
		t.Fatalf("PUT: %d %s", rec.Code, rec.Body.String())
	}
	o, err := st.GetOverride(context.Background(), "base.identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if o.Author != "token:deploy-bot" {
		t.Errorf("author %q, want token:deploy-bot", o.Author)
	}
	audit, err := st.ListAudit(context.Background(), domain.AuditFilter{Actor: "token:deploy-bot", Subject: domain.SubjectOverride})
	if err != nil || len(audit) != 1 || audit[0].Action != domain.ActionCreate || audit[0].Subject != domain.SubjectOverride {
		t.Errorf("audit by token:deploy-bot: %+v %v, want the one create", audit, err)
	}
	srv.tokens.Flush(t.Context()) // uses are recorded in the background
	list, err := st.ListTokens(context.Background())
	if err != nil || len(list) != 1 || list[0].LastUsedAt == nil {
		t.Errorf("tokens %+v %v, want deploy-bot with a last-used time", list, err)
	}
}

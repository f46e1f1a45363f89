package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/web/apitest"
)

// ruleCase is one request on the edge of a rule the server enforces:
// allowed says whether the document allows it (both validators) and the
// server takes it; field is the field a refusal names.
type ruleCase struct {
	what, method, target, body string
	allowed                    bool
	field                      string
}

// checkRule sends c to h and holds the document and the server to it:
// an allowed request passes both validators and is answered 2xx; a
// forbidden one is refused by both validators and answered 4xx naming
// field.
func checkRule(t *testing.T, h http.Handler, token string, c ruleCase) {
	t.Helper()
	req := authorize(httptest.NewRequest(c.method, c.target, strings.NewReader(c.body)), token)
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	pb, kin := apitest.Refusals(req, []byte(c.body))
	rec := serveAPI(h, c.method, c.target, c.body, token)
	var e apiErrorBody
	_ = json.Unmarshal(rec.Body.Bytes(), &e)
	switch {
	case c.allowed && (pb != "" || kin != ""):
		t.Errorf("%s: the document refuses an allowed request: pb33f:%s\nkin-openapi:%s", c.what, pb, kin)
	case c.allowed && (rec.Code < 200 || rec.Code > 299):
		t.Errorf("%s: the server answers %d %.300s, want 2xx", c.what, rec.Code, rec.Body.String())
	case !c.allowed && (pb == "" || kin == ""):
		t.Errorf("%s: a validator allows a forbidden request (pb33f refuses: %t, kin-openapi refuses: %t)", c.what, pb != "", kin != "")
	case !c.allowed && (rec.Code < 400 || rec.Code > 499 || e.Error.Field != c.field):
		t.Errorf("%s: the server answers %d %.300s, want a 4xx naming %q", c.what, rec.Code, rec.Body.String(), c.field)
	}
}

// The document states every rule the server enforces on these fields, so
// both validators and the server agree on each side of each edge.
func TestDocumentHoldsTheServerRules(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	token := newToken(t, st, "rules", domain.Scopes...)
	sec16, sec201 := strings.Repeat("s", 16), strings.Repeat("s", 201)
	hooks := 0 // each endpoint a URL of its own: a taken URL is refused
	hook := func(secret string) string {
		hooks++
		return `{"url":"http://127.0.0.1:9/hook-` + strconv.Itoa(hooks) + `","secret":"` + secret + `"}`
	}
	scenario := func(id, name string) string {
		return `{"id":"` + id + `","name":"` + name + `","request":{"locale":"en-US"}}`
	}
	for _, c := range []ruleCase{
		{"secret of 16", http.MethodPost, "/api/v1/webhooks", hook(sec16), true, ""},
		{"secret of 15", http.MethodPost, "/api/v1/webhooks", hook(sec16[1:]), false, "secret"},
		{"secret of 201", http.MethodPost, "/api/v1/webhooks", hook(sec201), false, "secret"},
		{"secret with a trailing space", http.MethodPost, "/api/v1/webhooks", hook(sec16 + " "), false, "secret"},
		{"secret with a NUL", http.MethodPost, "/api/v1/webhooks", hook(sec16 + `\u0000`), false, "secret"},
		{"no secret", http.MethodPost, "/api/v1/webhooks", hook(""), true, ""},
		{"scenario id", http.MethodPost, "/api/v1/scenarios", scenario("ok-1", "A"), true, ""},
		{"scenario id of 64", http.MethodPost, "/api/v1/scenarios", scenario(strings.Repeat("a", 64), "A"), true, ""},
		{"scenario id of 65", http.MethodPost, "/api/v1/scenarios", scenario(strings.Repeat("a", 65), "A"), false, "id"},
		{"scenario id in capitals", http.MethodPost, "/api/v1/scenarios", scenario("Up", "A"), false, "id"},
		{"scenario id from a dot", http.MethodPost, "/api/v1/scenarios", scenario(".a", "A"), false, "id"},
		{"scenario id trimmed", http.MethodPost, "/api/v1/scenarios", scenario(" trimmed ", "A"), true, ""},
		{"blank scenario name", http.MethodPost, "/api/v1/scenarios", scenario("b", "  "), false, "name"},
		{"scenario name of two lines", http.MethodPost, "/api/v1/scenarios", scenario("c", `a\nb`), false, "name"},
		{"scenario name of 200", http.MethodPost, "/api/v1/scenarios", scenario("d", strings.Repeat("n", 200)), true, ""},
		{"scenario name of 201", http.MethodPost, "/api/v1/scenarios", scenario("e", strings.Repeat("n", 201)), false, "name"},
		{"fingerprint of the wrong shape", http.MethodPost, "/api/v1/scenarios/ok-1/accept", `{"fingerprint":"ABC"}`, false, "fingerprint"},
		{"empty fingerprint", http.MethodPost, "/api/v1/scenarios/ok-1/accept", `{"fingerprint":""}`, true, ""},
		{"model of two lines", http.MethodPost, "/api/v1/assemble", `{"model":"gpt\n4"}`, false, "model"},
		{"model of 200 characters", http.MethodPost, "/api/v1/assemble", `{"model":"` + strings.Repeat("\u00e9", 200) + `"}`, true, ""},
		{"model of 201", http.MethodPost, "/api/v1/assemble", `{"model":"` + strings.Repeat("m", 201) + `"}`, false, "model"},
		{"attachment name with a tab", http.MethodPost, "/api/v1/assemble", `{"attachments":[{"name":"a\tb"}]}`, false, "attachments[0].name"},
		{"blank skill name", http.MethodPost, "/api/v1/assemble", `{"skills":[{"name":" \u3000 "}]}`, false, "skills[0].name"},
		{"skill name", http.MethodPost, "/api/v1/assemble", `{"skills":[{"name":" x "}]}`, true, ""},
		{"limit 500", http.MethodGet, "/api/v1/modules?limit=500", "", true, ""},
		{"limit 501", http.MethodGet, "/api/v1/modules?limit=501", "", false, "limit"},
		{"limit empty", http.MethodGet, "/api/v1/modules?limit=", "", false, "limit"},
		{"limit +5", http.MethodGet, "/api/v1/modules?limit=%2B5", "", true, ""},
		{"locale empty", http.MethodGet, "/api/v1/commands?locale=", "", false, "locale"},
		{"wait 30", http.MethodGet, "/api/v1/changes?wait=0&since=0", "", true, ""},
		{"wait 31", http.MethodGet, "/api/v1/changes?since=0&wait=31", "", false, "wait"},
		{"since a word", http.MethodGet, "/api/v1/changes?since=now", "", false, "since"},
		{"deliveries limit 0", http.MethodGet, "/api/v1/webhooks/1/deliveries?limit=0", "", false, "limit"},
	} {
		checkRule(t, h, token, c)
	}
}

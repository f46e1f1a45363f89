package apitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// exchange runs one request through Check against an answer with status,
// Content-Type JSON and body.
func exchange(method, target, reqBody string, status int, body string) []string {
	req := httptest.NewRequest(method, target, strings.NewReader(reqBody))
	req.Header.Set("Authorization", "Bearer pd_test")
	if reqBody != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json")
	rec.WriteHeader(status)
	_, _ = rec.WriteString(body)
	return Check(req, []byte(reqBody), rec.Result())
}

const command = `{"command":"/minutes","module":"task.doc-minutes","title":"Minutes","description":"Take minutes"}`

// Check passes an exchange the document describes and names each kind of
// drift: an undocumented field, status or route, a missing required
// field, a refused request the server took, a bad error body.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		what                    string
		method, target, reqBody string
		status                  int
		body                    string
		want                    string // a part of the first problem; "" for none
	}{
		{"documented", http.MethodGet, "/api/v1/commands?locale=en-US", "", 200, "[" + command + "]", ""},
		{"documented error", http.MethodGet, "/api/v1/commands?locale=xx-!!", "", 400, `{"error":{"code":"invalid_request","message":"m","field":"locale"}}`, ""},
		{"undocumented field", http.MethodGet, "/api/v1/commands", "", 200, `[{"command":"/m","module":"task.m","title":"M","description":"d","extra":1}]`, "not what the OpenAPI document describes"},
		{"missing field", http.MethodGet, "/api/v1/commands", "", 200, `[{"command":"/m"}]`, "not what the OpenAPI document describes"},
		{"undocumented status", http.MethodGet, "/api/v1/commands", "", 418, `{"error":{"code":"internal","message":"m","field":""}}`, "not what the OpenAPI document describes"},
		{"error code outside the enum", http.MethodGet, "/api/v1/commands", "", 401, `{"error":{"code":"nope","message":"m","field":""}}`, "not what the OpenAPI document describes"},
		{"undocumented route answering", http.MethodGet, "/api/v1/secret", "", 200, `{}`, "not in the OpenAPI document"},
		{"undocumented route, JSON 404", http.MethodGet, "/api/v1/secret", "", 404, `{"error":{"code":"not_found","message":"m","field":""}}`, ""},
		{"undocumented route, bad error body", http.MethodGet, "/api/v1/secret", "", 404, `{"error":"nope"}`, "not the JSON error shape"},
		{"refused request taken", http.MethodGet, "/api/v1/commands?locale=not%20a%20tag", "", 200, "[" + command + "]", "accepted a request the OpenAPI document refuses"},
		{"null taken", http.MethodPost, "/api/v1/render", `{"module":"aux.title-gen","locale":null}`, 200, `{}`, "accepted a request the OpenAPI document refuses"},
	} {
		problems := exchange(c.method, c.target, c.reqBody, c.status, c.body)
		switch {
		case c.want == "" && len(problems) > 0:
			t.Errorf("%s: problems %q, want none", c.what, problems)
		case c.want != "" && (len(problems) == 0 || !strings.Contains(problems[0], c.want)):
			t.Errorf("%s: problems %q, want one saying %q", c.what, problems, c.want)
		}
	}
}

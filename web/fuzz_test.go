package web

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/web/apitest"
)

// TestSchemaDrivenFuzz sends a bounded set of requests made from the
// document's schemas (fixed seed, a few hundred): for every query
// parameter of every GET, and for every property of every JSON request
// body, values on each side of the schema's edges (bounds, lengths,
// enums, patterns), one field at a time on a valid request; then each
// body under media types the document does not declare, and a body sent
// to each POST and DELETE that takes none. Whether a request is allowed
// is what both validators say of it by the document alone (they must
// agree); the server must then:
//   - never answer 5xx;
//   - answer a forbidden request 4xx;
//   - answer an allowed request 2xx or 304, or a 4xx that depends on
//     state the schema cannot know: 404 for an id that does not exist,
//     409 for a taken scenario id, 412 or 428 for a revision precondition,
//     and 422 when the value is well formed but its meaning is beyond a
//     schema: a locale tag that does not parse, an IANA time zone that
//     does not exist, a cursor the server did not issue, a webhook URL
//     whose host is refused, an unknown profile or module, a module file
//     that does not parse (stateful).
func TestSchemaDrivenFuzz(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	h := srv.Handler()
	token := newToken(t, st, "fuzz", domain.Scopes...)
	rng := rand.New(rand.NewPCG(1, 2))
	doc := openAPIDoc(t)
	schemas := obj(t, doc, "components", "schemas")

	// A probe with media set sends its body under a media type the
	// document does not declare for it, or to an operation that takes no
	// body: the answer must be 415. pb33f does not check a body's media
	// type, nor a charset, and kin-openapi does not check the charset, so
	// for these the document's refusal is kin-openapi's.
	type probe struct {
		method, target, body, contentType string
		media                             bool
	}
	var probes []probe
	paths := obj(t, doc, "paths")
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, path := range names {
		op, ok := paths[path].(jsonObject)["get"].(jsonObject)
		if !ok {
			continue
		}
		target := strings.NewReplacer("{id}", "base.identity", "{n}", "1", "{delivery}", "1").Replace(path)
		if strings.HasPrefix(path, "/api/v1/webhooks/") || strings.HasPrefix(path, "/api/v1/scenarios/") {
			target = strings.Replace(path, "{id}", "1", 1)
		}
		params, _ := op["parameters"].([]any)
		for _, p := range params {
			po := resolve(t, doc, p.(jsonObject))
			if po["in"] != "query" {
				continue
			}
			name := po["name"].(string)
			for _, v := range edgeValues(t, doc, po["schema"].(jsonObject), rng) {
				s, ok := v.(string)
				if !ok {
					b, _ := json.Marshal(v)
					s = string(b)
				}
				probes = append(probes, probe{method: http.MethodGet, target: target + "?" + url.Values{name: {s}}.Encode()})
			}
		}
	}
	const identity = "/api/v1/overrides/base.identity?locale=en-US"
	bodies := []struct {
		method, target, schema string
		base                   map[string]any
	}{
		{http.MethodPost, "/api/v1/assemble", "Request", map[string]any{"locale": "en-US"}},
		{http.MethodPost, "/api/v1/render", "RenderRequest", map[string]any{"module": "aux.title-gen", "variables": map[string]any{"conversation": "x"}}},
		{http.MethodPut, identity, "", map[string]any{"text": "x"}},
		{http.MethodPost, "/api/v1/scenarios", "APIScenarioBody", map[string]any{"name": "Fuzz", "request": map[string]any{"locale": "en-US"}}},
		{http.MethodPut, "/api/v1/scenarios/fuzz-put", "APIScenarioBody", map[string]any{"name": "Fuzz", "request": map[string]any{"locale": "en-US"}}},
		{http.MethodPost, "/api/v1/scenarios/fuzz-put/accept", "APIAcceptBody", map[string]any{}},
		{http.MethodPost, "/api/v1/webhooks", "APIWebhookBody", map[string]any{"url": "http://127.0.0.1:9/hook"}},
		{http.MethodPut, "/api/v1/webhooks/1", "APIWebhookBody", map[string]any{"url": "http://127.0.0.1:9/hook"}},
	}
	for _, b := range bodies {
		var props jsonObject
		if b.schema != "" {
			props = obj(t, schemas, b.schema, "properties")
		} else {
			props = obj(t, paths, "/api/v1/overrides/{id}", "put", "requestBody", "content", "application/json", "schema", "properties")
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if b.method == http.MethodPut && b.schema == "APIScenarioBody" && k == "id" {
				continue // must equal the path's id, which no schema can say
			}
			for _, v := range edgeValues(t, doc, props[k].(jsonObject), rng) {
				body := map[string]any{}
				for bk, bv := range b.base {
					body[bk] = bv
				}
				body[k] = v
				if b.schema == "APIScenarioBody" && b.method == http.MethodPost && k != "id" {
					body["id"] = fmt.Sprintf("fuzz-%d", len(probes))
				}
				data, _ := json.Marshal(body)
				probes = append(probes, probe{method: b.method, target: b.target, body: string(data), contentType: "application/json"})
			}
		}
		// The valid body under media types the document does not declare.
		data, _ := json.Marshal(b.base)
		for _, ct := range []string{"", "application/x-www-form-urlencoded", "application/vnd.fuzz+json", "text/xml", "application/json; charset=latin1"} {
			probes = append(probes, probe{b.method, b.target, string(data), ct, true})
		}
	}
	// A body sent to each POST, PUT and DELETE that takes none.
	for _, path := range names {
		for _, method := range []string{"post", "put", "delete"} {
			op, ok := paths[path].(jsonObject)[method].(jsonObject)
			if _, body := op["requestBody"]; !ok || body {
				continue
			}
			target := strings.NewReplacer("{id}", "1", "{n}", "1", "{delivery}", "1").Replace(path)
			if strings.HasPrefix(path, "/api/v1/overrides/") {
				target = strings.NewReplacer("{id}", "base.identity", "{n}", "1").Replace(path) + "?locale=en-US"
			}
			probes = append(probes, probe{strings.ToUpper(method), target, `{"note": "fuzz"}`, "application/json", true})
		}
	}
	t.Logf("%d probes", len(probes))
	if len(probes) < 100 || len(probes) > 600 {
		t.Fatalf("%d probes, want a few hundred", len(probes))
	}
	for _, p := range probes {
		req := authorize(httptest.NewRequest(p.method, p.target, strings.NewReader(p.body)), token)
		if p.contentType != "" {
			req.Header.Set("Content-Type", p.contentType)
		}
		pb, kin := apitest.Refusals(req, []byte(p.body))
		what := p.method + " " + p.target + " " + p.contentType + " " + p.body
		if p.media {
			if kin == "" && !strings.Contains(p.contentType, "charset") {
				t.Errorf("%.300s: the document allows a body it does not declare", what)
			}
			if rec := serveAPI(h, p.method, p.target, "", token); rec.Code >= 500 {
				t.Errorf("%.300s: %d without the body", what, rec.Code)
			}
			req = authorize(httptest.NewRequest(p.method, p.target, strings.NewReader(p.body)), token)
			if p.contentType != "" {
				req.Header.Set("Content-Type", p.contentType)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusUnsupportedMediaType {
				t.Errorf("%.300s: %d %.300s, want 415", what, rec.Code, rec.Body.String())
			}
			continue
		}
		if (pb == "") != (kin == "") {
			t.Errorf("%.300s: the validators disagree: pb33f:%s\nkin-openapi:%s", what, pb, kin)
			continue
		}
		allowed := pb == ""
		req = authorize(httptest.NewRequest(p.method, p.target, strings.NewReader(p.body)), token)
		if p.contentType != "" {
			req.Header.Set("Content-Type", p.contentType)
		}
		rec := httptest.NewRecorder()
		validated(h).ServeHTTP(rec, req)
		switch {
		case rec.Code >= 500:
			t.Errorf("%.300s: %d %.300s", what, rec.Code, rec.Body.String())
		case !allowed && rec.Code < 400:
			t.Errorf("%.300s: forbidden by the document, answered %d", what, rec.Code)
		case allowed && rec.Code >= 400 && !stateful(rec):
			t.Errorf("%.300s: allowed by the document, answered %d %.300s", what, rec.Code, rec.Body.String())
		}
	}
}

// stateful reports whether a 4xx answer to an allowed request depends on
// state or meaning the schema cannot hold (see TestSchemaDrivenFuzz).
func stateful(rec *httptest.ResponseRecorder) bool {
	switch rec.Code {
	case http.StatusNotFound, http.StatusConflict, http.StatusPreconditionFailed, http.StatusPreconditionRequired:
		return true
	case http.StatusUnprocessableEntity:
		var e apiErrorBody
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		return e.Error.Code != "invalid_request" || strings.Contains(e.Error.Message, "does not exist") ||
			slices.Contains([]string{"locale", "timeZone", "cursor", "url", "profile", "module", "text"}, e.Error.Field)
	}
	return false
}

// edgeValues are values on each side of the edges of schema s: for an
// integer its bounds and one past each, for a string its length bounds
// and pattern (a pattern is probed with a random printable string and a
// control character), every enum value and one outside, and a value of
// the wrong type.
func edgeValues(t *testing.T, doc, s jsonObject, rng *rand.Rand) []any {
	s = resolve(t, doc, s)
	var out []any
	if e, ok := s["enum"].([]any); ok {
		return append(append(out, e...), "not-in-the-enum", 7)
	}
	switch s["type"] {
	case "integer":
		lo, hasLo := s["minimum"].(float64)
		hi, hasHi := s["maximum"].(float64)
		if hasLo {
			out = append(out, int64(lo), int64(lo)-1)
		}
		if hasHi && hi < 1<<53 {
			out = append(out, int64(hi), int64(hi)+1)
		}
		return append(out, 1.0, "x")
	case "string":
		out = append(out, "", "a", "ok-1", randomText(rng, 8), "tab\there", "nul\x00", " spaced ")
		if n, ok := s["maxLength"].(float64); ok && n < 5000 {
			out = append(out, strings.Repeat("a", int(n)), strings.Repeat("a", int(n)+1))
		}
		if n, ok := s["minLength"].(float64); ok && n > 1 {
			out = append(out, strings.Repeat("a", int(n)-1))
		}
		return append(out, 5)
	case "boolean":
		return []any{true, false, "true"}
	}
	return []any{"not-a-" + fmt.Sprint(s["type"])}
}

// randomText is n printable characters, ASCII and beyond.
func randomText(rng *rand.Rand, n int) string {
	const pool = "abcXYZ019 -_.\u00e9\u4e00"
	r := []rune(pool)
	var b strings.Builder
	for range n {
		b.WriteRune(r[rng.IntN(len(r))])
	}
	return b.String()
}

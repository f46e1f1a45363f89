package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
)

// enRequest is an assemble request that reads base.identity in en-US.
const enRequest = `{"locale": "en-US", "message": "Please translate this note", "model": "gpt-4o", "now": "2026-11-29T15:45:00Z"}`

func TestAPIScenariosCRUD(t *testing.T) {
	t.Parallel()
	a := setup(t)
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatal(err)
	}
	list := decode[[]handlers.APIScenario](t, a.api(http.MethodGet, "/api/v1/scenarios", ""))
	if len(list) != len(examples) || list[0].ID != examples[0].ID || !list[0].Example || list[0].Accepted != nil || list[0].Request == nil {
		t.Fatalf("list = %+v, want the %d seeded examples, never accepted", list, len(examples))
	}

	// Create: the id from the name, now kept, 201 with Location.
	rec := a.api(http.MethodPost, "/api/v1/scenarios", `{"name": "Translate a note", "description": "en", "request": `+enRequest+`}`)
	if rec.Code != http.StatusCreated || rec.Header().Get("Location") != "/api/v1/scenarios/translate-a-note" {
		t.Fatalf("create: %d %s, Location %q", rec.Code, rec.Body.String(), rec.Header().Get("Location"))
	}
	var created handlers.APIScenario
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil {
		t.Fatal(err)
	}
	if created.ID != "translate-a-note" || created.Name != "Translate a note" || created.Example || created.Accepted != nil ||
		!strings.Contains(string(created.Request), `"now":"2026-11-29T15:45:00Z"`) {
		t.Errorf("created = %+v (request %s)", created, created.Request)
	}
	// The same body again (a retry) is the scenario saved: 200, nothing new.
	again := a.api(http.MethodPost, "/api/v1/scenarios", `{"name": "Translate a note", "description": "en", "request": `+enRequest+`}`)
	if again.Code != http.StatusOK || again.Header().Get("Location") != "/api/v1/scenarios/translate-a-note" {
		t.Errorf("create again: %d %s, Location %q; want 200 with the scenario saved", again.Code, again.Body.String(), again.Header().Get("Location"))
	}
	// A request without now gets the server's clock; with accept, the
	// output is accepted by the token.
	rec = a.api(http.MethodPost, "/api/v1/scenarios", `{"id": "clockless", "name": "Clockless", "request": {"locale": "en-US"}, "accept": true}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create clockless: %d %s", rec.Code, rec.Body.String())
	}
	var clockless handlers.APIScenario
	json.Unmarshal(rec.Body.Bytes(), &clockless)
	// The JSON answer is compact; the key order is the one saved.
	if string(clockless.Request) != `{"locale":"en-US","now":"2026-11-29T15:45:00Z"}` {
		t.Errorf("request %s, want now pinned to the server clock", clockless.Request)
	}
	if clockless.Accepted == nil || clockless.Accepted.By != "token:"+testToken || clockless.Accepted.Tokens == 0 || clockless.Accepted.Text == "" {
		t.Errorf("accepted = %+v, want accepted by the token", clockless.Accepted)
	}

	wantError(t, "taken id", a.api(http.MethodPost, "/api/v1/scenarios", `{"id": "clockless", "name": "x", "request": {}}`), http.StatusConflict, "conflict", "id", "clockless")
	wantError(t, "no name", a.api(http.MethodPost, "/api/v1/scenarios", `{"request": {}}`), http.StatusUnprocessableEntity, "invalid_request", "name", "required")
	wantError(t, "no request", a.api(http.MethodPost, "/api/v1/scenarios", `{"name": "x"}`), http.StatusUnprocessableEntity, "invalid_request", "request", "required")
	wantError(t, "bad request field", a.api(http.MethodPost, "/api/v1/scenarios", `{"name": "x", "request": {"knowledgeBases": [{"id": "k", "name": "K", "type": "wiki"}]}}`),
		http.StatusUnprocessableEntity, "invalid_request", "request.knowledgeBases[0].type")
	wantError(t, "unknown body field", a.api(http.MethodPost, "/api/v1/scenarios", `{"name": "x", "request": {}, "colour": 1}`), http.StatusUnprocessableEntity, "invalid_request", "colour")
	wantError(t, "malformed", a.api(http.MethodPost, "/api/v1/scenarios", `{"name": `), http.StatusBadRequest, "invalid_json", "")
	wantError(t, "bad id", a.api(http.MethodPost, "/api/v1/scenarios", `{"id": "Not OK", "name": "x", "request": {}}`), http.StatusUnprocessableEntity, "invalid_request", "id", `begins with 'N'`)
	wantError(t, "long id", a.api(http.MethodPost, "/api/v1/scenarios", `{"id": "`+strings.Repeat("s", 65)+`", "name": "x", "request": {}}`), http.StatusUnprocessableEntity, "invalid_request", "id", "at most 64 characters")

	got := decode[handlers.APIScenario](t, a.api(http.MethodGet, "/api/v1/scenarios/clockless", ""))
	if got.ID != "clockless" || got.Accepted == nil || got.UpdatedAt.IsZero() {
		t.Errorf("GET = %+v", got)
	}
	wantError(t, "GET unknown", a.api(http.MethodGet, "/api/v1/scenarios/nope", ""), http.StatusNotFound, "not_found", "id", "nope")

	// PUT replaces name and request and keeps the accepted output.
	put := decode[handlers.APIScenario](t, a.api(http.MethodPut, "/api/v1/scenarios/clockless", `{"name": "Clockless 2", "request": {"locale": "zh-CN"}}`))
	if put.Name != "Clockless 2" || !strings.Contains(string(put.Request), `"zh-CN"`) || put.Accepted == nil || put.Accepted.Text != clockless.Accepted.Text {
		t.Errorf("PUT = %+v", put)
	}
	run := decode[handlers.APIScenarioRun](t, a.api(http.MethodPost, "/api/v1/scenarios/clockless/run", ""))
	if run.Status != "changed" || !run.Changed || len(run.Diff) == 0 {
		t.Errorf("run after the request changed: %s changed=%v, %d diff lines", run.Status, run.Changed, len(run.Diff))
	}
	wantError(t, "PUT other id", a.api(http.MethodPut, "/api/v1/scenarios/clockless", `{"id": "other", "name": "x", "request": {}}`), http.StatusUnprocessableEntity, "invalid_request", "id")
	wantError(t, "PUT unknown", a.api(http.MethodPut, "/api/v1/scenarios/nope", `{"name": "x", "request": {}}`), http.StatusNotFound, "not_found", "id")
	put = decode[handlers.APIScenario](t, a.api(http.MethodPut, "/api/v1/scenarios/clockless", `{"name": "Clockless 2", "request": {"locale": "zh-CN"}, "accept": true}`))
	if put.Accepted == nil || put.Accepted.Text == clockless.Accepted.Text {
		t.Errorf("PUT with accept kept the old output")
	}

	if rec := a.api(http.MethodDelete, "/api/v1/scenarios/clockless", ""); rec.Code != http.StatusNoContent {
		t.Errorf("DELETE: %d %s", rec.Code, rec.Body.String())
	}
	wantError(t, "DELETE again", a.api(http.MethodDelete, "/api/v1/scenarios/clockless", ""), http.StatusNotFound, "not_found", "id",
		"scenario clockless was already deleted (by "+handlers.TokenActor(testToken)+", ")
	wantError(t, "DELETE never saved", a.api(http.MethodDelete, "/api/v1/scenarios/never-saved", ""), http.StatusNotFound, "not_found", "id", `no scenario "never-saved"`)
	wantError(t, "PATCH", a.api(http.MethodPatch, "/api/v1/scenarios/translate-a-note", "{}"), http.StatusMethodNotAllowed, "method_not_allowed", "")

	// Every change is in the audit log under the token.
	entries, err := a.store.ListAudit(context.Background(), domain.AuditFilter{Subject: domain.SubjectScenario, SubjectID: "clockless"})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
		if e.Actor != "token:"+testToken {
			t.Errorf("audit %s by %q", e.Action, e.Actor)
		}
	}
	if want := "delete accept update update accept create"; strings.Join(actions, " ") != want {
		t.Errorf("audit actions %v, want %s", actions, want)
	}
}

func TestAPIScenarioRunAndAccept(t *testing.T) {
	t.Parallel()
	a := setup(t)
	if rec := a.api(http.MethodPost, "/api/v1/scenarios", `{"id": "en", "name": "English", "request": `+enRequest+`}`); rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body.String())
	}
	run := decode[handlers.APIScenarioRun](t, a.api(http.MethodPost, "/api/v1/scenarios/en/run", ""))
	// The output is what POST /api/v1/assemble answers.
	res := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", enRequest))
	if run.Status != "never-accepted" || run.Changed || run.Output == nil || run.Output.Text != res.Text || run.Output.Tokens != res.Tokens ||
		len(run.Output.Report) != len(res.Report)-1 || run.Output.Report[0] != res.Report[1].Line || run.Accepted != nil || len(run.Fingerprint) != 64 {
		t.Fatalf("first run = %+v", run)
	}
	if run.Diff == nil || run.ReportDiff == nil || len(run.Diff) != 0 {
		t.Errorf("diffs %v %v, want empty lists", run.Diff, run.ReportDiff)
	}
	if raw := a.api(http.MethodPost, "/api/v1/scenarios/en/run", "").Body.String(); !strings.Contains(raw, `"diff":[]`) {
		t.Errorf("the diff is not an empty JSON list: %.300s", raw)
	}

	accepted := decode[handlers.APIScenario](t, a.api(http.MethodPost, "/api/v1/scenarios/en/accept", `{"fingerprint": "`+run.Fingerprint+`"}`))
	if accepted.Accepted == nil || accepted.Accepted.Text != res.Text || accepted.Accepted.By != "token:"+testToken {
		t.Fatalf("accepted = %+v", accepted.Accepted)
	}
	if run = decode[handlers.APIScenarioRun](t, a.api(http.MethodPost, "/api/v1/scenarios/en/run", "")); run.Status != "unchanged" || run.Accepted == nil {
		t.Errorf("after accept: %+v", run)
	}
	stale := run.Fingerprint

	// A published override changes the output: the run says how.
	const line = "You are the assistant of the scenario API test."
	a.saveOverride("base.identity", "en-US", identityText(t, a, line), 0)
	run = decode[handlers.APIScenarioRun](t, a.api(http.MethodPost, "/api/v1/scenarios/en/run", ""))
	if run.Status != "changed" || !run.Changed || run.Output == nil || !strings.Contains(run.Output.Text, line) {
		t.Fatalf("after the override: %+v", run)
	}
	var inserted, folded bool
	for _, l := range run.Diff {
		inserted = inserted || l.Op == "insert" && l.Text == line && l.New > 0 && l.Old == 0
		folded = folded || l.Op == "folded" && l.Count > 0
	}
	if !inserted || !folded {
		t.Errorf("diff %+v lacks the inserted line or a fold", run.Diff)
	}
	var reportIns bool
	for _, l := range run.ReportDiff {
		reportIns = reportIns || l.Op == "insert" && l.Text == "prompt(base.identity v1 · default · override r1)"
	}
	if !reportIns {
		t.Errorf("report diff %+v", run.ReportDiff)
	}

	wantError(t, "accept a stale fingerprint", a.api(http.MethodPost, "/api/v1/scenarios/en/accept", `{"fingerprint": "`+stale+`"}`), http.StatusConflict, "conflict", "fingerprint")
	for _, bad := range []string{"x", strings.ToUpper(run.Fingerprint), run.Fingerprint[:63]} {
		wantError(t, "accept with a malformed fingerprint", a.api(http.MethodPost, "/api/v1/scenarios/en/accept", `{"fingerprint": "`+bad+`"}`),
			http.StatusUnprocessableEntity, "invalid_request", "fingerprint", "64 lowercase hex digits")
	}
	wantError(t, "accept with an unknown field", a.api(http.MethodPost, "/api/v1/scenarios/en/accept", `{"finger": "x"}`), http.StatusUnprocessableEntity, "invalid_request", "finger")
	// Without a body, the output as served now.
	if got := decode[handlers.APIScenario](t, a.api(http.MethodPost, "/api/v1/scenarios/en/accept", "")); got.Accepted == nil || !strings.Contains(got.Accepted.Text, line) {
		t.Errorf("accept without a body: %+v", got.Accepted)
	}

	// A request naming a missing profile fails to run (200, status
	// failed) and cannot be accepted.
	if rec := a.api(http.MethodPost, "/api/v1/scenarios", `{"id": "ghost", "name": "Ghost", "request": {"profile": "ghost"}, "accept": true}`); rec.Code != http.StatusCreated || strings.Contains(rec.Body.String(), `"accepted"`) {
		t.Fatalf("create ghost: %d %s", rec.Code, rec.Body.String())
	}
	run = decode[handlers.APIScenarioRun](t, a.api(http.MethodPost, "/api/v1/scenarios/ghost/run", ""))
	if run.Status != "failed" || run.Output != nil || run.Error == nil || run.Error.Code != "not_found" || !strings.Contains(run.Error.Message, "ghost") {
		t.Errorf("failed run = %+v (error %+v)", run, run.Error)
	}
	wantError(t, "accept a failing scenario", a.api(http.MethodPost, "/api/v1/scenarios/ghost/accept", ""), http.StatusUnprocessableEntity, "invalid_request", "request.profile", "does not assemble")
	wantError(t, "run unknown", a.api(http.MethodPost, "/api/v1/scenarios/nope/run", ""), http.StatusNotFound, "not_found", "id")
}

// A control character in a request field the prompt writes as it is (a
// NUL in the command) is refused when the scenario is saved, naming the
// field, so a saved scenario always runs and accepts.
func TestAPIScenarioRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	a := setup(t)
	for _, c := range []struct{ what, body, field string }{
		{"NUL in command", `{"id":"nul","name":"x","request":{"locale":"en-US","command":"/minutes\u0000"}}`, "request.command"},
		{"line break in command", `{"id":"nl","name":"x","request":{"locale":"en-US","command":"/min\nutes"}}`, "request.command"},
		{"NUL in the message", `{"id":"msg","name":"x","request":{"locale":"en-US","message":"a\u0000b"}}`, "request.message"},
		{"NUL in a variable", `{"id":"var","name":"x","request":{"variables":{"topic":"\u0000"}}}`, "request.variables.topic"},
	} {
		wantError(t, c.what, a.api(http.MethodPost, "/api/v1/scenarios", c.body), http.StatusUnprocessableEntity, "invalid_request", c.field)
	}
	// One saved before the rule (written to the store directly) is
	// refused at accept on field request, never on no field.
	if _, err := a.store.CreateScenario(context.Background(), domain.Scenario{ID: "old", Name: "Old",
		Request: json.RawMessage(`{"locale":"en-US","command":"/minutes\u0000","now":"2026-11-29T15:45:00Z"}`)}); err != nil {
		t.Fatal(err)
	}
	wantError(t, "accept of a stored NUL command", a.api(http.MethodPost, "/api/v1/scenarios/old/accept", ""), http.StatusUnprocessableEntity, "invalid_request", "request.command", "U+0000")
	// The assemble request itself holds a command to one line too.
	wantError(t, "assemble with a NUL command", a.api(http.MethodPost, "/api/v1/assemble", `{"command":"/a\u0000"}`), http.StatusUnprocessableEntity, "invalid_request", "command", "U+0000")
}

package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/views/overridepage"
)

const (
	minutesCheck = "/modules/task.doc-minutes/override/en-US/check"
	impactPath   = "/modules/task.doc-minutes/override/en-US/impact"
)

// liveCheck posts body to the live check at path as the editor's script
// does (JSON, the CSRF token in X-CSRF-Token when withToken).
func (a *app) liveCheck(path, body string, withToken bool) *httptest.ResponseRecorder {
	a.t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if !strings.HasPrefix(body, "{") {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", "application/json")
	if withToken {
		req.Header.Set("X-CSRF-Token", a.csrf)
	}
	return a.send(req)
}

func checkBody(t *testing.T, text string) string {
	t.Helper()
	b, err := json.Marshal(handlers.CheckRequest{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decodeCheck(t *testing.T, rec *httptest.ResponseRecorder) handlers.CheckResponse {
	t.Helper()
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("status %d (%s), want 200 JSON: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	var out handlers.CheckResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The live check answers every error of the text at once, each with its
// line and field, stores nothing, and returns the declared variables.
func TestLiveCheckReportsEveryErrorWithItsLine(t *testing.T) {
	t.Parallel()
	a := setup(t)
	text := builtinText(t, a.lib, "task.doc-minutes", "en-US").Text
	text = strings.Replace(text, "version: 1\n", "version: 1.10\n", 1)
	text = strings.Replace(text, "priority: 70\n", "priority: 70\ncolour: red\nvariables: [topic, {name: x, escape: xml}]\n", 1)
	text = strings.Replace(text, "- kind: command\n", "- kind: regex\n", 1)
	text += "About {{topic}} and {{nope}}.\n"
	last := strings.Count(text, "\n")

	out := decodeCheck(t, a.liveCheck(minutesCheck, checkBody(t, text), true))
	var got []string
	for _, e := range out.Errors {
		got = append(got, fmt.Sprintf("%d %s", e.Line, e.Field))
	}
	want := []string{"4 version", "8 colour", "26 triggers[1].kind", fmt.Sprintf("%d body", last)}
	if out.Valid || out.Checklist || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("valid %v, checklist %v, errors at %v, want %v:\n%+v", out.Valid, out.Checklist, got, want, out.Errors)
	}
	if !strings.Contains(out.Errors[0].Message, `got "1.10"`) || !strings.Contains(out.Errors[2].Message, `unknown trigger kind "regex"`) ||
		!strings.Contains(out.Errors[3].Message, "unknown placeholder {{nope}}") {
		t.Errorf("messages %+v", out.Errors)
	}
	if len(out.Variables) != 2 || out.Variables[0].Name != "topic" || out.Variables[1].Detail != "variable, escape xml" {
		t.Errorf("variables %+v, want topic and x", out.Variables)
	}
	if len(a.overrides()) != 0 {
		t.Error("the live check stored an override")
	}

	// A text whose fields parse: the checklist runs beside the errors.
	text = builtinText(t, a.lib, "task.doc-minutes", "en-US").Text
	text = strings.Replace(text, "You are the minutes writer for this workspace: you turn", "Turn {{nope}} and", 1)
	out = decodeCheck(t, a.liveCheck(minutesCheck, checkBody(t, text), true))
	if len(out.Errors) != 1 || out.Errors[0].Line != 27 || !out.Checklist || len(out.Warnings) == 0 || out.Warnings[0].Rule != "rule 1" || out.Warnings[0].Line != 27 {
		t.Errorf("errors %+v, checklist %v, warnings %+v", out.Errors, out.Checklist, out.Warnings)
	}

	// The builtin text: valid, nothing to report, lists empty not null.
	rec := a.liveCheck(minutesCheck, checkBody(t, builtinText(t, a.lib, "task.doc-minutes", "en-US").Text), true)
	if out = decodeCheck(t, rec); !out.Valid || !out.Checklist || len(out.Errors)+len(out.Warnings) != 0 {
		t.Errorf("the builtin text: %+v", out)
	}
	if body := rec.Body.String(); !strings.Contains(body, `"errors":[]`) || !strings.Contains(body, `"variables":[]`) {
		t.Errorf("empty lists are not [] in %s", body)
	}
}

// The live check is an editor's POST like any other: it needs the CSRF
// header and the editor role, a JSON body, a module that exists and a
// well-formed locale; its refusals are JSON too.
func TestLiveCheckRefusals(t *testing.T) {
	t.Parallel()
	a := setup(t)
	body := checkBody(t, "---\n---\n")
	newUser(t, a.store, "vera", domain.RoleViewer)
	huge := `{"text": "` + strings.Repeat("a", 9<<20) + `"}`
	for _, c := range []struct {
		what   string
		client *app
		path   string
		body   string
		token  bool
		status int
		code   string
	}{
		{"without the CSRF header", a, minutesCheck, body, false, http.StatusForbidden, "forbidden"},
		{"as a viewer", a.as("vera"), minutesCheck, body, true, http.StatusForbidden, "forbidden"},
		{"without a session", a.anonymous(), minutesCheck, body, true, http.StatusUnauthorized, "unauthorized"},
		{"a body over 8 MiB", a, minutesCheck, huge, true, http.StatusRequestEntityTooLarge, "request_entity_too_large"},
		{"impact without the CSRF header", a, impactPath, "text=x", false, http.StatusForbidden, "forbidden"},
		{"impact of an unknown module", a, "/modules/task.nope/override/en-US/impact", "text=x", true, http.StatusNotFound, "not_found"},
		{"impact without a session", a.anonymous(), impactPath, "text=x", true, http.StatusUnauthorized, "unauthorized"},
	} {
		rec := c.client.liveCheck(c.path, c.body, c.token)
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || rec.Code != c.status || e.Error.Code != c.code || e.Error.Message == "" ||
			!strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s %.200s, want %d JSON %s", c.what, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String(), c.status, c.code)
		}
	}
	for _, c := range []struct {
		path, body string
		status     int
		code       string
	}{
		{minutesCheck, `text=abc`, http.StatusBadRequest, "invalid_json"},
		{minutesCheck, `{"text": 3}`, http.StatusBadRequest, "invalid_json"},
		{minutesCheck, `{"txt": "a"}`, http.StatusBadRequest, "invalid_json"},
		{"/modules/task.nope/override/en-US/check", body, http.StatusNotFound, "not_found"},
		{"/modules/task.doc-minutes/override/en_US!/check", body, http.StatusUnprocessableEntity, "invalid_request"},
	} {
		rec := a.liveCheck(c.path, c.body, true)
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || rec.Code != c.status || e.Error.Code != c.code || e.Error.Message == "" {
			t.Errorf("%s %s: %d %s, want %d %s", c.path, c.body, rec.Code, rec.Body.String(), c.status, c.code)
		}
	}
}

// editorConfig reads the script editor's data from an editor page.
func editorConfig(t *testing.T, r response) overridepage.Assist {
	t.Helper()
	raw := r.doc.Find(`#editor-config[hidden]`).AttrOr("data-config", "")
	var cfg overridepage.Assist
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		t.Fatalf("editor config %q: %v", raw, err)
	}
	return cfg
}

// The editor page carries what completion and the live diff need, and,
// for the page without script, the text's diff against the builtin and
// the problems beside the textarea.
func TestEditorPageData(t *testing.T) {
	t.Parallel()
	a := setup(t)
	const editor = "/modules/task.doc-minutes/override/en-US"
	builtin := builtinText(t, a.lib, "task.doc-minutes", "en-US").Text

	r := a.get(editor).want(t, http.StatusOK)
	cfg := editorConfig(t, r)
	if cfg.Check != editor+"/check" || cfg.ID != "task.doc-minutes" || cfg.Layer != "task" {
		t.Errorf("check %q, id %q, layer %q", cfg.Check, cfg.ID, cfg.Layer)
	}
	names := func(cs []overridepage.Completion) string {
		var out []string
		for _, c := range cs {
			n := c.Name
			if c.EnvOnly {
				n += "(env)"
			}
			if c.TaskOnly {
				n += "(task)"
			}
			out = append(out, n)
		}
		return "," + strings.Join(out, ",") + ","
	}
	if env := names(cfg.Env); !strings.Contains(env, ",date(env),") || !strings.Contains(env, ",knowledge_bases,") {
		t.Errorf("env %s", env)
	}
	if mods := names(cfg.Modules); !strings.Contains(mods, ",aux.title-gen,") || strings.Contains(mods, ",task.doc-minutes,") {
		t.Errorf("modules %s: want every module but this one", mods)
	}
	if keys, kinds := names(cfg.Keys), names(cfg.TriggerKinds); !strings.Contains(keys, ",triggers(task),") || kinds != ",intent,command,attachment,manual," {
		t.Errorf("keys %s, trigger kinds %s", keys, kinds)
	}
	if len(cfg.Against) != 2 || cfg.DefaultAgainst != "builtin" || cfg.Against[0].Text != builtin || cfg.Against[1].Text != builtin ||
		cfg.Against[1].Label != "the served text: the builtin en-US text (version 1)" {
		t.Errorf("against %+v (default %q)", cfg.Against, cfg.DefaultAgainst)
	}
	if got := r.find("builtin-diff-count").Text(); got != "+0 −0" || r.find("builtin-diff").AttrOr("open", "none") != "none" {
		t.Errorf("the builtin's own text shows a diff %q", got)
	}

	// A published override serves: the diff against it and against the
	// builtin differ; the page without script shows the text's diff.
	mine := strings.Replace(builtin, "Never write minutes for a meeting you have not seen.", "Never write minutes for a meeting you have not seen, and say so.", 1)
	a.saveOverride("task.doc-minutes", "en-US", mine, 0)
	r = a.get(editor).want(t, http.StatusOK)
	cfg = editorConfig(t, r)
	if len(cfg.Against) != 2 || cfg.Against[0].Text != builtin || cfg.Against[1].Text != mine ||
		cfg.Against[1].Label != "the served text: the published override en-US, revision 1" {
		t.Errorf("against %s: %q, %s: %q", cfg.Against[0].Key, cfg.Against[0].Label, cfg.Against[1].Key, cfg.Against[1].Label)
	}
	if got := r.find("builtin-diff-count").Text(); got != "+1 −1" || r.find("builtin-diff").AttrOr("open", "none") == "none" {
		t.Errorf("diff count %q", got)
	}
	if ins := r.find("builtin-diff-lines").Find(`[data-kind="insert"] .dt`).Text(); !strings.Contains(ins, "and say so.") {
		t.Errorf("inserted line %q", ins)
	}

	// Check without saving lists every error beside the text too.
	bad := strings.Replace(mine, "version: 1\n", "version: one\n", 1) + "{{nope}}\n"
	r = a.post(editor, url.Values{"text": {bad}, "revision": {"1"}, "check": {"1"}}).want(t, http.StatusUnprocessableEntity)
	var lines []string
	r.find("problem").Each(func(_ int, s *goquery.Selection) {
		lines = append(lines, s.AttrOr("data-line", "")+" "+s.AttrOr("data-severity", ""))
	})
	want := []string{"4 error", fmt.Sprintf("%d error", strings.Count(bad, "\n"))}
	if strings.Join(lines, ",") != strings.Join(want, ",") || r.find("line-error").Length() != 2 {
		t.Errorf("problems %v, want %v; %d errors under lines", lines, want, r.find("line-error").Length())
	}
	if got := r.find("problems-status").Text(); got != "2 errors, 0 checklist warnings in the text as last checked." {
		t.Errorf("status %q", got)
	}
}

// Brace text that is no placeholder ("{{ name }}", an unclosed "{{",
// "{{#each}}") is a checklist warning marked on its line in the live
// check; the text stays valid.
func TestLiveCheckWarnsOfBraceText(t *testing.T) {
	t.Parallel()
	a := setup(t)
	text := builtinText(t, a.lib, "task.doc-minutes", "en-US").Text
	text = strings.Replace(text, "## Source\n", "## Source\nAsk {{ user }} first.\n{{#each files}}\nQuote {{note\n", 1)
	out := decodeCheck(t, a.liveCheck(minutesCheck, checkBody(t, text), true))
	var got []string
	for _, w := range out.Warnings {
		got = append(got, fmt.Sprintf("%d %s %s", w.Line, w.Rule, w.Message[:strings.Index(w.Message, " ")]))
	}
	want := []string{"30 placeholder {{", "31 placeholder {{#each", "32 placeholder {{note:"}
	if !out.Valid || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("valid %v, warnings %v, want %v", out.Valid, got, want)
	}
}

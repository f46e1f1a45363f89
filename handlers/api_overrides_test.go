package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
)

const identityURL = "/api/v1/overrides/base.identity?locale=en-US"

// putText PUTs text as text/plain with If-Match ifMatch ("" for none).
func (a *app) putText(target, text, ifMatch string) *httptest.ResponseRecorder {
	a.t.Helper()
	return a.api(http.MethodPut, target, text, "Content-Type", "text/plain; charset=utf-8", "If-Match", ifMatch)
}

// overrideTag is the override GET's ETag: "<revision>-<hash>".
var overrideTag = regexp.MustCompile(`^"[0-9]+-[A-Za-z0-9_-]{12}"$`)

// The override GET's ETag changes with its body, not only its revision:
// a publish changes the status and keeps the revision; the tag is taken
// as If-Match (its revision is compared).
func TestAPIOverrideETagFollowsTheBody(t *testing.T) {
	t.Parallel()
	a := setup(t)
	builtinTag := a.api(http.MethodGet, identityURL, "").Header().Get("ETag")
	wantSaved(t, "create", a.putText(identityURL, identityText(t, a, "You are the tagged assistant."), ""), true, 1, "draft", "revision 1")
	draft := a.api(http.MethodGet, identityURL, "")
	draftTag := draft.Header().Get("ETag")
	if rec := a.api(http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=en-US", "", "If-Match", draftTag); rec.Code != http.StatusOK {
		t.Fatalf("publish with the GET's tag: %d %s", rec.Code, rec.Body.String())
	}
	published := a.api(http.MethodGet, identityURL, "")
	pubTag := published.Header().Get("ETag")
	if !strings.HasPrefix(draftTag, `"1-`) || !strings.HasPrefix(pubTag, `"1-`) || draftTag == pubTag || builtinTag == draftTag || !strings.HasPrefix(builtinTag, `"0-`) {
		t.Errorf("tags: builtin %s, draft %s, published %s; want revision 0, 1, 1 and three different tags", builtinTag, draftTag, pubTag)
	}
	if again := a.api(http.MethodGet, identityURL, "").Header().Get("ETag"); again != pubTag {
		t.Errorf("the same body twice: %s then %s", pubTag, again)
	}
	wantError(t, "a tag of another revision", a.api(http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=en-US", "", "If-Match", `"2-`+pubTag[3:]), http.StatusPreconditionFailed, "precondition_failed", "If-Match")
}

func wantOverride(t *testing.T, what string, rec *httptest.ResponseRecorder, want handlers.APIOverride) {
	t.Helper()
	got := decode[handlers.APIOverride](t, rec)
	if got != want {
		t.Errorf("%s = %+v\nwant %+v", what, got, want)
	}
	if etag := rec.Header().Get("ETag"); !overrideTag.MatchString(etag) || !strings.HasPrefix(etag, `"`+itoa(want.Revision)+"-") {
		t.Errorf("%s: ETag %s, want \"%d-<hash>\"", what, etag, want.Revision)
	}
}

func wantSaved(t *testing.T, what string, rec *httptest.ResponseRecorder, stored bool, revision int, status string, words ...string) handlers.APIOverrideSaved {
	t.Helper()
	got := decode[handlers.APIOverrideSaved](t, rec)
	if got.Stored != stored || got.Revision != revision || got.Status != status {
		t.Errorf("%s = stored %v revision %d status %s, want %v %d %s", what, got.Stored, got.Revision, got.Status, stored, revision, status)
	}
	for _, w := range words {
		if !strings.Contains(got.Message, w) {
			t.Errorf("%s: message %q does not say %q", what, got.Message, w)
		}
	}
	return got
}

func TestAPIOverrideGet(t *testing.T) {
	t.Parallel()
	a := setup(t)
	en := builtinText(t, a.lib, "base.identity", "en-US")
	zh := builtinText(t, a.lib, "base.identity", "zh-CN")

	wantOverride(t, "no override", a.api(http.MethodGet, identityURL, ""), handlers.APIOverride{Text: en.Text, Revision: 0, Status: "builtin", Kind: "builtin"})
	wantOverride(t, "zh-cn", a.api(http.MethodGet, "/api/v1/overrides/base.identity?locale=zh-cn", ""), handlers.APIOverride{Text: zh.Text, Status: "builtin", Kind: "builtin"})
	// No builtin ja-JP: the text an override would start from.
	wantOverride(t, "ja-JP", a.api(http.MethodGet, "/api/v1/overrides/base.identity?locale=ja-JP", ""), handlers.APIOverride{Text: en.Text, Status: "builtin", Kind: "builtin"})
	// No locale: the fallback locale.
	wantOverride(t, "no locale", a.api(http.MethodGet, "/api/v1/overrides/base.identity", ""), handlers.APIOverride{Text: en.Text, Status: "builtin", Kind: "builtin"})

	wantError(t, "unknown id", a.api(http.MethodGet, "/api/v1/overrides/base.nobody", ""), http.StatusNotFound, "not_found", "id", "base.nobody")
	wantError(t, "bad locale", a.api(http.MethodGet, "/api/v1/overrides/base.identity?locale=not_a_locale!", ""), http.StatusUnprocessableEntity, "invalid_request", "locale")
	rec := a.api(http.MethodPost, "/api/v1/overrides/base.identity", "{}")
	wantError(t, "POST", rec, http.StatusMethodNotAllowed, "method_not_allowed", "")
}

func TestAPIOverrideLifecycle(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ctx := context.Background()
	en := builtinText(t, a.lib, "base.identity", "en-US")
	first := identityText(t, a, "You are the API's first assistant.")
	second := identityText(t, a, "You are the API's second assistant.")

	// Create: no If-Match.
	wantSaved(t, "create", a.putText(identityURL, first, ""), true, 1, "draft", "revision 1")
	wantOverride(t, "after create", a.api(http.MethodGet, identityURL, ""), handlers.APIOverride{Text: first, Revision: 1, Status: "draft", Kind: "override"})
	row, err := a.store.GetOverride(ctx, "base.identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if row.Author != handlers.TokenActor(testToken) || row.BasedOnVersion != en.Version || row.BaseSnapshot != en.Text || row.BaseHash != domain.TextHash(en.Text) {
		t.Errorf("stored: author %q based on v%d hash %q; want token:handlers-test, v%d, the builtin's hash", row.Author, row.BasedOnVersion, row.BaseHash, en.Version)
	}
	// A draft: not served until published.
	if d := decode[handlers.APIModuleDetail](t, a.api(http.MethodGet, "/api/v1/modules/base.identity?locale=en-US", "")); d.Source != "builtin" {
		t.Errorf("after the PUT (a draft) /api/v1/modules serves %s: %q", d.Source, d.Body)
	}
	publishURL := "/api/v1/overrides/base.identity/publish?locale=en-US"
	wantError(t, "publish without If-Match", a.api(http.MethodPost, publishURL, ""), http.StatusPreconditionRequired, "precondition_required", "If-Match", "revision 1")
	wantError(t, "stale publish", a.api(http.MethodPost, publishURL, "", "If-Match", "2"), http.StatusPreconditionFailed, "precondition_failed", "If-Match", "revision 1, not 2")
	wantError(t, "publish nothing", a.api(http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=zh-CN", "", "If-Match", "1"), http.StatusNotFound, "not_found", "locale")
	rec := a.api(http.MethodPost, publishURL, "", "If-Match", "1")
	if got := decode[handlers.APIOverridePublished](t, rec); rec.Code != http.StatusOK || got != (handlers.APIOverridePublished{Revision: 1, Published: true}) {
		t.Errorf("publish: %d %+v, want 200 revision 1 published", rec.Code, got)
	}
	// Served at once: the overlay was rebuilt.
	if d := decode[handlers.APIModuleDetail](t, a.api(http.MethodGet, "/api/v1/modules/base.identity?locale=en-US", "")); d.Source != "override" ||
		!strings.Contains(d.Body, "the API's first assistant") {
		t.Errorf("after the publish /api/v1/modules serves %s: %q", d.Source, d.Body)
	}
	wantOverride(t, "after publish", a.api(http.MethodGet, identityURL, ""), handlers.APIOverride{Text: first, Revision: 1, Status: "published", Kind: "override", PublishedRevision: 1})

	// An existing override needs If-Match.
	wantError(t, "PUT without If-Match", a.putText(identityURL, second, ""), http.StatusPreconditionRequired, "precondition_required", "If-Match", "revision 1")
	// A JSON body, quoted If-Match.
	body, _ := json.Marshal(map[string]string{"text": second})
	wantSaved(t, "save", a.api(http.MethodPut, identityURL, string(body), "If-Match", `"1"`), true, 2, "draft")

	// Stale and create-on-existing are conflicts naming the current revision; the text stays.
	wantError(t, "stale PUT", a.putText(identityURL, first, "1"), http.StatusPreconditionFailed, "precondition_failed", "If-Match", "revision 2, not 1")
	wantError(t, "create on existing", a.putText(identityURL, first, "0"), http.StatusPreconditionFailed, "precondition_failed", "If-Match", "revision 2")
	// If-Match compares strongly: a weak tag never matches, even the current one.
	weak := a.putText(identityURL, first, `W/"2"`)
	wantError(t, "weak If-Match", weak, http.StatusPreconditionFailed, "precondition_failed", "If-Match", "weak", "base.identity (en-US) is at revision 2")
	if got := weak.Header().Get("ETag"); got != `"2"` {
		t.Errorf("412 ETag %q, want the current revision \"2\"", got)
	}
	wantOverride(t, "after refusals", a.api(http.MethodGet, identityURL, ""), handlers.APIOverride{Text: second, Revision: 2, Status: "draft", Kind: "override", PublishedRevision: 1})
	// The draft is not served: revision 1 is.
	if d := decode[handlers.APIModuleDetail](t, a.api(http.MethodGet, "/api/v1/modules/base.identity?locale=en-US", "")); !strings.Contains(d.Body, "the API's first assistant") {
		t.Errorf("with a draft pending /api/v1/modules serves %q, want the published revision 1", d.Body)
	}

	// The builtin text stores nothing and says so.
	wantSaved(t, "builtin text on an override", a.putText(identityURL, en.Text, "2"), false, 2, "draft", "nothing was stored", "DELETE")
	wantSaved(t, "builtin text, no override", a.putText("/api/v1/overrides/base.identity?locale=zh-CN",
		builtinText(t, a.lib, "base.identity", "zh-CN").Text, ""), false, 0, "builtin", "nothing was stored")

	// Delete: If-Match required and checked.
	wantError(t, "DELETE without If-Match", a.api(http.MethodDelete, identityURL, ""), http.StatusPreconditionRequired, "precondition_required", "If-Match", "revision 2")
	wantError(t, "stale DELETE", a.api(http.MethodDelete, identityURL, "", "If-Match", "1"), http.StatusPreconditionFailed, "precondition_failed", "If-Match", "revision 2")
	wantError(t, "DELETE If-Match 0", a.api(http.MethodDelete, identityURL, "", "If-Match", "0"), http.StatusPreconditionFailed, "precondition_failed", "If-Match", "revision 2")
	if rec := a.api(http.MethodDelete, identityURL, "", "If-Match", "2"); rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s, want 204", rec.Code, rec.Body.String())
	}
	wantOverride(t, "after delete", a.api(http.MethodGet, identityURL, ""), handlers.APIOverride{Text: en.Text, Revision: 0, Status: "builtin", Kind: "builtin"})
	wantError(t, "DELETE again", a.api(http.MethodDelete, identityURL, "", "If-Match", "2"), http.StatusNotFound, "not_found", "id",
		"override base.identity (en-US) was already deleted (by "+handlers.TokenActor(testToken)+", ")

	// After a delete a create continues the numbering; text/markdown is
	// the file as it is, and curl --data-binary's form type is refused.
	wantError(t, "re-create as a form", a.api(http.MethodPut, identityURL, first, "Content-Type", "application/x-www-form-urlencoded"),
		http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type", "text/markdown", "text/plain", "application/json")
	wantSaved(t, "re-create", a.api(http.MethodPut, identityURL, first, "Content-Type", "text/markdown"), true, 4, "draft")
	revs, err := a.store.ListRevisions(ctx, "base.identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, r := range revs {
		actions = append(actions, itoa(r.Revision)+" "+r.Action+" "+r.Author)
	}
	if want := strings.ReplaceAll("4 create A,3 delete A,2 save A,1 create A", "A", handlers.TokenActor(testToken)); strings.Join(actions, ",") != want {
		t.Errorf("history %q, want %q", actions, want)
	}
	audit, err := a.store.ListAudit(ctx, domain.AuditFilter{Actor: handlers.TokenActor(testToken)})
	if err != nil {
		t.Fatal(err)
	}
	// Four revisions and the publish of revision 1.
	var got []string
	for _, e := range audit {
		if e.Action == domain.ActionUse { // the token's use, once a minute
			continue
		}
		got = append(got, itoa(e.Revision)+" "+e.Action)
	}
	if want := "4 create,3 delete,2 save,1 publish,1 create"; strings.Join(got, ",") != want {
		t.Errorf("audit rows by the token %q, want %q", got, want)
	}
}

func TestAPIOverridePutErrors(t *testing.T) {
	t.Parallel()
	a := setup(t)
	good := identityText(t, a, "You are the test assistant.")
	for _, c := range []struct {
		name, body, contentType, ifMatch string
		status                           int
		code, field                      string
		words                            []string
	}{
		{"changed id", strings.Replace(good, "id: base.identity", "id: base.someone", 1), "text/plain", "", 422, "invalid_request", "text", []string{"line 2", "may not change the id"}},
		{"unknown placeholder", identityText(t, a, "You are {{nobody_knows}}."), "text/plain", "", 422, "invalid_request", "text", []string{"{{nobody_knows}}"}},
		{"not a module", "hello", "text/plain", "", 422, "invalid_request", "text", []string{"line 1"}},
		{"bad If-Match", good, "text/plain", "abc", 422, "invalid_request", "If-Match", []string{"abc"}},
		{"If-Match *", good, "text/plain", "*", 422, "invalid_request", "If-Match", nil},
		{"JSON without text", `{}`, "application/json", "", 422, "invalid_request", "text", []string{"required"}},
		{"JSON unknown field", `{"text": "x", "body": "y"}`, "application/json", "", 422, "invalid_request", "body", nil},
		{"malformed JSON", `{"text": `, "application/json", "", 400, "invalid_json", "", nil},
		{"XML", "<module/>", "text/xml", "", 415, "unsupported_media_type", "Content-Type", []string{"text/plain"}},
		{"no Content-Type", good, "", "", 415, "unsupported_media_type", "Content-Type", []string{"no Content-Type"}},
		{"Latin-1", good, "text/plain; charset=iso-8859-1", "", 415, "unsupported_media_type", "Content-Type", nil},
	} {
		rec := a.api(http.MethodPut, identityURL, c.body, "Content-Type", c.contentType, "If-Match", c.ifMatch)
		wantError(t, c.name, rec, c.status, c.code, c.field, c.words...)
	}
	if n := len(a.overrides()); n != 0 {
		t.Errorf("%d overrides stored by refused PUTs, want 0", n)
	}
	wantError(t, "PUT stale on nothing", a.putText(identityURL, good, "3"), http.StatusPreconditionFailed, "precondition_failed", "If-Match", "revision 0")
}

func TestAPIOverrideUserModule(t *testing.T) {
	t.Parallel()
	a := setup(t)
	const url = "/api/v1/overrides/task.api-notes?locale=en-US"
	text := "---\nid: task.api-notes\nlayer: task\nversion: 1\ntitle: API notes\ndescription: Notes taken through the API\n" +
		"priority: 10\ntriggers:\n- kind: command\n  command: /apinotes\n---\nTake notes.\n"
	long := "task." + strings.Repeat("n", 300)
	wantError(t, "id of 305 characters", a.putText("/api/v1/overrides/"+long+"?locale=en-US", strings.ReplaceAll(text, "task.api-notes", long), ""),
		http.StatusUnprocessableEntity, "invalid_request", "text", "at most 128")
	wantSaved(t, "create user module", a.putText(url, text, ""), true, 1, "draft")
	wantOverride(t, "GET user module", a.api(http.MethodGet, url, ""), handlers.APIOverride{Text: text, Revision: 1, Status: "draft", Kind: "user-module"})
	wantError(t, "other locale", a.api(http.MethodGet, "/api/v1/overrides/task.api-notes?locale=de-DE", ""), http.StatusNotFound, "not_found", "locale", "de-DE")
	if rec := a.api(http.MethodDelete, url, "", "If-Match", "1"); rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", rec.Code, rec.Body.String())
	}
	wantError(t, "after delete", a.api(http.MethodGet, url, ""), http.StatusNotFound, "not_found", "id")
	wantError(t, "DELETE again", a.api(http.MethodDelete, url, "", "If-Match", "1"), http.StatusNotFound, "not_found", "id",
		"override task.api-notes (en-US) was already deleted (by "+handlers.TokenActor(testToken)+", ")
}

// Editors saving the same revision at once, through the API: parallel
// PUTs on one revision give one save and clean 412s, never a 500, and
// gap-free revisions.
func TestAPIOverrideParallelPuts(t *testing.T) {
	t.Parallel()
	a := setup(t)
	decode[handlers.APIOverrideSaved](t, a.putText(identityURL, identityText(t, a, "You are revision one."), ""))
	const n = 10
	texts := make([]string, n)
	for i := range n {
		texts[i] = identityText(t, a, "You are editor "+itoa(i)+".")
	}
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { codes[i] = a.putText(identityURL, texts[i], "1").Code })
	}
	wg.Wait()
	ok, conflicts := 0, 0
	for i, code := range codes {
		switch code {
		case http.StatusOK:
			ok++
		case http.StatusPreconditionFailed:
			conflicts++
		default:
			t.Errorf("PUT %d: status %d", i, code)
		}
	}
	if ok != 1 || conflicts != n-1 {
		t.Errorf("%d saved and %d conflicts, want 1 and %d", ok, conflicts, n-1)
	}
	revs, err := a.store.ListRevisions(context.Background(), "base.identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 2 || revs[0].Revision != 2 || revs[1].Revision != 1 {
		t.Errorf("revisions %+v, want 2 and 1", revs)
	}
}

// The console records its changes as the logged-in user, with the hash of the
// builtin an override was based on.
func TestConsoleActor(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ctx := context.Background()
	en := builtinText(t, a.lib, "base.identity", "en-US")
	a.saveOverride("base.identity", "en-US", identityText(t, a, "You are the console's assistant."), 0)
	row, err := a.store.GetOverride(ctx, "base.identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if row.BaseHash != domain.TextHash(en.Text) || row.Author != testUser {
		t.Errorf("console save: BaseHash %q author %q, want the builtin's hash and the user", row.BaseHash, row.Author)
	}
	a.post("/modules/base.identity/override/en-US/delete", url.Values{"revision": {"1"}}).want(t, http.StatusSeeOther)
	a.post("/profiles", profileForm("support", "base.identity")).want(t, http.StatusSeeOther)
	a.post("/profiles/support/delete", url.Values{}).want(t, http.StatusSeeOther)

	entries, err := a.store.ListAudit(ctx, domain.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.Subject != domain.SubjectScenario && e.Subject != domain.SubjectToken && e.Subject != domain.SubjectUser { // the seeded examples, the test's API token and user
			got = append(got, e.Actor+" "+e.Action+" "+e.Subject)
		}
	}
	want := "tester delete profile,tester create profile,tester delete override,tester publish override,tester create override"
	if strings.Join(got, ",") != want {
		t.Errorf("audit %q, want %q", got, want)
	}
}

// PUT answers the module checklist's warnings of the saved text: the
// builtin text has none, a bare one-line body has rule 1's (base.identity
// must say who the model is) under its line; they do not block the save.
func TestAPIOverridePutWarnings(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ident := builtinText(t, a.lib, "base.identity", "en-US")
	got := wantSaved(t, "builtin text", a.putText(identityURL, ident.Text, ""), false, 0, "builtin")
	if got.Warnings == nil || len(got.Warnings) != 0 {
		t.Errorf("builtin text: warnings %#v, want an empty list", got.Warnings)
	}
	bare := strings.SplitAfter(ident.Text, "\n---\n")[0] + "Answer.\n"
	got = wantSaved(t, "bare text", a.putText(identityURL, bare, ""), true, 1, "draft")
	bodyLine := strings.Count(strings.SplitAfter(ident.Text, "\n---\n")[0], "\n") + 1
	var rule1 bool
	for _, f := range got.Warnings {
		if f.Severity != "warning" || f.Line == 0 {
			t.Errorf("warning %+v: want severity warning and a line", f)
		}
		rule1 = rule1 || f.Rule == "1" && f.Line == bodyLine
	}
	if !rule1 {
		t.Errorf("bare text: warnings %+v, want rule 1 at line %d", got.Warnings, bodyLine)
	}
	if got.Notices == nil || len(got.Notices) != 0 {
		t.Errorf("en-US text: notices %#v, want an empty list", got.Notices)
	}
	// ja-JP has no lint cue words: the wording rules are skipped, and a
	// notice says so.
	got = wantSaved(t, "ja-JP text", a.putText("/api/v1/overrides/base.identity?locale=ja-JP", bare, ""), true, 1, "draft")
	if len(got.Notices) != 1 || got.Notices[0].Rule != "cues" || len(got.Warnings) != 0 {
		t.Errorf("ja-JP text: warnings %+v notices %+v, want no warnings and one cues notice", got.Warnings, got.Notices)
	}
}

// A 412 says once where the override is and what to do: no kind word
// tacked on, the current revision named once, and no "merge" for a
// DELETE, where there is nothing to merge.
func TestAPIPreconditionFailedMessages(t *testing.T) {
	t.Parallel()
	a := setup(t)
	decode[handlers.APIOverrideSaved](t, a.putText(identityURL, identityText(t, a, "You are revision one."), ""))
	decode[handlers.APIOverrideSaved](t, a.putText(identityURL, identityText(t, a, "You are revision two."), "1"))
	stale := a.putText(identityURL, identityText(t, a, "You are late."), "1")
	wantError(t, "stale PUT", stale, http.StatusPreconditionFailed, "precondition_failed", "If-Match", "at revision 2", "merge your change", `If-Match: "2"`)
	del := a.api(http.MethodDelete, identityURL, "", "If-Match", "1")
	wantError(t, "stale DELETE", del, http.StatusPreconditionFailed, "precondition_failed", "If-Match", "at revision 2", "still to go")
	for what, rec := range map[string]*httptest.ResponseRecorder{"PUT": stale, "DELETE": del} {
		body := rec.Body.String()
		if strings.Count(body, "at revision 2") != 1 || strings.Contains(body, "conflict") || (what == "DELETE" && strings.Contains(body, "merge")) {
			t.Errorf("%s 412: %s", what, body)
		}
	}
}

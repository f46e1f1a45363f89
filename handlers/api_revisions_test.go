package handlers_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/handlers"
)

// publishAPI PUTs text onto revision base and publishes it through the
// API, returning the new revision.
func (a *app) publishAPI(id, locale, text string, base int) int {
	a.t.Helper()
	target := "/api/v1/overrides/" + id + "?locale=" + locale
	rec := a.putText(target, text, itoa(base))
	saved := decode[handlers.APIOverrideSaved](a.t, rec)
	if rec.Code != http.StatusOK || !saved.Stored {
		a.t.Fatalf("PUT %s: %d %s", target, rec.Code, rec.Body.String())
	}
	rec = a.api(http.MethodPost, "/api/v1/overrides/"+id+"/publish?locale="+locale, "", "If-Match", itoa(saved.Revision))
	if rec.Code != http.StatusOK {
		a.t.Fatalf("publish %s: %d %s", target, rec.Code, rec.Body.String())
	}
	return saved.Revision
}

func TestAPIRevisions(t *testing.T) {
	t.Parallel()
	a := setup(t)
	first := identityText(t, a, "You are the first revision's assistant.")
	second := identityText(t, a, "You are the second revision's assistant.")
	a.publishAPI("base.identity", "en-US", first, 0)
	if n := a.publishAPI("base.identity", "en-US", second, 1); n != 2 {
		t.Fatalf("second revision is %d", n)
	}

	// The served revision is reported by module, render and assemble.
	if d := decode[handlers.APIModuleDetail](t, a.api(http.MethodGet, "/api/v1/modules/base.identity?locale=en-US", "")); d.Source != "override" || d.Revision != 2 {
		t.Errorf("module: source %s revision %d, want override 2", d.Source, d.Revision)
	}
	if d := decode[handlers.APIModuleDetail](t, a.api(http.MethodGet, "/api/v1/modules/base.identity?locale=zh-CN", "")); d.Source != "builtin" || d.Revision != 0 {
		t.Errorf("zh-CN module: source %s revision %d, want builtin 0", d.Source, d.Revision)
	}
	if r := decode[assembler.Rendered](t, a.api(http.MethodPost, "/api/v1/render", `{"module":"base.identity"}`)); r.Revision != 2 || !strings.Contains(r.Text, "second revision's") {
		t.Errorf("render: revision %d, text %.80q", r.Revision, r.Text)
	}
	res := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", `{"message":"hello"}`))
	if e := reportEntry(res, "base.identity"); e.Revision != 2 || !strings.Contains(e.Line, "override r2") {
		t.Errorf("assemble report: %+v, want revision 2 and `override r2`", e)
	}

	// The history, newest first.
	rec := a.api(http.MethodGet, "/api/v1/overrides/base.identity/revisions?locale=en-us", "")
	h := decode[handlers.APIRevisions](t, rec)
	if rec.Code != http.StatusOK || h.ID != "base.identity" || h.Locale != "en-US" || h.Revision != 2 || h.PublishedRevision != 2 || len(h.Revisions) != 2 {
		t.Fatalf("revisions: %d %+v", rec.Code, h)
	}
	actor := handlers.TokenActor(testToken)
	if r := h.Revisions[0]; r.Revision != 2 || r.Action != "save" || r.Author != actor || !r.Published || r.At.IsZero() {
		t.Errorf("revision 2: %+v", r)
	}
	if r := h.Revisions[1]; r.Revision != 1 || r.Action != "create" || r.Author != actor || r.Published {
		t.Errorf("revision 1: %+v", r)
	}
	if etag := rec.Header().Get("ETag"); etag != `"2"` {
		t.Errorf("revisions ETag %s, want \"2\"", etag)
	}
	r1 := decode[handlers.APIRevisionText](t, a.api(http.MethodGet, "/api/v1/overrides/base.identity/revisions/1?locale=en-US", ""))
	if r1.Text != first || r1.Revision != 1 || r1.Published || r1.BasedOnVersion == 0 {
		t.Errorf("revision 1: %+v", r1)
	}
	wantError(t, "no revision 9", a.api(http.MethodGet, "/api/v1/overrides/base.identity/revisions/9?locale=en-US", ""), http.StatusNotFound, "not_found", "n", "revision 9")
	wantError(t, "revision x", a.api(http.MethodGet, "/api/v1/overrides/base.identity/revisions/x", ""), http.StatusUnprocessableEntity, "invalid_request", "n")
	if h := decode[handlers.APIRevisions](t, a.api(http.MethodGet, "/api/v1/overrides/base.identity/revisions?locale=zh-CN", "")); h.Revision != 0 || len(h.Revisions) != 0 || h.Locale != "zh-CN" {
		t.Errorf("no history: %+v", h)
	}
	wantError(t, "unknown module", a.api(http.MethodGet, "/api/v1/overrides/base.nobody/revisions", ""), http.StatusNotFound, "not_found", "id")

	// Pins reproduce the answer of revision 1.
	pin := `"revisions":{"base.identity@en-us":1}`
	r := decode[assembler.Rendered](t, a.api(http.MethodPost, "/api/v1/render", `{"module":"base.identity",`+pin+`}`))
	if r.Revision != 1 || !strings.Contains(r.Text, "first revision's") {
		t.Errorf("pinned render: revision %d, text %.80q", r.Revision, r.Text)
	}
	res = decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", `{"message":"hello",`+pin+`}`))
	if e := reportEntry(res, "base.identity"); e.Revision != 1 || !strings.Contains(res.Text, "first revision's") {
		t.Errorf("pinned assemble: %+v", e)
	}
	wantError(t, "pin to nothing", a.api(http.MethodPost, "/api/v1/assemble", `{"revisions":{"base.identity@en-US":7}}`),
		http.StatusUnprocessableEntity, "invalid_request", "revisions.base.identity@en-US", "no revision 7")
	wantError(t, "pin without locale", a.api(http.MethodPost, "/api/v1/render", `{"module":"base.identity","revisions":{"base.identity":1}}`),
		http.StatusUnprocessableEntity, "invalid_request", "revisions.base.identity")
	wantError(t, "pin to 0", a.api(http.MethodPost, "/api/v1/assemble", `{"revisions":{"base.identity@en-US":0}}`),
		http.StatusUnprocessableEntity, "invalid_request", "revisions.base.identity@en-US")
	// Revisions are 4-byte integers in the database: a larger number is
	// refused by name before it reaches a query.
	const overInt4 = "2147483648"
	for path, module := range map[string]string{"/api/v1/assemble": "", "/api/v1/render": `"module":"base.identity",`} {
		wantError(t, "pin over 2^31-1 to "+path, a.api(http.MethodPost, path, `{`+module+`"revisions":{"base.identity@en-US":`+overInt4+`}}`),
			http.StatusUnprocessableEntity, "invalid_request", "revisions.base.identity@en-US", "2147483647")
	}
	wantError(t, "revision over 2^31-1", a.api(http.MethodGet, "/api/v1/overrides/base.identity/revisions/"+overInt4+"?locale=en-US", ""),
		http.StatusUnprocessableEntity, "invalid_request", "n")
	wantError(t, "restore over 2^31-1", a.api(http.MethodPost, "/api/v1/overrides/base.identity/revisions/"+overInt4+"/restore?locale=en-US", "", "If-Match", "2"),
		http.StatusUnprocessableEntity, "invalid_request", "n")
	wantError(t, "DELETE If-Match over 2^31-1", a.api(http.MethodDelete, identityURL, "", "If-Match", overInt4),
		http.StatusUnprocessableEntity, "invalid_request", "If-Match")

	// Restore: a draft through the same write path as the console.
	restoreURL := "/api/v1/overrides/base.identity/revisions/1/restore?locale=en-US"
	wantError(t, "restore without If-Match", a.api(http.MethodPost, restoreURL, ""), http.StatusPreconditionRequired, "precondition_required", "If-Match")
	rec = a.api(http.MethodPost, restoreURL, "", "If-Match", "2")
	saved := decode[handlers.APIOverrideSaved](t, rec)
	if rec.Code != http.StatusOK || !saved.Stored || saved.Revision != 3 || saved.Status != "draft" || saved.Text != first {
		t.Fatalf("restore: %d %+v", rec.Code, saved)
	}
	if etag := rec.Header().Get("ETag"); etag != `"3"` {
		t.Errorf("restore ETag %s", etag)
	}
	wantError(t, "restore of nothing", a.api(http.MethodPost, "/api/v1/overrides/base.identity/revisions/8/restore?locale=en-US", "", "If-Match", "3"),
		http.StatusNotFound, "not_found", "n")
	h = decode[handlers.APIRevisions](t, a.api(http.MethodGet, "/api/v1/overrides/base.identity/revisions?locale=en-US", ""))
	if h.Revision != 3 || h.PublishedRevision != 2 || h.Revisions[0].Action != "restore" || h.Revisions[0].Published || !h.Revisions[1].Published {
		t.Errorf("after restore: %+v", h)
	}
	// Still a draft: revision 2 serves.
	if r := decode[assembler.Rendered](t, a.api(http.MethodPost, "/api/v1/render", `{"module":"base.identity"}`)); r.Revision != 2 {
		t.Errorf("after restore render serves revision %d, want 2", r.Revision)
	}

	// Deleted (revision 4): the history stays, revision 4 has no text to
	// serve or restore, revision 2 can still be pinned.
	if rec := a.api(http.MethodDelete, identityURL, "", "If-Match", "3"); rec.Code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body.String())
	}
	h = decode[handlers.APIRevisions](t, a.api(http.MethodGet, "/api/v1/overrides/base.identity/revisions?locale=en-US", ""))
	if h.Revision != 4 || h.PublishedRevision != 0 || h.Revisions[0].Action != "delete" || slices.ContainsFunc(h.Revisions, func(r handlers.APIRevision) bool { return r.Published }) {
		t.Errorf("after delete: %+v", h)
	}
	wantError(t, "pin to the delete", a.api(http.MethodPost, "/api/v1/render", `{"module":"base.identity","revisions":{"base.identity@en-US":4}}`),
		http.StatusUnprocessableEntity, "invalid_request", "revisions.base.identity@en-US", "removed the override")
	if r := decode[assembler.Rendered](t, a.api(http.MethodPost, "/api/v1/render", `{"module":"base.identity","revisions":{"base.identity@en-US":2}}`)); r.Revision != 2 || !strings.Contains(r.Text, "second revision's") {
		t.Errorf("pin after delete: revision %d", r.Revision)
	}
}

// reportEntry is the prompt entry of module in res.
func reportEntry(res assembler.Result, module string) assembler.ReportEntry {
	for _, e := range res.Report {
		if e.Kind == assembler.KindPrompt && e.Module == module {
			return e
		}
	}
	return assembler.ReportEntry{}
}

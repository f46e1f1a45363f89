package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/state"
)

// assembled returns the system text /api/v1/assemble serves for en-US.
func (a *app) assembled() string {
	a.t.Helper()
	rec := a.api(http.MethodPost, "/api/v1/assemble", `{"locale": "en-US"}`)
	if rec.Code != http.StatusOK {
		a.t.Fatalf("assemble: %d %s", rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

// A save is a draft until published; the runtime API and
// the default preview serve only published text; the preview can include
// the drafts and says so; publish and discard are recorded.
func TestDraftPublishDiscard(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ctx := context.Background()
	// Whole role sentences: the module checklist has no warning, so a
	// save leads to the module page.
	const one, two = "You are Draftwell, revision one: the assistant of this workspace, answering for its replies.", "You are Draftwell, revision two: the assistant of this workspace, answering for its replies."
	const preview = `{"locale": "en-US"}`

	mod := a.follow(a.post("/modules/base.identity/override/en-US", url.Values{"text": {identityText(t, a, one)}, "revision": {"0"}}).want(t, http.StatusSeeOther)).want(t, http.StatusOK)
	if f := mod.find("flash").Text(); !strings.Contains(f, "draft saved, not served yet") {
		t.Errorf("flash %q", f)
	}
	card := mod.doc.Find(`[data-testid="locale"][data-locale="en-US"]`)
	if card.AttrOr("data-source", "") != "builtin" || !strings.Contains(card.Find(`[data-testid="draft"]`).Text(), "draft revision 1 (not published)") {
		t.Errorf("en-US card: source %q, draft %q", card.AttrOr("data-source", ""), card.Find(`[data-testid="draft"]`).Text())
	}
	if card.Find(`[data-testid="publish-draft"]`).Length() != 1 || card.Find(`[data-testid="discard-draft"]`).Length() != 1 {
		t.Error("the draft has no Publish and Discard buttons")
	}
	lib := a.get("/").want(t, http.StatusOK)
	row := lib.doc.Find(`[data-testid="module-row"][data-id="base.identity"]`)
	if row.AttrOr("data-status", "") != "builtin" || row.Find(`[data-testid="badge"][data-status="draft"]`).Length() != 1 ||
		row.Find(`[data-testid="locale-draft"][data-locale="en-US"]`).Length() != 1 {
		t.Errorf("library row: status %q, draft badges %d", row.AttrOr("data-status", ""), row.Find(`[data-status="draft"]`).Length())
	}

	// Not served: runtime API and default preview.
	if strings.Contains(a.assembled(), "Draftwell") {
		t.Error("/api/v1/assemble serves the draft")
	}
	def := a.post("/preview", url.Values{"request": {preview}}).want(t, http.StatusOK)
	if strings.Contains(def.find("report-lines").Text(), "draft") || strings.Contains(def.doc.Text(), "Draftwell") {
		t.Error("the default preview includes the draft")
	}
	if def.find("drafts-included").Length() != 0 {
		t.Error("the default preview says drafts are included")
	}
	// Served with "include drafts", and the report says so.
	inc := a.post("/preview", url.Values{"request": {preview}, "includeDrafts": {"on"}}).want(t, http.StatusOK)
	if !strings.Contains(inc.doc.Text(), one) {
		t.Error("the preview with drafts does not serve the draft")
	}
	lines := inc.find("report-lines").Text()
	if !strings.Contains(lines, "prompt(base.identity v1 · default · draft · override r1)") {
		t.Errorf("report lines do not mark the draft:\n%s", lines)
	}
	if !strings.Contains(lines, "warning(drafts · "+state.DraftsIncludedReason+"1)") {
		t.Errorf("report lines lack the drafts-included warning:\n%s", lines)
	}
	if inc.find("drafts-included").Length() != 1 || inc.find("include-drafts").AttrOr("checked", "none") == "none" {
		t.Error("the page does not say drafts are included, or lost the checkbox")
	}
	if gq := a.get("/preview?scenario=&includeDrafts=on").want(t, http.StatusOK); gq.find("include-drafts").AttrOr("checked", "none") == "none" {
		t.Error("GET ?includeDrafts=on does not check the box")
	}

	// A stale publish is a conflict page; nothing is published.
	stale := a.post("/modules/base.identity/override/en-US/publish", url.Values{"revision": {"2"}}).want(t, http.StatusConflict)
	if !strings.Contains(stale.doc.Text(), "revision 1, not 2") || stale.find("draft").Length() != 1 {
		t.Errorf("stale publish page: %q", stale.doc.Find(".alert").Text())
	}
	// Publish: served at once, recorded.
	mod = a.follow(a.post("/modules/base.identity/override/en-US/publish", url.Values{"revision": {"1"}}).want(t, http.StatusSeeOther)).want(t, http.StatusOK)
	if !strings.Contains(a.assembled(), "Draftwell, revision one") {
		t.Error("/api/v1/assemble does not serve the published text")
	}
	if f := mod.find("flash").Text(); !strings.Contains(f, "published: revision 1 is served") || mod.find("draft").Length() != 0 {
		t.Errorf("after publish: flash %q, draft notices %d", f, mod.find("draft").Length())
	}

	// A second draft; the published text keeps serving; discard returns to it.
	a.saveDraft("base.identity", "en-US", identityText(t, a, two), 1)
	if got := a.assembled(); !strings.Contains(got, "revision one") || strings.Contains(got, "revision two") {
		t.Error("a draft on top changed what /api/v1/assemble serves")
	}
	if inc := a.post("/preview", url.Values{"request": {preview}, "includeDrafts": {"on"}}).want(t, http.StatusOK); !strings.Contains(inc.doc.Text(), two) {
		t.Error("the preview with drafts does not serve the second draft")
	}
	a.post("/modules/base.identity/override/en-US/discard", url.Values{"revision": {"1"}}).want(t, http.StatusConflict)
	a.post("/modules/base.identity/override/en-US/discard", url.Values{"revision": {"2"}}).want(t, http.StatusSeeOther)
	head, err := a.store.GetOverride(ctx, "base.identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if head.Revision != 3 || head.Draft || !strings.Contains(head.Text, one) {
		t.Errorf("after discard: revision %d draft %v text %.80q", head.Revision, head.Draft, head.Text)
	}
	if got := a.assembled(); !strings.Contains(got, "revision one") {
		t.Error("after discard /api/v1/assemble does not serve the published text")
	}
	if inc := a.post("/preview", url.Values{"request": {preview}, "includeDrafts": {"on"}}).want(t, http.StatusOK); strings.Contains(inc.doc.Text(), two) ||
		!strings.Contains(inc.find("report-lines").Text(), state.DraftsIncludedReason+"0") {
		t.Error("the discarded draft is still in the preview with drafts")
	}

	audit, err := a.store.ListAudit(ctx, domain.AuditFilter{SubjectID: "base.identity"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range audit {
		got = append(got, e.Actor+" "+e.Action+" "+itoa(e.Revision))
	}
	if want := "tester discard 3,tester save 2,tester publish 1,tester create 1"; strings.Join(got, ",") != want {
		t.Errorf("audit %q, want %q", got, want)
	}
}

// Discarding a draft that was never published removes the override.
func TestDiscardUnpublishedDraft(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.saveDraft("base.identity", "en-US", identityText(t, a, "You are a passing thought."), 0)
	r := a.post("/modules/base.identity/override/en-US/discard", url.Values{"revision": {"1"}}).want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != "/modules/base.identity#locale-en-US" {
		t.Errorf("discard leads to %q, want the en-US card of the module page", loc)
	}
	if _, err := a.store.GetOverride(context.Background(), "base.identity", "en-US"); err == nil {
		t.Error("the override is still there")
	}
	if f := a.follow(r).find("flash").Text(); !strings.Contains(f, "nothing was ever published") {
		t.Errorf("flash %q", f)
	}
	// Nothing to publish now.
	a.post("/modules/base.identity/override/en-US/publish", url.Values{"revision": {"2"}}).want(t, http.StatusConflict)
}

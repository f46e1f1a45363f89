package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
)

// The note typed in the editor and on the publish confirmation is shown
// in the History, next to the published revision's publisher and time,
// in the API's revisions and in the audit log; the head that is only a
// draft is marked as such.
func TestNotesInHistoryAPIAndAudit(t *testing.T) {
	t.Parallel()
	a := setup(t)
	editor := "/modules/base.identity/override/en-US"
	if a.get(editor).find("note").Length() != 1 {
		t.Fatal("the editor has no note field")
	}
	text := identityText(t, a, "You are the noted assistant.")
	a.post(editor, url.Values{"text": {text}, "revision": {"0"}, "note": {"  Shorter\n\nopening   line "}}).want(t, http.StatusSeeOther)
	confirm := a.get(editor+"/publish").want(t, http.StatusOK)
	if confirm.find("confirm-form").Find(`[data-testid="note"]`).Length() != 1 {
		t.Fatal("the publish confirmation has no note field")
	}
	a.post(editor+"/publish", url.Values{"revision": {"1"}, "note": {"Reviewed with the support team."}}).want(t, http.StatusSeeOther)
	a.post(editor, url.Values{"text": {identityText(t, a, "You are the next draft.")}, "revision": {"1"}}).want(t, http.StatusSeeOther)

	h := a.get(historyPath).want(t, http.StatusOK)
	revs := h.find("revision")
	head, published := revs.Eq(0), revs.Eq(1)
	if head.Find(`[data-testid="revision-draft"]`).Length() != 1 || head.Find(`[data-testid="revision-published"]`).Length() != 0 {
		t.Error("revision 2 (a draft) is not marked as the unserved draft")
	}
	if published.Find(`[data-testid="revision-published"]`).Length() != 1 {
		t.Error("revision 1 is not marked as published")
	}
	if got := published.Find(`[data-testid="revision-note"]`).Text(); got != "Note: Shorter opening line" {
		t.Errorf("revision 1 note %q, want the note folded into one paragraph", got)
	}
	pub := published.Find(`[data-testid="revision-publication"]`).Text()
	if !strings.Contains(pub, "Published by "+testUser) || !strings.Contains(pub, "UTC") || !strings.Contains(pub, "Reviewed with the support team.") {
		t.Errorf("revision 1 publication %q, want who, when and the publish note", pub)
	}

	api := decode[handlers.APIRevisions](t, a.api(http.MethodGet, "/api/v1/overrides/base.identity/revisions?locale=en-US", ""))
	if len(api.Revisions) != 2 {
		t.Fatalf("API revisions %+v", api)
	}
	if r := api.Revisions[1]; r.Note != "Shorter opening line" || r.Publication == nil || r.Publication.By != testUser ||
		r.Publication.Note != "Reviewed with the support team." || r.Publication.At.IsZero() {
		t.Errorf("API revision 1: %+v (publication %+v)", r, r.Publication)
	}
	if r := api.Revisions[0]; r.Note != "" || r.Publication != nil {
		t.Errorf("API revision 2: %+v; want no note, no publication", r)
	}
	if got := a.auditOf(t, domain.ActionPublish); len(got) != 1 || got[0].Note != "Reviewed with the support team." {
		t.Errorf("publish audit %+v", got)
	}
	audit := a.get("/audit").want(t, http.StatusOK)
	if !strings.Contains(audit.find("audit-note").Text(), "Reviewed with the support team.") {
		t.Error("the audit page does not show the publish note")
	}
}

// A note over the limit is refused naming the field, the editor keeping
// the text and the note; the API answers 422 on field note.
func TestNoteTooLong(t *testing.T) {
	t.Parallel()
	a := setup(t)
	editor := "/modules/base.identity/override/en-US"
	text := identityText(t, a, "You are the long-winded assistant.")
	long := strings.Repeat("why ", domain.MaxNoteLength/4+1)
	r := a.post(editor, url.Values{"text": {text}, "revision": {"0"}, "note": {long}}).want(t, http.StatusUnprocessableEntity)
	if msg := r.doc.Find(`[data-field="note"]`).Text(); !strings.Contains(msg, "at most 500 characters") {
		t.Errorf("field error %q", msg)
	}
	if r.textarea("text") != text || r.textarea("note") != long {
		t.Error("the editor did not keep the text and the note")
	}
	if len(a.overrides()) != 0 {
		t.Error("something was stored")
	}
	rec := a.putText("/api/v1/overrides/base.identity?locale=en-US&note="+url.QueryEscape(long), text, "0")
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `"field":"note"`) {
		t.Errorf("API PUT with a long note: %d %s", rec.Code, rec.Body.String())
	}
}

// Saving the head's own text again says nothing changed and records
// nothing; so does discarding a draft that is gone already.
func TestNoOpSaveAndDiscardSayNothingChanged(t *testing.T) {
	t.Parallel()
	a := setup(t)
	editor := "/modules/base.identity/override/en-US"
	text := identityText(t, a, "You are the same assistant.")
	a.saveOverride("base.identity", "en-US", text, 0)
	r := a.post(editor, url.Values{"text": {text}, "revision": {"1"}}).want(t, http.StatusOK)
	if n := r.find("notice").Text(); !strings.Contains(n, "Nothing changed") {
		t.Errorf("notice %q", n)
	}
	a.saveDraft("base.identity", "en-US", identityText(t, a, "You are a draft."), 1)
	a.post(editor+"/discard", url.Values{"revision": {"2"}}).want(t, http.StatusSeeOther)
	again := a.post(editor+"/discard", url.Values{"revision": {"2"}}).want(t, http.StatusSeeOther)
	if f := a.follow(again).find("flash").Text(); !strings.Contains(f, "Nothing changed") {
		t.Errorf("flash after a discard posted again %q", f)
	}
	revs, err := a.store.ListRevisions(t.Context(), "base.identity", "en-US")
	if err != nil || len(revs) != 3 {
		t.Errorf("%d revisions (%v); want 3: create, save, discard", len(revs), err)
	}
}

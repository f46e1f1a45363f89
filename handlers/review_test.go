package handlers_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
)

// With change review on, the publish confirmation asks for review; its
// post makes a change request and serves nothing; the author's approval
// is refused (403) with the page as it is; a rejection needs a reason
// (422, the page keeping what was typed) and then serves nothing; the
// API's publish meanwhile is a conflict with the open request.
func TestChangeReviewSelfApprovalAndRejection(t *testing.T) {
	t.Parallel()
	a := setupReview(t)
	newUser(t, a.store, "eve", domain.RoleEditor)
	eve := a.as("eve")
	editor := "/modules/base.identity/override/en-US"
	a.saveDraft("base.identity", "en-US", identityText(t, a, "You are the reviewed assistant."), 0)
	if b := a.get(editor + "/publish").find("confirm-publish").Text(); !strings.HasPrefix(b, "Request review") {
		t.Errorf("publish button %q, want a review request", b)
	}
	r := a.post(editor+"/publish", url.Values{"revision": {"1"}, "note": {"Clearer role."}}).want(t, http.StatusSeeOther)
	page := a.follow(r).want(t, http.StatusOK)
	if page.find("request-note").Text() != "Note: Clearer role." || page.find("confirm-form").Length() != 0 {
		t.Errorf("the author's request page: note %q, approve form %d; want the note and no approve form", page.find("request-note").Text(), page.find("confirm-form").Length())
	}
	reqURL := r.Header().Get("Location")
	if head, _ := a.store.GetOverride(t.Context(), "base.identity", "en-US"); head.PublishedRevision != 0 {
		t.Fatalf("the request published revision %d", head.PublishedRevision)
	}
	// The API's publish asks too, one open request at a time.
	wantError(t, "API publish with a request open", a.api(http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=en-US", "", "If-Match", "1"),
		http.StatusConflict, "conflict", "id", "open change request already: #1, publish of revision 1 by tester")

	self := a.post(reqURL+"/approve", url.Values{}).want(t, http.StatusForbidden)
	if !strings.Contains(self.find("alert").Text()+self.Body.String(), "someone else") {
		t.Errorf("self-approval page does not say why:\n%.600s", self.find("alert").Text())
	}
	list := eve.get("/requests").want(t, http.StatusOK)
	if list.find("request-row").Length() != 1 || !strings.Contains(list.find("requests-open").Text(), "Clearer role.") {
		t.Errorf("open requests:\n%s", list.find("requests-open").Text())
	}
	bad := eve.post(reqURL+"/reject", url.Values{"reason": {"   "}}).want(t, http.StatusUnprocessableEntity)
	if bad.find("reject-form").Length() != 1 || !strings.Contains(bad.doc.Find(`[data-field="reason"]`).Text(), "say why") {
		t.Errorf("rejection without reason: the page does not ask for one")
	}
	eve.post(reqURL+"/reject", url.Values{"reason": {"Keep the old role for now."}}).want(t, http.StatusSeeOther)
	if head, _ := a.store.GetOverride(t.Context(), "base.identity", "en-US"); head.PublishedRevision != 0 {
		t.Errorf("the rejection published revision %d", head.PublishedRevision)
	}
	decided := eve.get(reqURL).want(t, http.StatusOK)
	if d := decided.find("request-decision").Text(); !strings.Contains(d, "Rejected by eve") || !strings.Contains(d, "Keep the old role for now.") {
		t.Errorf("decision %q", d)
	}
	if got := a.auditOf(t, domain.ActionReject); len(got) != 1 || got[0].Actor != "eve" || got[0].Note != "Keep the old role for now." {
		t.Errorf("reject audit %+v", got)
	}
}

// With change review on, the API's publish and delete make change
// requests (202, the request and its page) that serve nothing until
// another editor approves them in the console; then the change serves.
func TestChangeReviewThroughTheAPI(t *testing.T) {
	t.Parallel()
	a := setupReview(t)
	newUser(t, a.store, "eve", domain.RoleEditor)
	eve := a.as("eve")
	const target = "/api/v1/overrides/base.identity?locale=en-US"
	wantSaved(t, "draft", a.putText(target, identityText(t, a, "You are the API-reviewed assistant."), ""), true, 1, "draft")

	accepted := func(rec *httptest.ResponseRecorder) handlers.APIChangeRequest {
		t.Helper()
		var r handlers.APIChangeRequest
		if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || rec.Code != http.StatusAccepted {
			t.Fatalf("%d %s, want 202 with the change request (%v)", rec.Code, rec.Body.String(), err)
		}
		return r
	}
	rec := a.api(http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=en-US&note=From+CI", "", "If-Match", "1")
	r := accepted(rec)
	if rec.Code != http.StatusAccepted || r.Action != domain.ActionPublish || r.Revision != 1 || r.Status != domain.RequestOpen ||
		r.Author != handlers.TokenActor(testToken) || r.Note != "From CI" || r.URL != rec.Header().Get("Location") || r.URL != "/requests/"+strconv.FormatInt(r.ID, 10) {
		t.Fatalf("publish under review: %d %+v (Location %q)", rec.Code, r, rec.Header().Get("Location"))
	}
	if head, _ := a.store.GetOverride(t.Context(), "base.identity", "en-US"); head.PublishedRevision != 0 {
		t.Fatalf("the API's request published revision %d", head.PublishedRevision)
	}
	wantError(t, "stale request", a.api(http.MethodDelete, target, "", "If-Match", "2"), http.StatusPreconditionFailed, "precondition_failed", "If-Match", "revision 1")

	eve.post(r.URL+"/approve", url.Values{"note": {"Looks right."}}).want(t, http.StatusSeeOther)
	if head, _ := a.store.GetOverride(t.Context(), "base.identity", "en-US"); head.PublishedRevision != 1 {
		t.Fatalf("approved: published revision %d, want 1", head.PublishedRevision)
	}

	rec = a.api(http.MethodDelete, target, "", "If-Match", "1")
	d := accepted(rec)
	if rec.Code != http.StatusAccepted || d.Action != domain.ActionDelete || d.ID == r.ID {
		t.Fatalf("delete under review: %d %+v", rec.Code, d)
	}
	if _, err := a.store.GetOverride(t.Context(), "base.identity", "en-US"); err != nil {
		t.Fatalf("the delete request deleted the override: %v", err)
	}
	eve.post(d.URL+"/approve", url.Values{}).want(t, http.StatusSeeOther)
	if _, err := a.store.GetOverride(t.Context(), "base.identity", "en-US"); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("approved delete: the override is still there (%v)", err)
	}
}

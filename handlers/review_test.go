package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
)

// With change review on, the publish confirmation asks for review; its
// post makes a change request and serves nothing; the author's approval
// is refused (403) with the page as it is; a rejection needs a reason
// (422, the page keeping what was typed) and then serves nothing; the
// API's direct publish is refused too.
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
	if rec := a.api(http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=en-US", "", "If-Match", "1"); rec.Code != http.StatusForbidden {
		t.Errorf("API publish with review on: %d %s, want 403", rec.Code, rec.Body.String())
	}

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

package handlers_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2EChangeReview: with change review on, the author publishes a
// draft through its confirmation with a note, which makes a change
// request; a second editor logs in, finds it in the list of open
// requests, reads the note and the served diff, approves it, and the
// draft serves.
func TestE2EChangeReview(t *testing.T) {
	t.Parallel()
	a := setupReview(t)
	newUser(t, a.store, "eve", domain.RoleEditor)
	a.saveDraft("base.identity", "en-US", identityText(t, a, "You are the approved assistant."), 0)
	srv := httptest.NewServer(a.h)
	t.Cleanup(srv.Close)
	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	ctx, step, text := p.Ctx, p.Step, p.Text

	p.Navigate("/modules/base.identity/override/en-US/publish", `[data-testid="confirm-form"]`)
	step("type the note", chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`[data-testid="note"]`), "The role says what it answers for.")))
	_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-publish"]`)))
	step("request the publish", err)
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "Change request #1 made") {
		t.Errorf("flash %q", got)
	}
	if o := a.served(t); o != 0 {
		t.Fatalf("revision %d serves before the approval", o)
	}

	_, err = chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{})
	step("log out", err)
	step("log in as eve", browsertest.Login(ctx, srv.URL, "eve", testPassword))
	p.Navigate("/requests", `[data-testid="request-row"]`)
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="request-link"]`)))
	step("open the request", err)
	if got := text(`[data-testid="request-note"]`); got != "Note: The role says what it answers for." {
		t.Errorf("request note %q", got)
	}
	if got := text(`[data-testid="confirm-diff"]`); !strings.Contains(got, "You are the approved assistant.") {
		t.Errorf("served diff %q does not show the draft", got)
	}
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-approve"]`)))
	step("approve", err)
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "approved") {
		t.Errorf("flash %q", got)
	}
	if o := a.served(t); o != 1 {
		t.Errorf("revision %d serves after the approval, want 1", o)
	}
	head, err := a.store.GetOverride(t.Context(), "base.identity", "en-US")
	if err != nil || head.Published.By != "eve" || head.Published.Note != "The role says what it answers for." {
		t.Errorf("publication %+v, %v; want eve with the author's note", head.Published, err)
	}
}

// served is the revision of base.identity (en-US) that serves, 0 for none.
func (a *app) served(t *testing.T) int {
	t.Helper()
	for _, o := range a.overrides() {
		if o.ModuleID == "base.identity" && o.Locale == "en-US" {
			return o.PublishedRevision
		}
	}
	return 0
}

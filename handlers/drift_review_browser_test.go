package handlers_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/web/browsertest"

	"github.com/promptdesk/promptdesk/library/linediff"
)

// TestE2EDriftReviewRebaseAndHistory drives the drift review and the
// history in headless Chromium: review a drifted override with a
// conflict, rebase it (refused while markers remain), publish the rebased
// draft through its confirmation, then restore its first revision from
// the history. Screenshots go to
// $PROMPTDESK_SCREENSHOTS, else to a temp folder named in the log.
func TestE2EDriftReviewRebaseAndHistory(t *testing.T) {
	t.Parallel()
	mine := func(s string) string {
		s = mineOpening(s)
		return replaceLine(t, s, lineNoInvent, "- Do not invent a product name or a company; say \"this workspace's assistant\".")
	}
	upstream := func(s string) string {
		s = upstreamClosing(s)
		return replaceLine(t, s, lineNoInvent, "- Do not invent a product name, a company, a version or a release date.")
	}
	d := newDrifted(t, mine, upstream)
	srv := httptest.NewServer(d.after.h)
	t.Cleanup(srv.Close)

	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	ctx := p.Ctx
	step, text, value, shot := p.Step, p.Text, p.Value, p.Shot
	step("open the drift list", chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/drift")))
	// click follows a link or submits a form, then waits for waitFor.
	click := func(sel, waitFor string) {
		t.Helper()
		_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel)))
		step("click "+sel, err)
		step("wait for "+waitFor, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(waitFor))))
	}

	// The drift list links to the review, which leads with the two diffs
	// and the rebase editor, holding the merged text with one conflict.
	click(`[data-testid="review-link"]`, `[data-testid="review-diffs"]`)
	step("wait for the rebase editor", chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="rebase-editor"]`))))
	if got := text(`[data-testid="rebase-conflict-count"]`); got != "1 conflict" {
		t.Errorf("rebase editor says %q", got)
	}
	shot("drift-review")
	merged := value("#f-text")
	if !strings.Contains(merged, linediff.MarkerOverride) || !strings.Contains(merged, "research desk") || !strings.Contains(merged, "When a question about yourself") {
		t.Fatalf("rebase editor text:\n%s", merged)
	}
	shot("drift-rebase-conflict")

	// Saving with the markers in is refused and keeps the text.
	click(`[data-testid="save-rebase"]`, `[data-testid="line-error"]`)
	if kept := value("#f-text"); kept != merged {
		t.Error("the refused rebase lost the text")
	}
	shot("drift-rebase-refused")

	// Resolved, it saves as a draft and leads to the publish
	// confirmation, which shows what changes; published, the drift list
	// is empty.
	resolved := resolve(merged, "- Do not invent a product name, a company, a version or a release date; say \"this workspace's assistant\".")
	step("resolve", chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#f-text"), resolved)))
	click(`[data-testid="save-rebase"]`, `[data-testid="confirm-publish"]`)
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "Rebased") || !strings.Contains(got, "draft revision 2") {
		t.Errorf("flash %q", got)
	}
	if o := d.head(t); o.Revision != 2 || o.Text != resolved || !o.Draft {
		t.Errorf("after the rebase: revision %d, draft %v, text resolved %v", o.Revision, o.Draft, o.Text == resolved)
	}
	if got := text(`[data-testid="confirm-diff"]`); !strings.Contains(got, "a version or a release date; say") {
		t.Errorf("the publish confirmation does not show the resolved line:\n%s", got)
	}
	shot("drift-rebase-confirm-publish")
	click(`[data-testid="confirm-publish"]`, `[data-testid="flash"]`)
	step("open the drift list", chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/drift"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="no-drift"]`))))

	// The history shows both revisions; restore the first.
	step("open the module", chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/modules/base.identity")))
	click(`[data-testid="locale"][data-locale="en-US"] [data-testid="history-link"]`, `[data-testid="revision"]`)
	click(`[data-testid="revision"][data-revision="1"] [data-testid="restore"]`, `[data-testid="flash"]`)
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "restored as revision 3") {
		t.Errorf("flash %q", got)
	}
	click(`[data-testid="locale"][data-locale="en-US"] [data-testid="history-link"]`, `[data-testid="revision"]`)
	shot("history")
	if o := d.head(t); o.Revision != 3 || o.Text != d.override {
		t.Errorf("after the restore: revision %d, text is revision 1's %v", o.Revision, o.Text == d.override)
	}
}

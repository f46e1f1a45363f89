package handlers_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2EDriftReviewKeepMine logs in to a console whose library moved
// base.identity on after it was overridden, opens the drift from the
// list, reads why, keeps the override through its confirmation and sees the drift list empty and
// the override based on the new builtin version, text unchanged.
func TestE2EDriftReviewKeepMine(t *testing.T) {
	t.Parallel()
	d := newDrifted(t, mineOpening, upstreamClosing)
	srv := httptest.NewServer(d.after.h)
	t.Cleanup(srv.Close)
	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	ctx := p.Ctx
	step, text := p.Step, p.Text
	step("open the drift list", chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/drift"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="drift-row"]`))))
	if got := text(`[data-testid="drift-row"]`); !strings.Contains(got, "builtin version raised") {
		t.Errorf("drift row %q does not say why", got)
	}
	_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="review-link"]`)))
	step("open the review", err)
	if got := text(`[data-testid="review-reason"]`); !strings.Contains(got, "v1 to v2") {
		t.Errorf("review reason %q", got)
	}
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="keep-mine"]`)))
	step("open the keep-mine confirmation", err)
	if got := text(`[data-testid="confirm-same"]`); !strings.Contains(got, "does not change") {
		t.Errorf("confirmation %q; want it to say the served text does not change", got)
	}
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-keep-mine"]`)))
	step("keep mine", err)
	step("wait for the empty list", chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="no-drift"]`))))
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "Kept the override") {
		t.Errorf("flash %q", got)
	}
	if o := d.head(t); o.BasedOnVersion != d.builtin.Version || o.Text != d.override || o.Draft {
		t.Errorf("kept override: based on v%d, draft %v, text kept %v; want v%d, published, unchanged", o.BasedOnVersion, o.Draft, o.Text == d.override, d.builtin.Version)
	}
}

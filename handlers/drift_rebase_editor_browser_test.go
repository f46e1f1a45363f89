package handlers_test

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2ERebaseEditorResolvesConflictsPerHunk drives the rebase editor
// of the drift review in headless Chromium: an override and a new
// builtin that both changed the opening line and the "do not invent"
// line give two conflicts; the editor goes from one to the next, takes
// the override's side of the first and the builtin's of the second, and
// the saved draft is the builtin now with the override's opening line.
func TestE2ERebaseEditorResolvesConflictsPerHunk(t *testing.T) {
	t.Parallel()
	const (
		mineNoInvent     = "- Do not invent a product name or a company; say \"this workspace's assistant\"."
		upstreamOpening  = "You are the helpful assistant of this workspace"
		upstreamNoInvent = "- Do not invent a product name, a company, a version or a release date."
	)
	mine := func(s string) string {
		return replaceLine(t, mineOpening(s), lineNoInvent, mineNoInvent)
	}
	upstream := func(s string) string {
		return replaceLine(t, strings.Replace(s, lineOpening, upstreamOpening, 1), lineNoInvent, upstreamNoInvent)
	}
	d := newDrifted(t, mine, upstream)
	want := strings.Replace(d.builtin.Text, upstreamOpening, "You are the research desk's assistant", 1)
	if want == d.builtin.Text || !strings.Contains(want, upstreamNoInvent) {
		t.Fatalf("the expected text is not the builtin with the override's opening:\n%s", want)
	}
	srv := httptest.NewServer(d.after.h)
	t.Cleanup(srv.Close)
	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	ctx := p.Ctx
	click := func(sel string) {
		t.Helper()
		p.Step("click "+sel, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))))
	}
	// status waits until the conflict bar says want.
	status := func(want string) {
		t.Helper()
		sel := `[data-testid="conflict-status"]`
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('`+sel+`').textContent === `+strconv.Quote(want))); err != nil {
			t.Fatalf("conflict bar says %q, want %q", p.Text(sel), want)
		}
	}
	// cursorLine is the number of the line holding the cursor.
	cursorLine := func() string {
		t.Helper()
		return p.Text(`.cm-activeLineGutter`)
	}

	p.Navigate(reviewPath, `form[data-editor="ready"] .cm-editor`)
	// The page leads with the builtin's change and the override against
	// the builtin now, then the editor; the three texts are folded away.
	order := evaluate[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="review-diffs"], [data-testid="rebase-editor"], [data-testid="three-texts"]')].map(e => e.dataset.testid)`)
	if strings.Join(order, " ") != "review-diffs rebase-editor three-texts" {
		t.Errorf("page order %v", order)
	}
	if evaluate[bool](t, ctx, `document.querySelector('[data-testid="review-more"]').open`) {
		t.Error("the three texts are unfolded")
	}
	status("2 conflicts left.")
	lines := evaluate[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="conflict"]')].map(e => e.dataset.line)`)
	if len(lines) != 2 {
		t.Fatalf("the server lists the conflicts at lines %v, want two", lines)
	}

	// Navigation: first, next, next again wraps to the first, previous
	// wraps to the last.
	for _, step := range []struct{ button, line string }{
		{"conflict-first", lines[0]}, {"conflict-next", lines[1]}, {"conflict-next", lines[0]}, {"conflict-prev", lines[1]},
	} {
		click(`[data-testid="` + step.button + `"]`)
		if got := cursorLine(); got != step.line {
			t.Errorf("after %s the cursor is on line %s, want %s", step.button, got, step.line)
		}
	}
	p.ShotViewport("rebase-editor-conflicts")

	// Take mine on the first conflict, the builtin on the one left.
	click(`[data-conflict="1"] [data-testid="hunk-take-mine"]`)
	status("1 conflict left.")
	if got := p.Text(`[data-conflict="1"] .cm-conflict-label`); got != "Conflict 1 of 1:" {
		t.Errorf("the conflict left is labelled %q", got)
	}
	click(`[data-conflict="1"] [data-testid="hunk-take-builtin"]`)
	status("No conflict left: check the text and save it.")
	if got := p.Value("#f-text"); got != want {
		t.Errorf("the form's text after both takes:\n%s\nwant:\n%s", got, want)
	}
	p.ShotViewport("rebase-editor-resolved")

	// Saved: the draft is the resolved text, on to its publish page.
	_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="save-rebase"]`)))
	p.Step("save the rebase", err)
	p.Step("wait for the publish confirmation", chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="confirm-publish"]`))))
	if o := d.head(t); o.Revision != 2 || !o.Draft || o.Text != want {
		t.Errorf("stored: revision %d, draft %v, text:\n%s\nwant:\n%s", o.Revision, o.Draft, o.Text, want)
	}
}

package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2EImpactOfAnEditThenPublish drives the real server in headless
// Chromium: an editor changes task.doc-minutes (zh-CN), clicks Show
// impact and sees the two seeded minutes scenarios listed with their
// diffs (htmx swaps the panel in, nothing saved), saves the draft,
// publishes it through the confirmation page, which shows the served
// text's diff and the same impact, and finds it served.
func TestE2EImpactOfAnEditThenPublish(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	startServer(t, srv)
	base := srv.URL()
	p := browsertest.Open(t, base, testUser, testPassword)
	ctx := p.Ctx
	step, text, shot := p.Step, p.Text, p.Shot
	ids := func(sel string) string {
		t.Helper()
		out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('`+sel+`')).map(e => e.dataset.id)`))
		step("read "+sel, err)
		return strings.Join(out, ",")
	}

	// Open the zh-CN editor of task.doc-minutes from its module page.
	step("open the module", chromedp.Do(ctx, chromedp.Navigate(base+"/modules/task.doc-minutes"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="where-used"]`))))
	if got := ids(`[data-testid="used-scenario"]`); got != "command-minutes-zh,minutes-zh" {
		t.Errorf("where used lists %q", got)
	}
	shot("impact-module-where-used")
	_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="locale"][data-locale="zh-CN"] [data-testid="create-override"]`)))
	step("open the editor", err)
	original, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#f-text")))
	step("read the textarea", err)
	const line = "每条行动项都写明负责人和截止日期。"
	edited := strings.TrimRight(original, "\n") + "\n\n" + line + "\n"

	// Show impact: htmx swaps the panel in under the form.
	step("show impact", chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#f-text"), edited),
		chromedp.Click(chromedp.CSS(`[data-testid="show-impact"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="impact-scenario"]`)),
	))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	step("read the location", err)
	if !strings.HasSuffix(loc, "/modules/task.doc-minutes/override/zh-CN") {
		t.Errorf("Show impact left the editor for %s", loc)
	}
	if got := ids(`[data-testid="impact-scenario"]`); got != "command-minutes-zh,minutes-zh" {
		t.Errorf("the impact lists %q, want the two minutes scenarios", got)
	}
	if got := text(`[data-testid="impact-count"]`); got != "2 of 5 change" {
		t.Errorf("impact count %q", got)
	}
	if got := text(`[data-testid="impact-scenario"][data-id="minutes-zh"] [data-testid="impact-diff"]`); !strings.Contains(got, line) {
		t.Errorf("the minutes diff lacks the new line:\n%s", got)
	}
	if kept, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#f-text"))); kept != edited {
		t.Error("Show impact lost the typed text")
	}
	if _, err := st.GetOverride(context.Background(), "task.doc-minutes", "zh-CN"); err == nil {
		t.Fatal("Show impact saved the override")
	}
	shot("impact-editor-panel")

	// The panel follows the text when a live editor says it changed.
	const second = "纪要末尾注明下次会议时间。"
	step("change the text", chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#f-text"), strings.TrimRight(edited, "\n")+"\n"+second+"\n")))
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("f-text").dispatchEvent(new Event("text-changed"))`))
	step("dispatch text-changed", err)
	// htmx swaps the panel while this polls, so a read can find its node
	// gone: only the deadline fails the test.
	waitFor := func(what, sel, want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), chromedp.AtLeast(0)))
			if err == nil && strings.Contains(got, want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s never showed %q (last read %q, %v)", what, sel, want, got, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("text-changed refresh", `[data-testid="impact-scenario"][data-id="minutes-zh"] [data-testid="impact-diff"]`, second)

	// Save the draft (back to the first edit), then publish through the
	// confirmation.
	step("set the text", chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#f-text"), edited)))
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="save"]`)))
	step("save", err)
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "draft saved, not served yet") {
		t.Errorf("flash %q", got)
	}
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="locale"][data-locale="zh-CN"] [data-testid="publish-draft"]`)))
	step("open the publish confirmation", err)
	if got := text(`[data-testid="confirm-diff"]`); !strings.Contains(got, line) {
		t.Errorf("the confirmation's diff lacks the new line:\n%s", got)
	}
	if got := ids(`[data-testid="impact-scenario"]`); got != "command-minutes-zh,minutes-zh" {
		t.Errorf("the confirmation's impact lists %q", got)
	}
	if head, err := st.GetOverride(context.Background(), "task.doc-minutes", "zh-CN"); err != nil || !head.Draft {
		t.Fatalf("before confirming: draft %v (%v)", head.Draft, err)
	}
	shot("impact-confirm-publish")
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-publish"]`)))
	step("confirm", err)
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "published: revision 1 is served") {
		t.Errorf("flash %q", got)
	}
	if src := text(`[data-testid="locale"][data-locale="zh-CN"] [data-testid="body"]`); !strings.Contains(src, line) {
		t.Error("the module page does not serve the published text")
	}
	shot("impact-published")
}

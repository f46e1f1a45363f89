package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2EScenarioSaveChangeAccept drives the console in headless
// Chromium: choosing an example loads its request into the form at once,
// the preview copies its chat messages exactly as the API's text, the
// preview is saved as a scenario with its output accepted, a published
// override changes it (marked changed on /scenarios, with the diff), and
// accepting it there makes it unchanged.
func TestE2EScenarioSaveChangeAccept(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	startServer(t, srv)
	base := srv.URL()
	p := browsertest.Open(t, base, testUser, testPassword)
	ctx := p.Ctx
	step, text, attr, shot := p.Step, p.Text, p.Attr, p.Shot

	// Choosing a scenario loads its JSON into the textarea at once, and
	// the select keeps naming it.
	step("open the preview", chromedp.Do(ctx, chromedp.Navigate(base+"/preview"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="scenario-select"]`))))
	step("choose translate-en", chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="scenario-select"]`), "translate-en"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="scenario-select"]').dispatchEvent(new Event("change", {bubbles: true}))`),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="scenario-loaded"]:not(:empty)`)),
	))
	loaded, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#p-request")))
	step("read the textarea", err)
	var req map[string]any
	if err := json.Unmarshal([]byte(loaded), &req); err != nil || req["locale"] != "en-US" || req["model"] != "claude-sonnet-4" {
		t.Fatalf("the textarea holds %q (%v), want the translate-en request", loaded, err)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`[data-testid="scenario-select"]`))); v != "translate-en" {
		t.Errorf("the select names %q after loading, want translate-en", v)
	}
	step("assemble", chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="run-preview"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview-result"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="copy-chat"]`)),
	))
	// The result says which scenario ran, the select still names it, and
	// the result's heading has the focus, in view.
	if got := text(`[data-testid="result-source"]`); got != `scenario "translate-en"` {
		t.Errorf("the result says it assembled %q", got)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`[data-testid="scenario-select"]`))); v != "translate-en" {
		t.Errorf("after Assemble the select names %q, want translate-en", v)
	}
	focus, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const e = document.activeElement, r = e.getBoundingClientRect(); return e.id + (r.top >= 0 && r.bottom <= innerHeight ? " in view" : " out of view at " + r.top); })()`))
	step("read the focus", err)
	if focus != "preview-result-heading in view" {
		t.Errorf("after Assemble the focus is on %q, want the result's heading in view", focus)
	}

	// "Copy as chat messages" writes one system message whose content is
	// the API's text, byte for byte.
	token := newToken(t, st, "e2e", domain.ScopeAssemble)
	rec := serveAPI(srv.Handler(), http.MethodPost, "/api/v1/assemble", loaded, token)
	var api struct{ Text string }
	if err := json.Unmarshal(rec.Body.Bytes(), &api); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("API assemble: %d %s", rec.Code, rec.Body.String())
	}
	step("copy", chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`navigator.clipboard.writeText = function (t) { window.copiedText = t; return Promise.resolve(); }`),
		chromedp.Click(chromedp.CSS(`[data-testid="copy-chat"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="copy-status"]:not(:empty)`)),
	))
	copied, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.copiedText`))
	step("read the copied text", err)
	var msgs []struct{ Role, Content string }
	if err := json.Unmarshal([]byte(copied), &msgs); err != nil || len(msgs) != 1 || msgs[0].Role != "system" || msgs[0].Content != api.Text {
		t.Errorf("copied %.300q (%v), want one system message with the API's text", copied, err)
	}
	if strings.Contains(copied, `\u003c`) || strings.Contains(copied, `\u0026`) {
		t.Error("the chat messages JSON escapes HTML characters")
	}
	step("copy text", chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="copy-text"]`))))
	if copied, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.copiedText`)); copied != api.Text {
		t.Errorf("Copy text copied %.200q, want the API's text", copied)
	}
	shot("preview-result")

	// Save the preview as a scenario, its output accepted.
	_, err = chromedp.RunResponse(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="save-name"]`), "Translate check"),
		chromedp.SetValue(chromedp.CSS(`[data-testid="save-description"]`), "Guards the translation prompt"),
		chromedp.Click(chromedp.CSS(`[data-testid="save-scenario"]`)))
	step("save as scenario", err)
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "Scenario Translate check saved (id translate-check)") || !strings.Contains(got, "is accepted") {
		t.Errorf("flash %q", got)
	}
	if s := attr(`[data-testid="scenario-run"]`, "data-status"); s != "unchanged" {
		t.Fatalf("the saved scenario is %q, want unchanged", s)
	}
	shot("scenario-saved")

	// Publish a changed base.identity: the scenario's output changes.
	const line = "Sign every answer with the name of this browser test."
	m, _ := srv.served.Current().Library.Module("base.identity", "en-US")
	edited := strings.TrimRight(m.Text, "\n") + "\n\n" + line + "\n"
	actx := domain.WithActor(context.Background(), "e2e")
	out, err := srv.overrides.Save(actx, state.Edit{ID: "base.identity", Locale: "en-US", Text: edited})
	if err != nil || out.Kind != state.OutcomeStored {
		t.Fatalf("save the override: %v %+v", err, out)
	}
	if _, err := srv.overrides.Publish(actx, "base.identity", "en-US", out.Saved.Revision); err != nil {
		t.Fatal(err)
	}

	card := `[data-testid="scenario-run"][data-id="translate-check"]`
	step("open /scenarios", chromedp.Do(ctx, chromedp.Navigate(base+"/scenarios"), chromedp.WaitVisible(chromedp.CSS(card))))
	if s := attr(card, "data-status"); s != "changed" {
		t.Fatalf("after the override /scenarios marks it %q, want changed", s)
	}
	if got := text(card + ` [data-testid="text-diff"] .dl-insert`); !strings.Contains(got, line) {
		t.Errorf("the text diff's inserted lines %q lack %q", got, line)
	}
	if got := text(card + ` [data-testid="report-diff"] .dl-insert`); !strings.Contains(got, "prompt(base.identity v1 · default · override r1)") {
		t.Errorf("the report diff's inserted lines %q lack the override", got)
	}
	if got := text(`[data-testid="count-changed"]`); got != "1 changed" {
		t.Errorf("summary %q", got)
	}
	shot("scenarios-changed")

	// Accept it on the list: it is unchanged from then on.
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(card+` [data-testid="accept"]`)))
	step("accept", err)
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "Accepted the output of Translate check") {
		t.Errorf("flash %q", got)
	}
	if s := attr(card, "data-status"); s != "unchanged" {
		t.Errorf("after accepting, the scenario is %q", s)
	}
	if by := text(card + ` [data-testid="accepted-by"]`); by != testUser {
		t.Errorf("accepted by %q, want %s", by, testUser)
	}
	shot("scenarios-accepted")

	// Re-run all (htmx) keeps it unchanged.
	step("re-run all", chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="rerun-all"]`)), chromedp.WaitVisible(chromedp.CSS(card+`[data-status="unchanged"]`))))
}

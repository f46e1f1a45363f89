package web

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2EOverrideFlow drives the real server in headless Chromium: it
// overrides base.identity through the editor (hitting a line error first),
// sees the library mark it overridden, finds the new text in a preview of
// an example scenario in en-US, and saves screenshots of every page.
func TestE2EOverrideFlow(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(ctx context.Context, st *store.Store, lib *library.Snapshot) {
		// A drifted override (the builtin text changed at the same
		// version) and a profile, so that /drift and /profiles show rows.
		m, _ := lib.Module("base.caution", "en-US")
		text := strings.Replace(m.Text, "\n---\n", "\n---\nDouble-check every destructive action.\n\n", 1)
		if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: m.ID, Locale: "en-US", Text: text, Title: m.Title, Version: m.Version,
			BasedOnVersion: m.Version, BaseSnapshot: "an older builtin text", Author: "alice", Publish: true}, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateProfile(ctx, domain.Profile{ID: "support", Name: "Support desk", Locale: "zh-CN", Model: "gpt-4o",
			TimeZone: "Asia/Shanghai", PromptModules: []string{"base.identity", "base.behavior", "style.learning"},
			SystemPrompt: "Keep answers short.", SkillDisclosure: true, TokenBudget: 8000}); err != nil {
			t.Fatal(err)
		}
	})
	startServer(t, srv)
	base := srv.URL()

	p := browsertest.Open(t, base, testUser, testPassword)
	ctx := p.Ctx
	step, text, attr, shot, navigate := p.Step, p.Text, p.Attr, p.Shot, p.Navigate
	identityRow := `[data-testid="module-row"][data-id="base.identity"]`

	// The library lists base.identity as builtin.
	step("library", chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(identityRow))))
	if s := attr(identityRow, "data-status"); s != "builtin" {
		t.Fatalf("base.identity is %q before the override", s)
	}
	shot("library")

	// Open the module, then its en-US override editor.
	_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(identityRow+` a[data-testid="module-link"]`)))
	step("open base.identity", err)
	if got := text(`[data-testid="module-id"]`); got != "base.identity" {
		t.Fatalf("module page shows %q", got)
	}
	shot("module-base.identity")
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="locale"][data-locale="en-US"] [data-testid="create-override"]`)))
	step("open the editor", err)
	original, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#f-text")))
	step("read the textarea", err)
	if !strings.HasPrefix(original, "---\nid: base.identity\n") {
		t.Fatalf("the editor is not prefilled with the builtin text:\n%.200s", original)
	}

	// A broken version is refused with the message under line 4, text kept.
	broken := strings.Replace(original, "\nversion: 1\n", "\nversion: 1.10\n", 1)
	_, err = chromedp.RunResponse(ctx, chromedp.SetValue(chromedp.CSS("#f-text"), broken), chromedp.Click(chromedp.CSS(`[data-testid="save"]`)))
	step("save the broken text", err)
	if line := attr(`[data-testid="line-error"]`, "data-line"); line != "4" {
		t.Errorf("the error is under line %q, want 4", line)
	}
	kept, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#f-text")))
	step("read the textarea", err)
	if kept != broken {
		t.Error("the editor lost the typed text")
	}
	shot("editor-error")

	// The fixed text saves and leads back to the module page.
	const newText = "You are Quill, the assistant this browser test configured."
	first, _, _ := strings.Cut(strings.SplitN(original, "\n---\n", 2)[1], "\n")
	edited := strings.Replace(original, first, newText, 1)
	_, err = chromedp.RunResponse(ctx, chromedp.SetValue(chromedp.CSS("#f-text"), edited), chromedp.Click(chromedp.CSS(`[data-testid="save"]`)))
	step("save the override", err)
	// A draft: the builtin still serves until it is published.
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "draft saved, not served yet: revision 1") {
		t.Errorf("flash %q", got)
	}
	if s := attr(`[data-testid="locale"][data-locale="en-US"]`, "data-source"); s != "builtin" {
		t.Errorf("with only a draft, en-US is served by %q", s)
	}
	shot("module-draft")
	// Publish leads to its confirmation, which shows what changes.
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="locale"][data-locale="en-US"] [data-testid="publish-draft"]`)))
	step("open the publish confirmation", err)
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="confirm-publish"]`)))
	step("publish the draft", err)
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "published: revision 1 is served") {
		t.Errorf("flash %q", got)
	}
	if s := attr(`[data-testid="locale"][data-locale="en-US"]`, "data-source"); s != "override" {
		t.Errorf("en-US is served by %q", s)
	}

	// The library marks it overridden.
	navigate("/", identityRow)
	if s := attr(identityRow, "data-status"); s != "overridden" {
		t.Errorf("the library shows base.identity as %q, want overridden", s)
	}
	shot("library-overridden")

	// Typing in the search box filters the list in place (htmx), and the
	// address follows so the filtered page can be shared.
	step("search", chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#f-q"), "identity"),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="module-row"][data-id="base.behavior"]`)),
	))
	if s := attr(identityRow, "data-status"); s != "overridden" {
		t.Errorf("the filtered list shows base.identity as %q", s)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	step("read the location", err)
	if !strings.Contains(loc, "q=identity") {
		t.Errorf("location %q does not carry the search", loc)
	}

	navigate("/drift", `[data-testid="drift-row"]`)
	if id := attr(`[data-testid="drift-row"]`, "data-id"); id != "base.caution" {
		t.Errorf("drift lists %q", id)
	}
	shot("drift")
	navigate("/profiles", `[data-testid="profile-row"]`)
	shot("profiles")

	// Preview an example scenario in en-US: htmx swaps the result in.
	navigate("/preview", `[data-testid="scenario-select"]`)
	scenario := attr(`[data-testid="scenario-select"] option:nth-child(2)`, "value")
	step("run the preview", chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="scenario-select"]`), scenario),
		chromedp.SetValue(chromedp.CSS(`[data-testid="locale-input"]`), "en-US"),
		chromedp.Click(chromedp.CSS(`[data-testid="run-preview"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview-result"]`)),
	))
	if loc := text(`[data-testid="result-locale"]`); loc != "en-US" {
		t.Errorf("the preview assembled %q", loc)
	}
	if full := text(`[data-testid="full-text"]`); !strings.Contains(full, newText) {
		t.Errorf("the preview of %s does not contain the override text", scenario)
	}
	if s := attr(`[data-testid="report-entry"][data-module="base.identity"]`, "data-source"); s != "override" {
		t.Errorf("the composition panel shows base.identity from %q", s)
	}
	shot("preview")
}

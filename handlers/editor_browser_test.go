package handlers_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2EEditorOverride drives the override editor in headless Chromium
// on a real server and database: a broken placeholder typed into
// task.doc-minutes (en-US) is marked on its line by the live check
// without a submit, completion finishes a module id placeholder, the live
// diff against the builtin follows the typing, and Ctrl-S saves the draft.
// Screenshots go to $PROMPTDESK_SCREENSHOTS, else to a temp folder named
// in the log.
func TestE2EEditorOverride(t *testing.T) {
	t.Parallel()
	a := setup(t)
	srv := httptest.NewServer(a.h)
	t.Cleanup(srv.Close)
	builtin := builtinText(t, a.lib, "task.doc-minutes", "en-US").Text

	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	ctx := p.Ctx
	step, text, shot := p.Step, p.Text, p.ShotViewport
	// Script errors and what the Content-Security-Policy refuses (an
	// inline style, say) must not happen: the editor would half work.
	var mu sync.Mutex
	var pageErrors []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError && e.Entry.Source != cdplog.EntrySourceNetwork {
				pageErrors = append(pageErrors, string(e.Entry.Source)+": "+e.Entry.Text)
			}
		case *runtime.EventExceptionThrown:
			pageErrors = append(pageErrors, fmt.Sprintf("exception: %s %v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception))
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range pageErrors {
			t.Errorf("page error: %s", e)
		}
	})
	// waitFor polls the page until js is true.
	waitFor := func(what, js string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
		step("wait for "+what, err)
	}
	// typeKeys types into the focused element, the editor: SendKeys would
	// focus it anew and put the cursor at its start.
	typeKeys := func(keys string) {
		t.Helper()
		step("type "+keys, chromedp.Do(ctx, chromedp.KeyEvent(keys)))
	}
	// accept takes the selected completion with Enter; the editor ignores
	// Enter for its interaction delay (75 ms) after the list opens.
	accept := func() {
		t.Helper()
		time.Sleep(150 * time.Millisecond)
		step("accept the completion", chromedp.Do(ctx, pressEnter()))
	}
	textarea := func() string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#f-text")))
		step("read the textarea", err)
		return s
	}

	// The editor enhances the textarea, checks the text as loaded and
	// shows no diff against the builtin it equals.
	step("open the editor", chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/modules/task.doc-minutes/override/en-US"),
		chromedp.WaitVisible(chromedp.CSS(`form[data-editor="ready"] .cm-editor`))))
	if !evaluate[bool](t, ctx, `document.getElementById("f-text").hidden && document.querySelector('[data-testid="builtin-diff"]').hidden`) {
		t.Error("the textarea or the page's static diff is still shown beside the editor")
	}
	waitFor("the first check", `document.querySelector('[data-testid="problems-status"]').textContent.startsWith("No errors")`)
	if got := text(`[data-testid="diff-summary"]`); !strings.HasPrefix(got, "no changes against the builtin text (en-US, version 1)") {
		t.Errorf("diff summary %q", got)
	}

	// A broken placeholder on a new last line: marked on that line by the
	// live check, listed beside the editor, and nothing is submitted.
	step("go to the end", chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(".cm-content")), chromedp.KeyEvent(kb.End, chromedp.KeyModifiers(chromedp.ModifierCtrl))))
	typeKeys("Check {{nope}}")
	line := strings.Count(strings.TrimSuffix(builtin, "\n"), "\n") + 2
	if !strings.HasSuffix(textarea(), "\nCheck {{nope}}") {
		shot("debug")
		t.Fatalf("the textarea does not follow the editor; it starts %q, ends %q", textarea()[:40], textarea()[len(textarea())-40:])
	}
	waitFor("the diagnostic", `document.querySelector('.cm-lintRange-error') !== null`)
	marked := evaluate[struct{ Mark, Line string }](t, ctx, `(() => { const m = document.querySelector('.cm-lintRange-error'); return {Mark: m.textContent, Line: m.closest('.cm-line').textContent}; })()`)
	if marked.Mark != "{{nope}}" || marked.Line != "Check {{nope}}" {
		t.Errorf("the error marks %q on the line %q", marked.Mark, marked.Line)
	}
	problem := fmt.Sprintf(`[data-testid="problem"][data-severity="error"][data-line="%d"]`, line)
	waitFor("the problem beside the editor", fmt.Sprintf(`document.querySelector(%q) !== null`, problem))
	if got := text(problem); !strings.Contains(got, "unknown placeholder {{nope}}") || !strings.HasPrefix(got, fmt.Sprintf("line %d", line)) {
		t.Errorf("problem %q", got)
	}
	if got := text(`[data-testid="problems-status"]`); !strings.HasPrefix(got, "1 error") {
		t.Errorf("problems status %q", got)
	}
	if _, err := a.store.GetOverride(context.Background(), "task.doc-minutes", "en-US"); err == nil {
		t.Fatal("the live check stored an override")
	}
	if loc := evaluate[string](t, ctx, `location.pathname`); loc != "/modules/task.doc-minutes/override/en-US" {
		t.Errorf("the page moved to %s", loc)
	}
	// The live diff against the builtin shows the new line.
	waitFor("the diff", `(document.querySelector('[data-testid="diff-summary"]').dataset.added || "0") !== "0"`)
	if changed := evaluate[string](t, ctx, `[...document.querySelectorAll('.cm-changedLine')].map(l => l.textContent).join("|")`); changed != "Check {{nope}}" {
		t.Errorf("changed lines %q", changed)
	}
	shot("editor-error")

	// Remove it; complete a module id: {{ offers the declared variables,
	// the environment values a task may use (not the env-only date) and
	// the module ids; {{aux.tit completes to aux.title-gen.
	for range len("Check {{nope}}") {
		step("backspace", chromedp.Do(ctx, chromedp.KeyEvent(kb.Backspace)))
	}
	typeKeys("Also {{")
	waitFor("the completions", `document.querySelector('.cm-tooltip-autocomplete li') !== null`)
	labels := evaluate[[]string](t, ctx, `[...document.querySelectorAll('.cm-tooltip-autocomplete .cm-completionLabel')].map(e => e.textContent)`)
	joined := "," + strings.Join(labels, ",") + ","
	if !strings.Contains(joined, ",knowledge_bases,") || !strings.Contains(joined, ",aux.title-gen,") || strings.Contains(joined, ",date,") || strings.Contains(joined, ",task.doc-minutes,") {
		t.Errorf("completions %v: want knowledge_bases and aux.title-gen, not date or the module itself", labels)
	}
	typeKeys("aux.tit")
	waitFor("the aux.title-gen completion", `(document.querySelector('.cm-tooltip-autocomplete li[aria-selected] .cm-completionLabel') || {}).textContent === "aux.title-gen"`)
	shot("editor-completion")
	accept()
	if !strings.HasSuffix(textarea(), "\nAlso {{aux.title-gen}}") {
		t.Fatalf("after the completion the text ends %q", textarea()[len(textarea())-40:])
	}
	waitFor("a clean check", `document.querySelector('[data-testid="problems-status"]').textContent.startsWith("No errors") && document.querySelector('.cm-lintRange-error') === null`)
	waitFor("the diff of the new line", `[...document.querySelectorAll('.cm-changedLine')].map(l => l.textContent).join("|") === "Also {{aux.title-gen}}"`)

	// A variable declared in the frontmatter (its key completed) is
	// offered once the live check has read it.
	step("line 2", chromedp.Do(ctx, chromedp.KeyEvent(kb.Home, chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.KeyEvent(kb.End), pressEnter()))
	typeKeys("va")
	waitFor("the variables key", `(document.querySelector('.cm-tooltip-autocomplete li[aria-selected] .cm-completionLabel') || {}).textContent === "variables"`)
	accept()
	checks := evaluate[string](t, ctx, `document.querySelector('[data-testid="problems"]').dataset.checks`)
	typeKeys("[topic]")
	if !strings.HasPrefix(textarea(), "---\nvariables: [topic]\nid: task.doc-minutes\n") {
		t.Fatalf("the frontmatter starts %q", textarea()[:60])
	}
	waitFor("the check of the declaration", fmt.Sprintf(`document.querySelector('[data-testid="problems"]').dataset.checks !== %q && document.querySelector('[data-testid="problems-status"]').textContent.startsWith("No errors")`, checks))
	step("the end", chromedp.Do(ctx, chromedp.KeyEvent(kb.End, chromedp.KeyModifiers(chromedp.ModifierCtrl))))
	typeKeys(" on {{to")
	waitFor("the declared variable", `(document.querySelector('.cm-tooltip-autocomplete li[aria-selected] .cm-completionLabel') || {}).textContent === "topic"`)
	if sec := evaluate[string](t, ctx, `document.querySelector('.cm-tooltip-autocomplete completion-section').textContent`); sec != "Declared variables" {
		t.Errorf("the first section is %q", sec)
	}
	accept()
	if !strings.HasSuffix(textarea(), "\nAlso {{aux.title-gen}} on {{topic}}") {
		t.Fatalf("after the completion the text ends %q", textarea()[len(textarea())-40:])
	}
	waitFor("a clean check", `document.querySelector('[data-testid="problems-status"]').textContent.startsWith("No errors") && document.querySelector('.cm-lintRange-error') === null`)

	// The switch turns the diff off and back on against the builtin.
	step("no diff", chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="diff-off"]`))))
	waitFor("no diff", `document.querySelector('.cm-changedLine') === null`)
	step("diff against the builtin", chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="diff-builtin"]`))))
	waitFor("the diff again", `document.querySelector('.cm-changedLine') !== null`)
	if got := text(`[data-testid="diff-summary"]`); !strings.HasPrefix(got, "+2 −1 lines against the builtin text") {
		t.Errorf("diff summary %q", got)
	}
	shot("editor-diff")

	// Ctrl-S saves the draft and leaves the editor.
	step("focus the editor", chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(".cm-content"))))
	_, err := chromedp.RunResponse(ctx, chromedp.KeyEvent("s", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	step("save with Ctrl-S", err)
	step("the saved page", chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`))))
	if got := text(`[data-testid="flash"]`); !strings.Contains(got, "draft saved, not served yet: revision 1") {
		t.Errorf("flash %q", got)
	}
	o, err := a.store.GetOverride(context.Background(), "task.doc-minutes", "en-US")
	step("read the override", err)
	if want := strings.Replace(builtin, "---\n", "---\nvariables: [topic]\n", 1) + "Also {{aux.title-gen}} on {{topic}}"; strings.ReplaceAll(o.Text, "\r\n", "\n") != want || !o.Draft {
		t.Errorf("stored draft %v, text ends %q", o.Draft, o.Text[max(0, len(o.Text)-60):])
	}
}

// evaluate runs the JavaScript expression js in the page of ctx and
// returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// pressEnter presses Enter as a keyboard does: a key down carrying its
// text, which the page may cancel, and a key up. (KeyEvent sends the
// text as a char event of its own, typed even when the page handled the
// key down, as the editor does when Enter accepts a completion.)
func pressEnter() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13, Text: "\r", UnmodifiedText: "\r"}
		up := down
		up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
		for _, k := range []input.DispatchKeyEventParams{down, up} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, k); err != nil {
				return err
			}
		}
		return nil
	})
}

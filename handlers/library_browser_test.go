package handlers_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2ELibraryFilterAndThemes drives the library page in headless
// Chromium: typing a search and choosing a layer update the list in
// place (no page load) and put the filter in the address bar; a search
// without a match shows one empty state whose link clears the filter.
// Then the library, a module page and the drift list are shown with the
// system set to light and to dark: the page background follows, and text
// keeps its contrast. Screenshots go to $PROMPTDESK_SCREENSHOTS, else to
// a temp folder named in the log.
func TestE2ELibraryFilterAndThemes(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	before := setupOn(t, dbURL)
	before.saveOverride("base.identity", "en-US", identityText(t, before, "You are the drifting assistant."), 0)
	before.saveDraft("base.caution", "en-US", withLine(builtinText(t, before.lib, "base.caution", "en-US").Text, "Be careful."), 0)
	after := setupOn(t, dbURL, bumpedLibrary(t, "base.identity"))
	srv := httptest.NewServer(after.h)
	t.Cleanup(srv.Close)

	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	ctx := p.Ctx
	step := p.Step
	eval := func(expr string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
		step("evaluate "+expr, err)
		return v
	}
	// waitFor polls a JavaScript condition until it holds.
	waitFor := func(what, cond string) {
		t.Helper()
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, err := chromedp.Run(pctx, chromedp.Poll[bool](cond)); err != nil {
			t.Fatalf("%s: %v (location %v)", what, err, eval("location.href"))
		}
	}
	rows := `document.querySelectorAll('[data-testid="module-row"]').length`
	step("open the library", chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="module-row"]`))))
	all := eval(rows).(float64)

	// A marker on the window survives an htmx swap, not a page load.
	eval(`window.samePage = true`)
	step("type a search", chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#f-q"), "identity")))
	waitFor("the search narrows the list", rows+` === 1 && document.querySelector('[data-testid="module-row"]').dataset.id === "base.identity"`)
	waitFor("the search is in the address bar", `new URLSearchParams(location.search).get("q") === "identity"`)
	if eval(`window.samePage === true`) != true {
		t.Error("the search loaded a new page instead of updating the list")
	}

	// Clear the search and choose a layer as a user would: the select's
	// change event sends the form.
	eval(`document.querySelector("#f-q").value = ""; const layer = document.querySelector("#f-layer");
		layer.value = "task"; layer.dispatchEvent(new Event("change", {bubbles: true}))`)
	waitFor("the layer filter shows only task modules", `[...document.querySelectorAll('[data-testid="layer-group"]')].map(g => g.dataset.layer).join() === "task"`)
	waitFor("the layer is in the address bar", `new URLSearchParams(location.search).get("layer") === "task"`)

	step("search for nothing", chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#f-q"), "no-such-module")))
	// The list updates while typing: wait for the empty state of the whole
	// search, not of its first letters.
	waitFor("one empty state", `document.querySelectorAll('[data-testid="library-empty"]').length === 1 && `+rows+` === 0 &&
		document.querySelector('[data-testid="library-empty"] p').textContent.includes("no-such-module")`)
	if got := strings.Join(strings.Fields(eval(`document.querySelector('[data-testid="library-empty"] p').textContent`).(string)), " "); got != "No module matches \u201cno-such-module\u201d in layer task." {
		t.Errorf("empty state %q", got)
	}
	if eval(`window.samePage === true`) != true {
		t.Error("filtering loaded a new page instead of updating the list")
	}
	_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="clear-filter"]`)))
	step("clear the filter", err)
	waitFor("every module again, filter cleared", rows+` === `+itoa(int(all))+` && location.search === "" && document.querySelector("#f-q").value === ""`)

	// Light and dark as the system setting says.
	contrast := `(() => {
		const rgb = s => s.match(/\d+/g).slice(0, 3).map(Number);
		const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
		const main = getComputedStyle(document.body);
		const bg = lum(rgb(main.backgroundColor)), fg = lum(rgb(main.color));
		return {bg, ratio: (Math.max(bg, fg) + 0.05) / (Math.min(bg, fg) + 0.05)};
	})()`
	for _, scheme := range []string{"light", "dark"} {
		step("emulate "+scheme, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			})
			return err
		})))
		for _, page := range []struct{ name, path, ready string }{
			{"library", "/", `[data-testid="module-row"]`},
			{"module", "/modules/base.identity", `[data-testid="drift"]`},
			{"drift", "/drift", `[data-testid="drift-row"]`},
		} {
			step("open "+page.path, chromedp.Do(ctx, chromedp.Navigate(srv.URL+page.path), chromedp.WaitVisible(chromedp.CSS(page.ready))))
			c := eval(contrast).(map[string]any)
			bg, ratio := c["bg"].(float64), c["ratio"].(float64)
			if scheme == "dark" && bg > 0.05 || scheme == "light" && bg < 0.8 {
				t.Errorf("%s in %s: page background luminance %.3f", page.name, scheme, bg)
			}
			if ratio < 7 {
				t.Errorf("%s in %s: body text contrast %.1f:1, want at least 7:1", page.name, scheme, ratio)
			}
			p.Shot(page.name + "-" + scheme)
		}
	}
}

package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/librarytest"
	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2ELibraryPagesLargeLibrary drives the library page of the
// generated library of 10,000 ids in headless Chromium: it goes to page 2
// with the pager, then filters by a layer and a search, checks the counts
// of the whole selection and that the rows shown are its first hundred,
// goes to its page 2 and back with the browser's Back button (the filter
// fields then say what the list shows); every step swaps the list in
// place. The pager and the counts are shot at 390 and
// 1280 pixels wide (library-pager-390.png, library-counts-390.png, …).
func TestE2ELibraryPagesLargeLibrary(t *testing.T) {
	t.Parallel()
	snap, err := librarytest.Library(librarytest.Large)
	if err != nil {
		t.Fatal(err)
	}
	a := setup(t, snap)
	// order is the unfiltered list: layer by layer, ids sorted.
	var order []string
	for _, l := range library.Layers {
		for _, id := range snap.IDs() {
			if m, _ := snap.Any(id); m.Layer == l {
				order = append(order, id)
			}
		}
	}
	// The selection of layer=task&q=invoice, as the search reads texts.
	var match []string
	for _, id := range order {
		m, _ := snap.Any(id)
		if m.Layer != library.LayerTask {
			continue
		}
		found := strings.Contains(id, "invoice")
		for _, loc := range snap.ModuleLocales(id) {
			lm, _ := snap.Module(id, loc)
			found = found || strings.Contains(strings.ToLower(lm.Title+"\x00"+lm.Description), "invoice")
		}
		if found {
			match = append(match, id)
		}
	}
	if len(match) <= 100 {
		t.Fatalf("%d modules match, want more than a page", len(match))
	}
	// One of them overridden, one with a draft.
	over, draft := match[3], match[150]
	m, _ := snap.Module(over, "en-US")
	a.saveOverride(over, "en-US", withLine(m.Text, "Answer briefly."), 0)
	m, _ = snap.Module(draft, "en-US")
	a.saveDraft(draft, "en-US", withLine(m.Text, "Answer briefly."), 0)

	srv := httptest.NewServer(a.h)
	t.Cleanup(srv.Close)
	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	ctx := p.Ctx
	eval := func(expr string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
		p.Step("evaluate "+expr, err)
		return v
	}
	waitFor := func(what, cond string) {
		t.Helper()
		pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if _, err := chromedp.Run(pctx, chromedp.Poll[bool](cond)); err != nil {
			t.Fatalf("%s: %v (location %v)", what, err, eval("location.href"))
		}
	}
	rows := func() []string {
		t.Helper()
		var ids []string
		js := `JSON.stringify([...document.querySelectorAll('[data-testid="module-row"]')].map(r => r.dataset.id))`
		p.Step("read the rows", json.Unmarshal([]byte(eval(js).(string)), &ids))
		return ids
	}
	count := func(testid, name string) string {
		t.Helper()
		return fmt.Sprint(eval(`(document.querySelector('[data-testid="` + testid + `"][data-name="` + name + `"]') || {dataset: {}}).dataset.n || ""`))
	}
	onPage := func(what string, page, pages, shown int, want []string) {
		t.Helper()
		waitFor(what, `document.querySelector('[data-testid="page-current"]')?.textContent === "`+strconv.Itoa(page)+`"`)
		if got := rows(); !slices.Equal(got, want) {
			t.Errorf("%s: %d rows %v…, want %d from %s", what, len(got), got[:min(3, len(got))], len(want), want[0])
		}
		first := (page-1)*100 + 1
		wantRange := fmt.Sprintf("%d–%d, page %d of %d", first, first+len(want)-1, page, pages)
		if got := strings.Join(strings.Fields(p.Text(`[data-testid="page-range"]`)), " "); got != wantRange {
			t.Errorf("%s: range %q, want %q", what, got, wantRange)
		}
		if got := strings.Fields(p.Text(`[data-testid="library-count"]`))[0]; got != strconv.Itoa(shown) {
			t.Errorf("%s: %s shown, want %d", what, got, shown)
		}
	}

	p.Navigate("/", `[data-testid="pager"]`)
	total := len(order)
	pages := (total + 99) / 100
	onPage("the first page", 1, pages, total, order[:100])
	eval(`window.samePage = true`)

	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="page-next"]`)))
	p.Step("next page", err)
	onPage("page 2", 2, pages, total, order[100:200])
	waitFor("page 2 in the address bar", `new URLSearchParams(location.search).get("page") === "2"`)

	// A layer and a search, as a user chooses and types them: back to
	// page 1 of what they select.
	eval(`const layer = document.querySelector("#f-layer"); layer.value = "task"; layer.dispatchEvent(new Event("change", {bubbles: true}))`)
	waitFor("the layer filter", `new URLSearchParams(location.search).get("layer") === "task"`)
	p.Step("type a search", chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#f-q"), "invoice")))
	waitFor("the search in the address bar", `new URLSearchParams(location.search).get("q") === "invoice"`)
	fpages := (len(match) + 99) / 100
	onPage("layer task, search invoice", 1, fpages, len(match), match[:100])
	for _, c := range []struct{ testid, name, want string }{
		{"layer-total", "task", strconv.Itoa(len(match))},
		{"layer-total", "tool", ""},
		{"status-total", "builtin", strconv.Itoa(len(match) - 1)},
		{"status-total", "overridden", "1"},
		{"status-total", "draft", "1"},
	} {
		if got := count(c.testid, c.name); got != c.want {
			t.Errorf("%s %s = %q, want %q", c.testid, c.name, got, c.want)
		}
	}
	if got := eval(`document.querySelector('[data-testid="module-row"][data-id="` + over + `"]').dataset.status`); got != "overridden" {
		t.Errorf("%s shows status %v", over, got)
	}

	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`[data-testid="page-next"]`)))
	p.Step("next page of the selection", err)
	onPage("page 2 of the selection", 2, fpages, len(match), match[100:min(200, len(match))])
	if got := eval(`new URLSearchParams(location.search).toString()`); got != "layer=task&page=2&q=invoice" {
		t.Errorf("address %v, want the filter and page 2", got)
	}
	if got := eval(`document.querySelector('[data-testid="module-row"][data-id="` + draft + `"] [data-testid="locale-draft"]') !== null`); got != true {
		t.Errorf("%s shows no draft on page 2", draft)
	}

	p.Step("back", chromedp.Do(ctx, chromedp.NavigateBack()))
	onPage("Back to page 1 of the selection", 1, fpages, len(match), match[:100])
	// The address the filter form pushed (its empty fields included).
	waitFor("the address of page 1", `(q => q.get("layer") === "task" && q.get("q") === "invoice" && !q.has("page"))(new URLSearchParams(location.search))`)
	if got := eval(`document.querySelector("#f-layer").value + " " + document.querySelector("#f-q").value`); got != "task invoice" {
		t.Errorf("after Back the filter fields say %q, want the filter of the list", got)
	}
	if eval(`window.samePage === true`) != true {
		t.Error("paging or filtering loaded a new page instead of updating the list")
	}

	for _, width := range []int64{390, 1280} {
		p.Step(fmt.Sprintf("window %d px wide", width), chromedp.Do(ctx, chromedp.EmulateViewport(width, 844),
			chromedp.ScrollIntoView(chromedp.CSS(`[data-testid="pager"]`))))
		fits := eval(`(() => { const r = document.querySelector('[data-testid="pager"]').getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth; })()`)
		if fits != true {
			t.Errorf("the pager does not fit a window %d px wide", width)
		}
		p.ShotViewport(fmt.Sprintf("library-pager-%d", width))
		p.Step("scroll to the counts", chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(`[data-testid="library-counts"]`))))
		p.ShotViewport(fmt.Sprintf("library-counts-%d", width))
	}
}

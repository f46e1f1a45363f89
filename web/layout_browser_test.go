package web

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestPhoneLayout opens the console at a phone's 390×844: no page
// scrolls sideways (wide tables stack or scroll in their own box), every
// section of the top navigation is on screen and leads to its page, and
// axe-core finds nothing on the pages whose layout changes most.
func TestPhoneLayout(t *testing.T) {
	t.Parallel()
	srv := startSeeded(t)
	p := browsertest.Open(t, srv.URL(), testUser, testPassword)
	p.Resize(390, 844)
	for _, pg := range consolePages {
		wait := pg.WaitFor
		if wait == "" {
			wait = "main"
		}
		p.Navigate(pg.Path, wait)
		if over, past := p.Overflow(); over != 0 {
			t.Errorf("%s is %d px wider than the phone's 390: %v", pg.Path, over, past)
		}
	}
	p.Navigate("/preview?scenario=minutes-zh", `[data-testid="composition"]`)
	p.ShotViewport("phone-preview")
	// The composition table is one card a row: its Module cell sits under
	// its Kind cell, not beside it.
	layout, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`(() => {
		const row = document.querySelector('[data-testid="report-entry"][data-kind="prompt"]');
		const kind = row.cells[0].getBoundingClientRect(), mod = row.cells[1].getBoundingClientRect();
		return mod.top >= kind.bottom - 1 && mod.width > 200 ? "stacked" : "side by side, module " + Math.round(mod.width) + " px wide";
	})()`))
	p.Step("measure the composition table", err)
	if layout != "stacked" {
		t.Errorf("on a phone the composition rows are %s", layout)
	}

	p.Navigate("/", `[data-testid="module-row"]`)
	p.ShotViewport("phone-library")
	links, err := chromedp.Run(p.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="topnav"] a')].filter(a => { const r = a.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight; }).map(a => a.textContent.trim())`))
	p.Step("list the navigation", err)
	if got := strings.Join(links, ","); got != "Library,Drift,Requests,Profiles,Preview,Scenarios,Ledger,Audit,Users,Tokens,Webhooks" {
		t.Errorf("on screen the navigation shows %q", got)
	}
	_, err = chromedp.RunResponse(p.Ctx, chromedp.Click(chromedp.CSS(`[data-testid="topnav"] a[href="/scenarios"]`)))
	p.Step("follow Scenarios", err)
	if loc, _ := chromedp.Run(p.Ctx, chromedp.Location()); !strings.HasSuffix(loc, "/scenarios") {
		t.Errorf("the navigation's Scenarios led to %s", loc)
	}
	var phonePages []browsertest.Checked
	for _, c := range consolePages {
		if slices.Contains([]string{"/", "/modules/base.caution", "/drift", "/preview?scenario=minutes-zh"}, c.Path) {
			phonePages = append(phonePages, c)
		}
	}
	if len(phonePages) != 4 {
		t.Fatalf("phone pages %v: want the library, a module, the drift list and a preview result", phonePages)
	}
	if n := p.CheckAxe(phonePages...); n != 0 {
		t.Errorf("%d axe violations at phone size", n)
	}
}

// TestLibraryBackRestoresFilters filters the library (search, then a
// layer), opens a module and goes Back: the search box and the select
// show the filter the list shows, and the next filter keeps the search.
// A filtered address opened directly fills the fields as well.
func TestLibraryBackRestoresFilters(t *testing.T) {
	t.Parallel()
	srv := startSeeded(t)
	p := browsertest.Open(t, srv.URL(), testUser, testPassword)
	row := func(id string) string { return `[data-testid="module-row"][data-id="` + id + `"]` }
	p.Navigate("/", row("base.identity"))
	p.Step("filter", chromedp.Do(p.Ctx,
		chromedp.SendKeys(chromedp.CSS("#f-q"), "caution"),
		chromedp.WaitNotPresent(chromedp.CSS(row("base.identity"))),
		chromedp.SetValue(chromedp.CSS("#f-status"), "drifted"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#f-status").dispatchEvent(new Event("change", {bubbles: true}))`),
		chromedp.Poll[chromedp.Void](`location.search.includes("status=drifted")`),
	))
	_, err := chromedp.RunResponse(p.Ctx, chromedp.Click(chromedp.CSS(row("base.caution")+` [data-testid="module-link"]`)))
	p.Step("open base.caution", err)
	// history.back() as the Back button: the page comes back from the
	// browser's cache or htmx's history, neither of which is a new load.
	p.Step("go back", chromedp.Do(p.Ctx,
		chromedp.Evaluate[chromedp.Void](`setTimeout(() => history.back(), 50)`),
		chromedp.Sleep(time.Second),
		chromedp.WaitVisible(chromedp.CSS(row("base.caution"))),
		chromedp.Poll[chromedp.Void](`location.pathname === "/"`)))
	check := func(when string) {
		t.Helper()
		if q, s := p.Value("#f-q"), p.Value("#f-status"); q != "caution" || s != "drifted" {
			t.Errorf("%s the fields say search %q, status %q; want caution, drifted", when, q, s)
		}
	}
	check("after Back")
	// The next filter keeps the search.
	p.Step("filter by layer", chromedp.Do(p.Ctx,
		chromedp.SetValue(chromedp.CSS("#f-layer"), "base"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#f-layer").dispatchEvent(new Event("change", {bubbles: true}))`),
		chromedp.Poll[chromedp.Void](`location.search.includes("layer=base")`),
	))
	loc, err := chromedp.Run(p.Ctx, chromedp.Location())
	p.Step("read the location", err)
	if !strings.Contains(loc, "q=caution") || !strings.Contains(loc, "status=drifted") {
		t.Errorf("the next filter went to %s, dropping the search or status", loc)
	}
	p.Navigate("/?q=caution&status=drifted", row("base.caution"))
	check("opened from the address,")
}

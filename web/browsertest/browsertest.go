// Package browsertest gives the console's tests a headless Chromium
// (Debian's chromium, driven by chromedp), started the same way by every
// browser test. It is imported by tests only.
package browsertest

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// Names are the Chromium executables looked up on PATH, in order.
var Names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Slots is how many Chromiums the browser tests of all test processes on
// the machine run at once. go test runs packages side by side and their
// tests in parallel; nine browsers on two cores made every page slow
// enough to cross a test's time limit.
const Slots = 2

// New returns the browser context of a fresh headless Chromium for t,
// closed at t's cleanup. It first waits for one of the machine's Slots,
// held until t ends. The first chromedp action on the context starts the
// browser and must carry no timeout. It skips t when no Chromium is
// installed, and fails it instead when the CI variable is set (.ci/run
// installs Debian's chromium).
func New(t *testing.T) context.Context {
	t.Helper()
	exe := ""
	for _, name := range Names {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" && os.Getenv("CI") != "" {
		t.Fatal("CI is set but no chromium, chromium-browser or google-chrome is on PATH: .ci/run installs Debian's chromium; a browser test must not be skipped in CI")
	}
	if exe == "" {
		t.Skip("skipping the browser test: no chromium, chromium-browser or google-chrome on PATH (Debian: apt-get install chromium)")
	}
	takeSlot(t)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// The machine has no network: without these Chromium keeps trying.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	return browser
}

// takeSlot blocks until this process holds an exclusive lock on one of
// Slots lock files in the temporary folder, and releases it at t's
// cleanup. The kernel drops the lock if the process dies.
func takeSlot(t *testing.T) {
	t.Helper()
	for {
		for i := range Slots {
			path := filepath.Join(os.TempDir(), "promptdesk-browser-slot-"+strconv.Itoa(i)+".lock")
			f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
			if err != nil {
				t.Fatalf("browser slot: %v", err)
			}
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
				t.Cleanup(func() { f.Close() })
				return
			}
			f.Close()
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Login logs the browser in to the console at base through its login
// page, as a user would, and waits for the page after it.
func Login(ctx context.Context, base, name, password string) error {
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/login"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`))); err != nil {
		return err
	}
	if _, err := chromedp.RunResponse(ctx,
		chromedp.SetValue(chromedp.CSS(`input[name="name"]`), name),
		chromedp.SetValue(chromedp.CSS(`input[name="password"]`), password),
		chromedp.Click(chromedp.CSS(`[data-testid="login-form"] button[type="submit"]`))); err != nil {
		return err
	}
	return chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="account"]`)))
}

// Page is one browser tab of a test, logged in to the console at Base.
// Its helpers fail the test on the first error, so a test reads as the
// steps a user takes.
type Page struct {
	// Ctx carries the tab and the test's time limit.
	Ctx context.Context
	// Base is the console's URL without a trailing slash.
	Base  string
	t     *testing.T
	shots string
}

// Open starts a fresh Chromium for t (see New), logs in to the console
// at base as name, and returns the tab with a 3-minute limit on what
// follows.
// Screenshots go to $PROMPTDESK_SCREENSHOTS (docs/screenshots.sh sets it),
// else to a temporary folder.
func Open(t *testing.T, base, name, password string) *Page {
	t.Helper()
	browser := New(t)
	// The first action starts the browser and must not carry a timeout.
	if err := chromedp.Do(browser, chromedp.Navigate(base+"/login")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(browser, 3*time.Minute)
	t.Cleanup(cancel)
	if err := Login(ctx, base, name, password); err != nil {
		t.Fatalf("log in as %s: %v", name, err)
	}
	shots := os.Getenv("PROMPTDESK_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	return &Page{Ctx: ctx, Base: base, t: t, shots: shots}
}

// Step fails the test with what when err is not nil.
func (p *Page) Step(what string, err error) {
	p.t.Helper()
	if err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// Text returns the visible text of the first element matching the CSS
// selector sel.
func (p *Page) Text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.Ctx, chromedp.Text(chromedp.CSS(sel)))
	p.Step("read "+sel, err)
	return s
}

// Value returns the value of the first form field matching sel.
func (p *Page) Value(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.Ctx, chromedp.Value(chromedp.CSS(sel)))
	p.Step("read "+sel, err)
	return s
}

// Attr returns attribute name of the first element matching sel.
func (p *Page) Attr(sel, name string) string {
	p.t.Helper()
	a, err := chromedp.Run(p.Ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
	p.Step("read "+sel+"@"+name, err)
	return a.Value
}

// Navigate opens path (below Base) and waits until an element matching
// waitFor is visible.
func (p *Page) Navigate(path, waitFor string) {
	p.t.Helper()
	p.Step("open "+path, chromedp.Do(p.Ctx, chromedp.Navigate(p.Base+path), chromedp.WaitVisible(chromedp.CSS(waitFor))))
}

// Shot saves the whole page as name.png in the screenshot folder.
func (p *Page) Shot(name string) {
	p.t.Helper()
	p.save(name, chromedp.FullScreenshot(100))
}

// ShotViewport saves what the window shows as name.png.
func (p *Page) ShotViewport(name string) {
	p.t.Helper()
	p.save(name, chromedp.CaptureScreenshot())
}

func (p *Page) save(name string, capture chromedp.Action[[]byte]) {
	p.t.Helper()
	png, err := chromedp.Run(p.Ctx, capture)
	p.Step("screenshot "+name, err)
	path := filepath.Join(p.shots, name+".png")
	p.Step("write "+path, os.WriteFile(path, png, 0o644))
	p.t.Logf("screenshot: %s", path)
}

// axeScript is axe-core's axe.min.js, vendored for the tests by
// axe/update.sh.
//
//go:embed axe/axe.min.js
var axeScript string

// Checked is one page the accessibility check opens: Path below Base,
// and WaitFor, a CSS selector visible once the page has loaded ("main"
// when empty).
type Checked struct {
	Path, WaitFor string
}

// axeViolation is one rule axe-core found broken, with the elements
// that break it.
type axeViolation struct {
	ID, Impact, Help string
	Nodes            []struct {
		Target         []string
		FailureSummary string
	}
}

// CheckAxe opens each page in turn, runs axe-core on it with its default
// rules (WCAG 2 A and AA and best practices) and fails the test with
// every violation: the page, the rule, its impact and the selector and
// summary of its first five elements. It returns the number of violations found.
func (p *Page) CheckAxe(pages ...Checked) int {
	p.t.Helper()
	total := 0
	for _, pg := range pages {
		wait := pg.WaitFor
		if wait == "" {
			wait = "main"
		}
		p.Navigate(pg.Path, wait)
		total += p.Axe(pg.Path)
	}
	return total
}

// Axe runs axe-core on the page as it is now and fails the test with
// every violation, naming the page by where; it returns their number.
func (p *Page) Axe(where string) int {
	p.t.Helper()
	p.Step("load axe-core", chromedp.Do(p.Ctx, chromedp.Evaluate[chromedp.Void](axeScript)))
	found, err := chromedp.Run(p.Ctx, chromedp.Evaluate[[]axeViolation](
		`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.map(n => ({target: n.target.map(String), failureSummary: n.failureSummary || ""}))})))`,
		chromedp.EvalAwaitPromise))
	p.Step("run axe-core on "+where, err)
	for _, v := range found {
		var b strings.Builder
		for i, n := range v.Nodes {
			if i == 5 {
				fmt.Fprintf(&b, "\n    and %d more", len(v.Nodes)-i)
				break
			}
			fmt.Fprintf(&b, "\n    %s: %s", strings.Join(n.Target, " "), strings.ReplaceAll(n.FailureSummary, "\n", " "))
		}
		p.t.Errorf("%s: axe %s (%s, %d elements): %s%s", where, v.ID, v.Impact, len(v.Nodes), v.Help, b.String())
	}
	return len(found)
}

// Resize sets the window's layout size in CSS pixels (a phone is
// 390×844), as a device of that size would report it.
func (p *Page) Resize(width, height int64) {
	p.t.Helper()
	p.Step(fmt.Sprintf("resize to %d×%d", width, height), chromedp.Do(p.Ctx, chromedp.EmulateViewport(width, height)))
}

// Dark makes the page's prefers-color-scheme media query match dark, as
// a system set to a dark theme does, for every page loaded after it.
func (p *Page) Dark() {
	p.t.Helper()
	dark := emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}
	p.Step("emulate a dark system theme", chromedp.Do(p.Ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, dark)
		return err
	})))
}

// Overflow returns how many CSS pixels the page is wider than the
// window (0 when it needs no horizontal scroll), and the tags and classes
// of up to five elements that reach past the window's right edge.
func (p *Page) Overflow() (int, []string) {
	p.t.Helper()
	type res struct {
		Over int
		Past []string
	}
	r, err := chromedp.Run(p.Ctx, chromedp.Evaluate[res](`(() => {
		const w = document.documentElement.clientWidth;
		const past = [...document.body.querySelectorAll("*")]
			.filter(e => e.getBoundingClientRect().right > w + 1 && e.getClientRects().length > 0)
			.slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className && typeof e.className === "string" ? "." + e.className.trim().replace(/\s+/g, ".") : ""));
		return {over: Math.max(0, document.documentElement.scrollWidth - w), past};
	})()`))
	p.Step("measure the page width", err)
	return r.Over, r.Past
}

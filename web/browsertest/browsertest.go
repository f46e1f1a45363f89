// Package browsertest gives the console's tests a headless Chromium
// (Debian's chromium, driven by chromedp), started the same way by every
// browser test. It is imported by tests only.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Names are the Chromium executables looked up on PATH, in order.
var Names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// New returns the browser context of a fresh headless Chromium for t,
// closed at t's cleanup. The first chromedp action on it starts the
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

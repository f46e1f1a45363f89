package handlers_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2EPreviewErrorAndUsers drives the preview in headless Chromium: a
// request missing a variable, assembled through htmx, shows the sentence
// with its code in a small muted type. Then the users page shows the
// admin's own role as text. Screenshots go to $PROMPTDESK_SCREENSHOTS,
// else to a temp folder named in the log.
func TestE2EPreviewErrorAndUsers(t *testing.T) {
	t.Parallel()
	a := setup(t, variableLibrary(t))
	newUser(t, a.store, "vera", domain.RoleViewer)
	srv := httptest.NewServer(a.h)
	t.Cleanup(srv.Close)
	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	ctx := p.Ctx

	p.Navigate("/preview", `[data-testid="preview-form"]`)
	_, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.querySelector("#p-request").value = '{"locale": "en-US", "variables": {"topic": "billing"}}'`))
	p.Step("type the request", err)
	p.Step("assemble", chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="run-preview"]`))))
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p.Step("wait for the error", chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="alert-message"]`))))
	want := `Module base.identity needs the variable {{today}}, and the request does not supply it: add it under "variables". missing_variable`
	if got := strings.Join(strings.Fields(p.Text(`[data-testid="alert-message"]`)), " "); got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	// The code is smaller than the sentence and in the muted colour.
	small, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const code = getComputedStyle(document.querySelector('[data-testid="error-code"]'));
		const li = getComputedStyle(document.querySelector('[data-testid="alert-message"]'));
		return parseFloat(code.fontSize) < parseFloat(li.fontSize) && code.color !== li.color;
	})()`))
	p.Step("read the code's style", err)
	if !small {
		t.Error("the error code is not set apart from the sentence")
	}
	p.ShotViewport("preview-error")

	p.Navigate("/users", `[data-testid="users"]`)
	if got := p.Text(`[data-testid="user-row"][data-name="` + testUser + `"] [data-testid="own-role-note"]`); got != "(you — another admin can change your role)" {
		t.Errorf("own role note %q", got)
	}
	p.Shot("users")
}

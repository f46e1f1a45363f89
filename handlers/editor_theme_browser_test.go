package handlers_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestE2EEditorFollowsColorScheme: the override editor is light or dark
// as the system setting says, like the rest of the console, and follows
// a change of the setting without a reload: its background, text, gutter
// and syntax colours are app.css's values for the scheme.
func TestE2EEditorFollowsColorScheme(t *testing.T) {
	t.Parallel()
	a := setup(t)
	srv := httptest.NewServer(a.h)
	t.Cleanup(srv.Close)
	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	ctx := p.Ctx
	scheme := func(s string) {
		t.Helper()
		p.Step("emulate "+s, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}},
			})
			return err
		})))
	}
	// Special is the colour CodeMirror's base theme gives special
	// characters, red in light and #f78 in dark: it says which of its
	// own light or dark defaults the editor takes for what app.css does
	// not colour.
	type colours struct{ Background, Text, Gutter, Key, Special string }
	const read = `(() => {
			const c = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
			const key = [...document.querySelectorAll('.cm-line span')].find(s => s.textContent === 'title');
			let probe = document.getElementById('special-probe');
			if (!probe) {
				probe = Object.assign(document.createElement('span'), {id: 'special-probe', className: 'cm-specialChar'});
				document.querySelector('.cm-editor').appendChild(probe);
			}
			return {Background: c('.cm-editor', 'backgroundColor'), Text: c('.cm-content', 'color'),
				Gutter: c('.cm-gutters', 'backgroundColor'), Key: key ? getComputedStyle(key).color : 'no key span',
				Special: getComputedStyle(probe).color};
		})()`
	// wantColours waits up to 5 s for the colours (the highlighter and
	// the media query's change event run after the page or the setting
	// changes), then compares.
	wantColours := func(s string, want colours) {
		t.Helper()
		ok := fmt.Sprintf(`(() => { const c = %s; return c.Background === %q && c.Text === %q && c.Gutter === %q && c.Key === %q && c.Special === %q; })()`,
			read, want.Background, want.Text, want.Gutter, want.Key, want.Special)
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](ok, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(5*time.Second)))
		if err != nil {
			t.Errorf("%s editor colours %+v, want %+v", s, evaluate[colours](t, ctx, read), want)
		}
	}

	scheme("dark")
	p.Step("open the editor", chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/modules/task.doc-minutes/override/en-US"),
		chromedp.WaitVisible(chromedp.CSS(`form[data-editor="ready"] .cm-editor`))))
	// app.css, dark: --field-bg #0f1218, --fg #e4e8ef, --bg-soft #12151b, --hl-definition #8db5ff.
	want := colours{Background: "rgb(15, 18, 24)", Text: "rgb(228, 232, 239)", Gutter: "rgb(18, 21, 27)", Key: "rgb(141, 181, 255)", Special: "rgb(255, 119, 136)"}
	wantColours("dark", want)
	p.ShotViewport("editor-dark")

	// The setting changes while the page is open: the editor follows.
	scheme("light")
	// app.css, light: --field-bg #ffffff, --fg #1d2330, --bg-soft #f5f7fa, --hl-definition #0000cc.
	want = colours{Background: "rgb(255, 255, 255)", Text: "rgb(29, 35, 48)", Gutter: "rgb(245, 247, 250)", Key: "rgb(0, 0, 204)", Special: "rgb(255, 0, 0)"}
	wantColours("light", want)
}

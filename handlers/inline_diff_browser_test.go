package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/web/browsertest"
)

// A Chinese sentence and two edits: the full stop becomes a clause and a
// full stop, then two characters go. Written with escapes: Go source
// holds no Chinese text.
const (
	zhBefore  = "\u7b80\u660e\u627c\u8981\u3002"
	zhAdded   = "\uff0c\u91cd\u70b9\u7a81\u51fa"
	zhAfter   = "\u7b80\u660e\u627c\u8981" + zhAdded + "\u3002"
	zhDropped = "\u627c\u8981"
	zhShort   = "\u7b80\u660e" + zhAdded + "\u3002"
)

// TestE2EHistoryMarksChangedCharacters: on the history page, a revision
// that turns one Chinese full stop into a clause shows the two lines of
// the paragraph with only the added characters marked (underlined, on a
// stronger background, in a readable contrast in light and dark), and
// nothing struck on the old line; the next revision, which drops two
// characters, strikes only those.
func TestE2EHistoryMarksChangedCharacters(t *testing.T) {
	t.Parallel()
	a := setup(t)
	text := strings.TrimRight(builtinText(t, a.lib, "base.style", "zh-CN").Text, "\n") + "\n\n"
	a.saveOverride("base.style", "zh-CN", text+zhBefore+"\n", 0)
	a.saveOverride("base.style", "zh-CN", text+zhAfter+"\n", 1)
	a.saveOverride("base.style", "zh-CN", text+zhShort+"\n", 2)
	srv := httptest.NewServer(a.h)
	t.Cleanup(srv.Close)
	p := browsertest.Open(t, srv.URL, testUser, testPassword)
	rev := `[data-testid="revision"][data-revision="2"] [data-testid="revision-diff"]`
	p.Navigate("/modules/base.style/override/zh-CN/history", rev)

	type line struct {
		Kind, Text  string
		Ins, Del    []string
		Decorations []string
	}
	lines := evaluate[[]line](t, p.Ctx, `[...document.querySelectorAll('`+rev+` [data-testid="diff-line"]:not([data-kind="equal"])')].map(l => ({
		Kind: l.dataset.kind, Text: l.querySelector('.dt').textContent,
		Ins: [...l.querySelectorAll('ins')].map(e => e.textContent),
		Del: [...l.querySelectorAll('del')].map(e => e.textContent),
		Decorations: [...l.querySelectorAll('ins, del')].map(e => getComputedStyle(e).textDecorationLine),
	}))`)
	want := []line{
		{Kind: "delete", Text: zhBefore, Ins: []string{}, Del: []string{}, Decorations: []string{}},
		{Kind: "insert", Text: zhAfter, Ins: []string{zhAdded}, Del: []string{}, Decorations: []string{"underline"}},
	}
	if !slices.EqualFunc(lines, want, func(x, y line) bool {
		return x.Kind == y.Kind && x.Text == y.Text && slices.Equal(x.Ins, y.Ins) && slices.Equal(x.Del, y.Del) && slices.Equal(x.Decorations, y.Decorations)
	}) {
		t.Fatalf("changed lines of revision 2:\n%+v\nwant\n%+v", lines, want)
	}
	// The old line is not struck through as a whole: only marks would be.
	if deco := evaluate[string](t, p.Ctx, `getComputedStyle(document.querySelector('`+rev+` [data-kind="delete"] .dt')).textDecorationLine`); deco != "none" {
		t.Errorf("the paired old line is decorated %q, want none", deco)
	}
	p.Shot("history-inline-diff")

	rev3 := `[data-testid="revision"][data-revision="3"] [data-testid="revision-diff"]`
	del := evaluate[[]string](t, p.Ctx, `[...document.querySelectorAll('`+rev3+` del')].map(e => e.textContent + " " + getComputedStyle(e).textDecorationLine)`)
	if len(del) != 1 || del[0] != zhDropped+" line-through" {
		t.Errorf("revision 3 strikes %q, want only %q", del, zhDropped)
	}

	for _, scheme := range []string{"light", "dark"} {
		p.Step("emulate "+scheme, chromedp.Do(p.Ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			})
			return err
		})))
		for _, mark := range []string{rev + " ins", rev3 + " del"} {
			colours := evaluate[[]string](t, p.Ctx, `(() => { const s = getComputedStyle(document.querySelector('`+mark+`')); return [s.color, s.backgroundColor]; })()`)
			if r := contrast(t, colours[0], colours[1]); r < 4.5 {
				t.Errorf("%s: %s text %s on %s has contrast %.2f, want at least 4.5", scheme, mark, colours[0], colours[1], r)
			}
		}
		mark := evaluate[string](t, p.Ctx, `getComputedStyle(document.querySelector('`+rev+` ins')).backgroundColor`)
		if line := evaluate[string](t, p.Ctx, `getComputedStyle(document.querySelector('`+rev+` [data-kind="insert"]')).backgroundColor`); mark == line {
			t.Errorf("%s: the mark has the line's background %s", scheme, line)
		}
	}
}

// contrast is the WCAG contrast ratio of two opaque CSS colours written
// rgb(r, g, b).
func contrast(t *testing.T, a, b string) float64 {
	t.Helper()
	lum := func(c string) float64 {
		var r, g, bl float64
		if _, err := fmt.Sscanf(c, "rgb(%g, %g, %g)", &r, &g, &bl); err != nil {
			t.Fatalf("colour %q: %v", c, err)
		}
		ch := func(v float64) float64 {
			v /= 255
			if v <= 0.03928 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return 0.2126*ch(r) + 0.7152*ch(g) + 0.0722*ch(bl)
	}
	la, lb := lum(a), lum(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

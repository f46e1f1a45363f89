package web

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/web/browsertest"
)

// TestSecurityHeadersOnEveryResponse checks that pages, the API, static
// files, errors and health checks all carry the security headers, and
// that no console response may be stored by a cache, each caching header
// sent once.
func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	token := newToken(t, st, "headers", domain.Scopes...)
	srv.echo.GET("/test/panic", func(echo.Context) error { panic("boom") })
	for _, c := range []struct{ method, path, body string }{
		{http.MethodGet, "/", ""},
		{http.MethodGet, "/modules/base.identity", ""},
		{http.MethodGet, "/modules/base.identity/override/en-US", ""},
		{http.MethodGet, "/preview", ""},
		{http.MethodGet, "/audit", ""},
		{http.MethodGet, "/drift", ""},
		{http.MethodGet, "/profiles", ""},
		{http.MethodGet, "/healthz", ""},
		{http.MethodGet, "/readyz", ""},
		{http.MethodGet, "/no/such/page", ""},
		{http.MethodDelete, "/preview", ""},
		{http.MethodGet, "/test/panic", ""},
		{http.MethodGet, "/static/app.css", ""},
		{http.MethodGet, "/api/v1/modules", ""},
		{http.MethodGet, "/api/v1/modules/no.such", ""},
		{http.MethodGet, "/api/v1/openapi.json", ""},
		{http.MethodPost, "/api/v1/assemble", `{"locale":"en-US"}`},
		{http.MethodPost, "/api/v1/assemble", `{not json`},
		{http.MethodGet, "/api/v1/nothing", ""},
	} {
		req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		if strings.HasPrefix(c.path, "/api/") {
			authorize(req, token)
		}
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		for k, v := range map[string]string{
			"Content-Security-Policy": ContentSecurityPolicy,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "same-origin",
			"X-Frame-Options":         "DENY",
		} {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("%s %s (%d): %s = %q, want %q", c.method, c.path, rec.Code, k, got, v)
			}
		}
		console := !strings.HasPrefix(c.path, "/api/") && !strings.HasPrefix(c.path, "/static/") && c.path != "/healthz" && c.path != "/readyz"
		if got := rec.Header().Get("Cache-Control"); console != (got == "no-store") {
			t.Errorf("%s %s (%d): Cache-Control %q", c.method, c.path, rec.Code, got)
		}
		if console {
			if got := rec.Header().Values("Cache-Control"); len(got) != 1 {
				t.Errorf("%s %s (%d): Cache-Control sent %d times: %q", c.method, c.path, rec.Code, len(got), got)
			}
			if got := rec.Header().Values("Vary"); len(got) != 1 || got[0] != "Cookie" {
				t.Errorf("%s %s (%d): Vary %q, want Cookie once", c.method, c.path, rec.Code, got)
			}
		}
	}
	for _, d := range []string{"script-src 'self';", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"} {
		if !strings.Contains(ContentSecurityPolicy, d) {
			t.Errorf("the policy lacks %q", d)
		}
	}
	if strings.Contains(ContentSecurityPolicy, "unsafe-") {
		t.Error("the policy allows unsafe-inline or unsafe-eval")
	}
}

// rawAllowed lists the view sources allowed to call templ.Raw,
// templ.UnsafeRaw or other unescaped output, with the reason; none so far.
var rawAllowed = map[string]string{}

// TestViewsRenderNoRawHTMLOrInlineCode greps the templates: no unescaped
// output (templ.Raw, templ.UnsafeRaw, templ.JSONScript, script
// components) outside rawAllowed, no style attribute, no inline script and
// no inline event handler, since the CSP forbids them.
func TestViewsRenderNoRawHTMLOrInlineCode(t *testing.T) {
	t.Parallel()
	unescaped := regexp.MustCompile(`templ\.(Raw|UnsafeRaw|JSONScript|JSFuncCall|ComponentScript|SafeCSS)\b|(?m)^\s*script\s+\w+\(`)
	inline := regexp.MustCompile(`(?i)\sstyle\s*=|<style|<script(\s[^>]*)?>\s*[^<\s]|<script>|\son[a-z]+\s*=|hx-on|javascript:`)
	n := 0
	err := filepath.WalkDir("../views", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_templ.go") {
			return err
		}
		if !strings.HasSuffix(p, ".templ") && !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		rel, _ := filepath.Rel("..", p)
		rel = filepath.ToSlash(rel)
		for i, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if m := unescaped.FindString(line); m != "" && rawAllowed[rel] == "" {
				t.Errorf("%s:%d: unescaped output %q; render text with { } or add the file to rawAllowed with a reason", rel, i+1, m)
			}
			if strings.HasSuffix(p, ".templ") {
				if m := inline.FindString(line); m != "" {
					t.Errorf("%s:%d: %q is refused by the CSP; use a class in static/app.css or a script in static/", rel, i+1, m)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("checked only %d view sources", n)
	}
}

// Script-bearing text for TestBrowserUntrustedTextStaysText: if any of it
// ran, a dialog would open or window.pwned would be set.
const (
	evilScript = `<script>window.pwned=1;alert(1)</script>`
	evilImg    = `<img src=x onerror="window.pwned=2;alert(2)">`
	evilLink   = `[click me](javascript:window.pwned=3;alert(3))`
	evilTitle  = `Identity <script>window.pwned=4;alert(4)</script><img src=x onerror=alert(5)>`
	evilKB     = `Docs <script>window.pwned=6;alert(6)</script>`
	evilDoc    = `Plan <img src=x onerror="window.pwned=7;alert(7)">`
	evilSkill  = `Writes <script>window.pwned=8;alert(8)</script> and <img src=x onerror=alert(9)> [x](javascript:alert(10))`
	evilActor  = `mallory<script>alert(11)</script>`
)

// evilRequest is a preview/assemble request whose knowledge-base title,
// document title and skill description carry script.
func evilRequest(t *testing.T) string {
	t.Helper()
	req := map[string]any{
		"locale":  "en-US",
		"message": "Summarise the plan " + evilScript,
		"now":     "2026-11-29T15:45:00Z",
		"knowledgeBases": []map[string]any{{
			"id": "kb1", "name": evilKB, "type": "document", "description": evilImg, "docCount": 1,
			"recentDocs": []map[string]any{{"knowledgeId": "d1", "title": evilDoc, "fileName": "plan.md", "summary": evilScript}},
		}},
		"skills": []map[string]any{{"name": "writer", "description": evilSkill}},
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pageState is what TestBrowserUntrustedTextStaysText reads from a page.
type pageState struct {
	Pwned    string `json:"pwned"`
	Inline   int    `json:"inline"`
	Imgs     int    `json:"imgs"`
	JSLinks  int    `json:"jsLinks"`
	Text     string `json:"text"`
	Textarea string `json:"textarea"`
}

// browserEvents collects what a page did that it must not: dialogs, CSP
// violations and uncaught exceptions.
type browserEvents struct {
	mu       sync.Mutex
	dialogs  []string
	csp      []string
	problems []string
}

func (b *browserEvents) add(list *[]string, s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	*list = append(*list, s)
}

func (b *browserEvents) take() (dialogs, csp, problems []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	dialogs, csp, problems = b.dialogs, b.csp, b.problems
	b.dialogs, b.csp, b.problems = nil, nil, nil
	return
}

// listen records the events of the browser tab ctx; dialogs are dismissed
// so the page does not hang.
func (b *browserEvents) listen(ctx context.Context) error {
	return chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			b.add(&b.dialogs, string(ev.Type)+": "+ev.Message)
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		case *log.EventEntryAdded:
			if strings.Contains(ev.Entry.Text, "Content Security Policy") {
				b.add(&b.csp, ev.Entry.URL+": "+ev.Entry.Text)
			}
		case *runtime.EventConsoleAPICalled:
			for _, a := range ev.Args {
				if strings.Contains(string(a.Value), "Content Security Policy") || strings.Contains(a.Description, "Content Security Policy") {
					b.add(&b.csp, string(a.Value)+a.Description)
				}
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.add(&b.problems, msg)
		}
	})
}

// TestBrowserUntrustedTextStaysText stores script-bearing text in an
// override (body, title, base snapshot), an actor name, and a preview
// request's knowledge base and skill, then opens every page that shows it
// in headless Chromium under the real CSP: no dialog opens, no script runs,
// no CSP violation is reported (so no page needs inline code), and the text
// is visible as typed. The API returns the same characters unescaped:
// prompts are never HTML-escaped.
func TestBrowserUntrustedTextStaysText(t *testing.T) {
	t.Parallel()
	browser := browsertest.New(t)
	var evilText string
	srv, st := newServer(t, func(ctx context.Context, st *store.Store, lib *library.Snapshot) {
		m, ok := lib.Module("base.identity", "en-US")
		if !ok {
			t.Fatal("no builtin base.identity")
		}
		// A YAML double-quoted scalar; evilTitle has no quote or backslash.
		evilText = strings.Replace(m.Text, "\ntitle: Identity\n", "\ntitle: \""+evilTitle+"\"\n", 1)
		evilText = strings.Replace(evilText, "\n---\n", "\n---\n"+evilScript+"\n"+evilImg+"\n"+evilLink+"\n\n", 1)
		if evilText == m.Text || !strings.Contains(evilText, evilTitle[:12]) {
			t.Fatal("could not build the hostile override")
		}
		actx := domain.WithActor(ctx, evilActor)
		o := domain.Override{ModuleID: m.ID, Locale: "en-US", Text: strings.Replace(evilText, evilLink, "", 1), Title: evilTitle,
			Version: m.Version, BasedOnVersion: m.Version, BaseSnapshot: "an older builtin text " + evilScript, Publish: true}
		if _, err := st.SaveOverride(actx, o, 0); err != nil {
			t.Fatal(err)
		}
		o.Text = evilText
		if _, err := st.SaveOverride(actx, o, 1); err != nil {
			t.Fatal(err)
		}
	})
	// A canary page with inline script proves the CSP listener works.
	srv.echo.GET("/test/csp-canary", func(c echo.Context) error {
		return c.HTML(http.StatusOK, `<!DOCTYPE html><html><body><p id="canary">canary</p><script>window.pwned="canary"</script></body></html>`)
	})
	startServer(t, srv)
	base := srv.URL()

	// The API returns the characters as stored, not HTML-escaped.
	req := authorize(httptest.NewRequest(http.MethodPost, "/api/v1/assemble", strings.NewReader(evilRequest(t))), newToken(t, st, "runtime", domain.ScopeAssemble))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("assemble: %d %s", rec.Code, rec.Body.String())
	}
	var res struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{evilScript, evilImg, evilLink, evilKB, evilDoc, evilSkill} {
		if !strings.Contains(res.Text, s) {
			t.Errorf("the assembled text lacks %q", s)
		}
		if !strings.Contains(rec.Body.String(), s[:10]) {
			t.Errorf("the API body escapes %q", s[:10])
		}
	}

	var events browserEvents
	// Listen starts the browser: it must not carry a timeout.
	if err := events.listen(browser); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(browser, 90*time.Second)
	defer cancel()
	if err := browsertest.Login(ctx, base, testUser, testPassword); err != nil {
		t.Fatalf("log in: %v", err)
	}

	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// check asserts that the current page ran none of the payloads, holds
	// no element they would create, and reported no CSP violation.
	check := func(where string, visible ...string) {
		t.Helper()
		step(where+": settle", chromedp.Do(ctx, chromedp.Sleep(200*time.Millisecond))) // let late errors and dialogs arrive
		state, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](`({
				pwned: typeof window.pwned === "undefined" ? "" : String(window.pwned),
				inline: document.querySelectorAll("script:not([src])").length,
				imgs: document.querySelectorAll('img[src="x"], [onerror]').length,
				jsLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
				text: document.body.innerText,
				textarea: Array.from(document.querySelectorAll("textarea")).map(e => e.value).join("\n"),
			})`))
		step(where+": read the page", err)
		if state.Pwned != "" {
			t.Errorf("%s: a payload ran (window.pwned = %q)", where, state.Pwned)
		}
		if state.Inline+state.Imgs+state.JSLinks > 0 {
			t.Errorf("%s: the page holds %d inline scripts, %d payload images and %d javascript: links", where, state.Inline, state.Imgs, state.JSLinks)
		}
		for _, s := range visible {
			if !strings.Contains(state.Text, s) && !strings.Contains(state.Textarea, s) {
				t.Errorf("%s: %q is not shown as text", where, s)
			}
		}
		dialogs, csp, problems := events.take()
		for _, d := range dialogs {
			t.Errorf("%s: a dialog opened: %s", where, d)
		}
		for _, c := range csp {
			t.Errorf("%s: CSP violation: %s", where, c)
		}
		for _, p := range problems {
			t.Errorf("%s: uncaught exception: %s", where, p)
		}
	}
	open := func(path, waitFor string, visible ...string) {
		t.Helper()
		step("open "+path, chromedp.Do(ctx, chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS(waitFor))))
		check(path, visible...)
	}

	// The canary first: an inline script is refused and reported.
	step("open the canary", chromedp.Do(ctx, chromedp.Navigate(base+"/test/csp-canary"), chromedp.WaitVisible(chromedp.CSS("#canary")),
		chromedp.Sleep(300*time.Millisecond)))
	if _, csp, _ := events.take(); len(csp) == 0 {
		t.Fatal("the canary's inline script raised no CSP report: the listener is blind")
	}
	canary, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](`({pwned: String(window.pwned ?? ""), inline: document.querySelectorAll("script:not([src])").length})`))
	step("read the canary", err)
	if canary.Inline != 1 || canary.Pwned != "" {
		t.Fatalf("canary: %d inline scripts found (want 1), window.pwned = %q (want unset: the CSP blocks it)", canary.Inline, canary.Pwned)
	}

	identityRow := `[data-testid="module-row"][data-id="base.identity"]`
	open("/", identityRow, evilTitle)
	// htmx search under the CSP: the list is swapped in place.
	step("search", chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#f-q"), "identity"),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="module-row"][data-id="base.behavior"]`)),
	))
	check("library search", evilTitle)
	open("/modules/base.identity", `[data-testid="module-id"]`, evilTitle)
	open("/modules/base.identity/override/en-US", `form[data-editor="ready"]`, evilScript, evilImg, evilLink)
	open("/modules/base.identity/override/en-US/history", `[data-testid="revision"]`, evilScript, evilImg, evilLink, evilActor)
	open("/drift", `[data-testid="drift-row"]`, evilActor)
	var review int
	resp, err := http.Get(base + "/drift/base.identity/en-US")
	step("get the drift review", err)
	resp.Body.Close()
	review = resp.StatusCode
	if review == http.StatusOK {
		open("/drift/base.identity/en-US", "main", evilScript)
		t.Log("drift review checked")
	} else {
		t.Logf("drift review not reachable for this override (%d); skipped", review)
	}
	open("/audit", `[data-testid="audit-row"]`, evilActor)
	open("/profiles", "main")
	open("/profiles/new", "main")
	open("/overrides/new", "main")

	// Preview a pasted request through htmx.
	open("/preview", `[data-testid="run-preview"]`)
	step("run the preview", chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="scenario-select"]`), ""),
		chromedp.SetValue(chromedp.CSS("#p-request"), evilRequest(t)),
		chromedp.Click(chromedp.CSS(`[data-testid="run-preview"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview-result"]`)),
	))
	check("preview", evilScript, evilImg, evilLink, evilKB, evilDoc, evilSkill)
}

// A NUL character in a console request is a 4xx naming it, never a 500
// from Postgres refusing it (found by a fresh-user trial): in a login name,
// a filter, a path and a token name.
func TestNULIsRefused(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, nil)
	h := srv.Handler()
	v, _ := clients.Load(h)
	admin := v.(*client)
	anon := &client{cookies: map[string]*http.Cookie{}}
	anon.do(h, httptest.NewRequest(http.MethodGet, "/login", nil)) // its CSRF cookie
	if ck, ok := anon.cookies["promptdesk_csrf"]; ok {
		anon.csrf = ck.Value
	}
	for _, c := range []struct {
		method, target string
		form           url.Values
		as             *client
	}{
		{http.MethodPost, "/login", url.Values{"name": {"ab\x00c"}, "password": {"whatever-long"}}, anon},
		{http.MethodGet, "/audit?actor=%00", nil, admin},
		{http.MethodGet, "/profiles/%00", nil, admin},
		{http.MethodPost, "/tokens", url.Values{"name": {"t\x00"}, "scope": {"read"}}, admin},
	} {
		var rec *httptest.ResponseRecorder
		if c.method == http.MethodGet {
			rec = serve(h, c.method, c.target)
		} else {
			rec = c.as.do(h, c.as.form(c.method, c.target, c.form))
		}
		if rec.Code < 400 || rec.Code >= 500 || !strings.Contains(rec.Body.String(), "NUL character") {
			t.Errorf("%s %s: status %d, want a 4xx naming the NUL character", c.method, c.target, rec.Code)
		}
	}
}

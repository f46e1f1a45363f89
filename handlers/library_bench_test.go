package handlers_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
)

// BenchmarkLibraryPage times GET / through the whole server as a
// logged-in admin: session and user read from Postgres, CSRF, the handler
// over the served state, the templates. Libraries: the builtin one (35
// ids) and a generated one of 1,000 ids (the builtin plus 965, each in
// en-US and zh-CN). On both, one id in ten has a published en-US override
// (a third of them drifted), one in fifty a zh-CN draft, and one in a
// hundred is a user module. Sub-benchmarks: the whole page, and a search
// as htmx sends it (the list fragment only). Target: under 100 ms for
// the page of 1,000. Figures in BENCHMARKS.md:
//
//	go test ./handlers -run '^$' -bench '^BenchmarkLibraryPage$' -benchtime 2s -count 3
func BenchmarkLibraryPage(b *testing.B) {
	for _, size := range []int{35, 1000} {
		b.Run(fmt.Sprintf("modules=%d", size), func(b *testing.B) {
			snap := benchLibrary(b, size)
			h, client, _ := benchServer(b, snap)
			wantRows := len(snap.IDs()) + len(snap.IDs())/100
			for _, tc := range []struct {
				name, target string
				htmx         bool
				rows         int // module rows the response lists; -1: some
			}{
				{"page", "/", false, wantRows},
				{"search", "/?q=task", true, -1},
			} {
				b.Run(tc.name, func(b *testing.B) {
					req := func() *http.Request {
						r := httptest.NewRequest(http.MethodGet, tc.target, nil)
						if tc.htmx {
							r.Header.Set("HX-Request", "true")
						}
						return r
					}
					rec := client.do(h, req())
					doc, err := goquery.NewDocumentFromReader(strings.NewReader(rec.Body.String()))
					if rec.Code != http.StatusOK || err != nil {
						b.Fatalf("GET %s: %d %v", tc.target, rec.Code, err)
					}
					rows := doc.Find(`[data-testid="module-row"]`).Length()
					if tc.rows >= 0 && rows != tc.rows || rows == 0 {
						b.Fatalf("GET %s lists %d modules, want %d", tc.target, rows, tc.rows)
					}
					size := rec.Body.Len()
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						if rec := client.do(h, req()); rec.Code != http.StatusOK {
							b.Fatalf("GET %s: %d", tc.target, rec.Code)
						}
					}
					b.ReportMetric(float64(size), "B/response")
				})
			}
		})
	}
}

// benchLayers is the layer mix of the 965 generated ids.
var benchLayers = []struct {
	layer library.Layer
	count int
}{
	{library.LayerBase, 15}, {library.LayerEnv, 20}, {library.LayerTask, 300},
	{library.LayerAgent, 150}, {library.LayerTool, 150}, {library.LayerAux, 250},
	{library.LayerStyle, 80},
}

// benchLibrary returns the builtin library for size 35, else the builtin
// plus generated ids up to size, each in en-US and zh-CN.
func benchLibrary(b *testing.B, size int) *library.Snapshot {
	b.Helper()
	builtin, err := library.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	if size == len(builtin.IDs()) {
		return builtin
	}
	fsys := fstest.MapFS{}
	err = fs.WalkDir(library.BuiltinFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(library.BuiltinFS(), p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	n := len(builtin.IDs())
	for _, l := range benchLayers {
		for k := 0; k < l.count && n < size; k++ {
			id := fmt.Sprintf("%s.gen-%04d", l.layer, n)
			for _, loc := range []string{"en-US", "zh-CN"} {
				fsys["modules/"+loc+"/"+library.FileName(id)] = &fstest.MapFile{Data: []byte(benchModule(id, l.layer, loc, n))}
			}
			n++
		}
	}
	if n != size {
		b.Fatalf("generated %d ids, want %d", n, size)
	}
	snap, err := library.Load(fsys, "bench")
	if err != nil {
		b.Fatalf("the generated library does not load: %v", err)
	}
	return snap
}

// benchModule is a generated module file: version 2–5, a title and
// description in the locale, task triggers, a body of a few hundred bytes.
func benchModule(id string, layer library.Layer, locale string, n int) string {
	var f strings.Builder
	fmt.Fprintf(&f, "---\nid: %s\nlayer: %s\nversion: %d\n", id, layer, 2+n%4)
	if locale == "zh-CN" {
		fmt.Fprintf(&f, "title: 生成的模块 %d\ndescription: 用于资料库页面基准测试的生成模块，第 %d 号\n", n, n)
	} else {
		fmt.Fprintf(&f, "title: Generated module %d\ndescription: A generated module for the library page benchmark, number %d\n", n, n)
	}
	if layer == library.LayerTask {
		fmt.Fprintf(&f, "priority: %d\ntriggers:\n- kind: intent\n  keywords: keyword%d, task%d\n- kind: command\n  command: /gen%04d\n", 10+n%90, n, n, n)
	}
	f.WriteString("---\n")
	for i := range 4 {
		fmt.Fprintf(&f, "Paragraph %d of module %d: the assistant reads the request, checks every figure against the documents and answers in the user's language.\n\n", i, n)
	}
	return f.String()
}

// benchServer starts a server on a fresh database with snap and the
// overrides described at BenchmarkLibraryPage, and returns its handler
// and a client logged in as an admin.
func benchServer(b *testing.B, snap *library.Snapshot) (http.Handler, *benchClient, testStore) {
	b.Helper()
	ctx := domain.WithActor(context.Background(), "bench")
	st, _ := storetest.Open(b)
	ids := snap.IDs()
	for i, id := range ids {
		switch {
		case i%10 == 0:
			m, _ := snap.Module(id, "en-US")
			o := domain.Override{ModuleID: id, Locale: "en-US", Text: withLine(m.Text, "Answer briefly."), Title: m.Title,
				Version: m.Version, BasedOnVersion: m.Version, BaseSnapshot: m.Text, BaseHash: domain.TextHash(m.Text), Publish: true}
			if i%30 == 0 && m.Version > 1 {
				o.BasedOnVersion = m.Version - 1 // the builtin moved on: drifted
			}
			if _, err := st.SaveOverride(ctx, o, 0); err != nil {
				b.Fatal(err)
			}
		case i%50 == 5:
			m, _ := snap.Module(id, "zh-CN")
			o := domain.Override{ModuleID: id, Locale: "zh-CN", Text: withLine(m.Text, "请简短回答。"), Title: m.Title,
				Version: m.Version, BasedOnVersion: m.Version, BaseSnapshot: m.Text, BaseHash: domain.TextHash(m.Text)}
			if _, err := st.SaveOverride(ctx, o, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i := range len(ids) / 100 {
		id := fmt.Sprintf("aux.user-%03d", i)
		text := benchModule(id, library.LayerAux, "en-US", i)
		if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: id, Locale: "en-US", Text: text, Title: "Generated module", Version: 2 + i%4, Publish: true}, 0); err != nil {
			b.Fatal(err)
		}
	}
	srv, err := web.New(ctx, web.Config{
		Addr:      "127.0.0.1:0",
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store:     st,
		Library:   reload.Fixed(snap),
		Assembler: assembler.New(assembler.Config{}),
		Now:       time.Now,
	})
	if err != nil {
		b.Fatal(err)
	}
	secret, err := st.CreateSetupToken(ctx, "bench", domain.RoleAdmin)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.CompleteSetup(ctx, secret, "", testPassword); err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	c := &benchClient{}
	c.jar, _ = cookiejar.New(nil)
	login := c.do(h, httptest.NewRequest(http.MethodGet, "/login", nil))
	doc, err := goquery.NewDocumentFromReader(login.Body)
	if err != nil {
		b.Fatal(err)
	}
	c.csrf, _ = doc.Find(`meta[name="csrf-token"]`).Attr("content")
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(url.Values{"name": {"bench"}, "password": {testPassword}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec := c.do(h, req); rec.Code != http.StatusSeeOther {
		b.Fatalf("login: %d %s", rec.Code, rec.Body.String())
	}
	return h, c, st
}

// benchClient keeps the console cookies of one browser.
type benchClient struct {
	jar  *cookiejar.Jar
	csrf string
}

// do serves req with the client's cookies and CSRF header and keeps the
// cookies the response sets.
func (c *benchClient) do(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	for _, ck := range c.jar.Cookies(consoleURL) {
		req.AddCookie(ck)
	}
	if c.csrf != "" {
		req.Header.Set("X-CSRF-Token", c.csrf)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	c.jar.SetCookies(consoleURL, rec.Result().Cookies())
	return rec
}

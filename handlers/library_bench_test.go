package handlers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/librarytest"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
)

// BenchmarkLibraryPage times GET / through the whole server as a
// logged-in admin (session and user read from Postgres, CSRF, the handler
// over the served state, the templates) on two libraries in the same run:
// the builtin one (35 ids) and the generated large one
// (librarytest.Large, 10,000 ids). On both, one id in ten has a published
// en-US override (a third of them drifted), one in fifty a zh-CN draft,
// and one in a hundred more is a user module. Each iteration requests the
// case from one server and then the other, so that both see the same
// machine; the medians are reported as 35-ns/req and 10000-ns/req, their
// ratio as 10000/35 and each response's size as 35-B/resp and
// 10000-B/resp (ns/op is the pair). Cases: the first page, page 50, a
// search as htmx sends it (the list fragment only) and a layer with a
// search on its second page. Target at 10,000: at most 30 ms and 300 KB a
// page. Figures in BENCHMARKS.md:
//
//	go test ./handlers -run '^$' -bench '^BenchmarkLibraryPage$' -benchtime 200x -count 3
func BenchmarkLibraryPage(b *testing.B) {
	type server struct {
		size   int
		h      http.Handler
		client *benchClient
	}
	var servers []server
	for _, size := range []int{35, librarytest.Large} {
		snap := benchLibrary(b, size)
		h, client, _ := benchServer(b, snap)
		servers = append(servers, server{size, h, client})
	}
	for _, tc := range []struct {
		name, target string
		htmx         bool
	}{
		{"page", "/", false},
		{"page50", "/?page=50", false},
		{"search", "/?q=task", true},
		{"layer-search-page2", "/?layer=task&q=invoice&page=2", true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := func() *http.Request {
				r := httptest.NewRequest(http.MethodGet, tc.target, nil)
				if tc.htmx {
					r.Header.Set("HX-Request", "true")
				}
				return r
			}
			sizes := make([]int, len(servers))
			for i, s := range servers {
				rec := s.client.do(s.h, req())
				doc, err := goquery.NewDocumentFromReader(strings.NewReader(rec.Body.String()))
				if rec.Code != http.StatusOK || err != nil {
					b.Fatalf("GET %s (%d ids): %d %v", tc.target, s.size, rec.Code, err)
				}
				// The builtin library has no match for the last case.
				if rows := doc.Find(`[data-testid="module-row"]`).Length(); rows == 0 && s.size != 35 || rows > handlers.LibraryPageSize {
					b.Fatalf("GET %s (%d ids) lists %d modules", tc.target, s.size, rows)
				}
				sizes[i] = rec.Body.Len()
			}
			times := make([][]time.Duration, len(servers))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for i, s := range servers {
					start := time.Now()
					if rec := s.client.do(s.h, req()); rec.Code != http.StatusOK {
						b.Fatalf("GET %s (%d ids): %d", tc.target, s.size, rec.Code)
					}
					times[i] = append(times[i], time.Since(start))
				}
			}
			med := make([]float64, len(servers))
			for i, s := range servers {
				slices.Sort(times[i])
				med[i] = float64(times[i][len(times[i])/2])
				b.ReportMetric(med[i], fmt.Sprintf("%d-ns/req", s.size))
				b.ReportMetric(float64(sizes[i]), fmt.Sprintf("%d-B/resp", s.size))
			}
			b.ReportMetric(med[1]/med[0], fmt.Sprintf("%d/%d", servers[1].size, servers[0].size))
		})
	}
}

// benchLibrary returns the builtin library for size 35, else the
// generated library of size ids (librarytest.Library).
func benchLibrary(b *testing.B, size int) *library.Snapshot {
	b.Helper()
	snap, err := librarytest.Library(size)
	if err != nil {
		b.Fatalf("the generated library does not load: %v", err)
	}
	return snap
}

// benchServer starts a server on a fresh database with snap and the
// overrides described at BenchmarkLibraryPage, and returns its handler
// and a client logged in as an admin.
func benchServer(b *testing.B, snap *library.Snapshot) (http.Handler, *benchClient, testStore) {
	b.Helper()
	return seededServer(b, snap, func(ctx context.Context, st *store.Store) error { return seedBench(ctx, st, snap) })
}

// seededServer is benchServer with the overrides seed stores, in one
// transaction (at 10,000 ids seedBench makes 1,300 saves).
func seededServer(b *testing.B, snap *library.Snapshot, seed func(context.Context, *store.Store) error) (http.Handler, *benchClient, testStore) {
	b.Helper()
	ctx := domain.WithActor(context.Background(), "bench")
	st, _ := storetest.Open(b)
	err := st.WithTx(ctx, func(st *store.Store) error {
		return seed(ctx, st)
	})
	if err != nil {
		b.Fatal(err)
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

// seedBench stores the overrides described at BenchmarkLibraryPage for snap.
func seedBench(ctx context.Context, st *store.Store, snap *library.Snapshot) error {
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
				return err
			}
		case i%50 == 5:
			m, ok := snap.Module(id, "zh-CN")
			if !ok {
				continue
			}
			o := domain.Override{ModuleID: id, Locale: "zh-CN", Text: withLine(m.Text, "请简短回答。"), Title: m.Title,
				Version: m.Version, BasedOnVersion: m.Version, BaseSnapshot: m.Text, BaseHash: domain.TextHash(m.Text)}
			if _, err := st.SaveOverride(ctx, o, 0); err != nil {
				return err
			}
		}
	}
	for i := range len(ids) / 100 {
		id := fmt.Sprintf("aux.user-%03d", i)
		text := librarytest.Module(id, library.LayerAux, "en-US", i)
		if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: id, Locale: "en-US", Text: text, Title: "Generated module", Version: 1 + i%5, Publish: true}, 0); err != nil {
			return err
		}
	}
	return nil
}

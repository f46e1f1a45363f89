package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
)

// BenchmarkAPIModules measures GET /api/v1/modules over the generated
// library of 1,000 ids (benchServer): the whole list, its revalidation
// with If-None-Match (304: the body is still built and hashed, not sent),
// a search, and a page of 50. Figures in BENCHMARKS.md:
//
//	go test ./handlers -run '^$' -bench '^BenchmarkAPIModules$' -benchtime 2s -count 3
func BenchmarkAPIModules(b *testing.B) {
	snap := benchLibrary(b, 1000)
	h, _, st := benchServer(b, snap)
	_, secret, err := st.CreateToken(domain.WithActor(context.Background(), "bench"), "bench-api", domain.Scopes)
	if err != nil {
		b.Fatal(err)
	}
	get := func(target, etag string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Header.Set("Authorization", "Bearer "+secret)
		if etag != "" {
			r.Header.Set("If-None-Match", etag)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	all := get("/api/v1/modules", "")
	if all.Code != http.StatusOK {
		b.Fatalf("GET /api/v1/modules: %d %s", all.Code, all.Body.String())
	}
	for _, tc := range []struct {
		name, target, etag string
		code               int
	}{
		{"list", "/api/v1/modules", "", http.StatusOK},
		{"revalidate", "/api/v1/modules", all.Header().Get("ETag"), http.StatusNotModified},
		{"search", "/api/v1/modules?q=task&layer=task", "", http.StatusOK},
		{"page", "/api/v1/modules?limit=50&cursor=dGFzay4", "", http.StatusOK},
	} {
		b.Run(tc.name, func(b *testing.B) {
			size := get(tc.target, tc.etag).Body.Len()
			b.ReportAllocs()
			for b.Loop() {
				if rec := get(tc.target, tc.etag); rec.Code != tc.code {
					b.Fatalf("GET %s: %d, want %d", tc.target, rec.Code, tc.code)
				}
			}
			b.ReportMetric(float64(size), "B/response")
		})
	}
}

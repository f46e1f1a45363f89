package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// BenchmarkSave times a save of an override end to end through the whole
// server, on two servers in the same run over the builtin library: one
// with 10 published overrides in its database, one with 5,000. A save is
// the API's PUT /api/v1/overrides/task.summarize (a new draft, checked
// and stored) then POST …/publish (served), each answered after the
// served state took the change; the token is read from Postgres on each
// request. Each iteration saves on one server and then on the other, so
// that both see the same machine; the medians are reported as
// 10-ns/save and 5000-ns/save (and per request, -ns/put and
// -ns/publish), their ratio as 5000/10 (ns/op is the pair). The 5,000
// overrides: one per builtin module in en-US, then generated user modules
// of a few hundred bytes, one in ten including the one before it. Target:
// 5000/10 at most 2. Figures in BENCHMARKS.md:
//
//	go test ./handlers -run '^$' -bench '^BenchmarkSave$' -benchtime 200x -count 3
func BenchmarkSave(b *testing.B) {
	lib, err := library.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	type server struct {
		n        int
		h        http.Handler
		secret   string
		revision int
		put, pub []time.Duration
	}
	var servers []*server
	for _, n := range []int{10, 5000} {
		h, _, st := seededServer(b, lib, func(ctx context.Context, st *store.Store) error { return storetest.PublishOverrides(ctx, st, lib, n) })
		_, secret, err := st.CreateToken(domain.WithActor(context.Background(), "bench"), "bench-api", domain.Scopes)
		if err != nil {
			b.Fatal(err)
		}
		head, err := st.GetOverride(context.Background(), "task.summarize", "en-US")
		if err != nil {
			b.Fatal(err)
		}
		servers = append(servers, &server{n: n, h: h, secret: secret, revision: head.Revision})
	}
	builtin, _ := lib.Module("task.summarize", "en-US")
	do := func(s *server, method, target, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+s.secret)
		r.Header.Set("If-Match", strconv.Quote(strconv.Itoa(s.revision)))
		if body != "" {
			r.Header.Set("Content-Type", "text/markdown")
		}
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s %s (%d overrides): %d %s", method, target, s.n, rec.Code, rec.Body.String())
		}
		var out struct{ Revision int }
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Revision <= 0 {
			b.Fatalf("%s %s: %v %s", method, target, err, rec.Body.String())
		}
		s.revision = out.Revision
		return rec
	}
	i := 0
	for b.Loop() {
		for _, s := range servers {
			i++
			text := fmt.Sprintf("%s\n\nEdit %d.\n", strings.TrimRight(builtin.Text, "\n"), i)
			t0 := time.Now()
			do(s, http.MethodPut, "/api/v1/overrides/task.summarize?locale=en-US", text)
			t1 := time.Now()
			do(s, http.MethodPost, "/api/v1/overrides/task.summarize/publish?locale=en-US", "")
			s.put, s.pub = append(s.put, t1.Sub(t0)), append(s.pub, time.Since(t1))
		}
	}
	b.StopTimer()
	var saves []float64
	for _, s := range servers {
		var save []time.Duration
		for j := range s.put {
			save = append(save, s.put[j]+s.pub[j])
		}
		m := float64(medianOf(save))
		saves = append(saves, m)
		b.ReportMetric(m, fmt.Sprintf("%d-ns/save", s.n))
		b.ReportMetric(float64(medianOf(s.put)), fmt.Sprintf("%d-ns/put", s.n))
		b.ReportMetric(float64(medianOf(s.pub)), fmt.Sprintf("%d-ns/publish", s.n))
		// The last save serves on each server.
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/api/v1/overrides/task.summarize?locale=en-US", nil)
		r.Header.Set("Authorization", "Bearer "+s.secret)
		s.h.ServeHTTP(rec, r)
		var got handlers.APIOverride
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.PublishedRevision != s.revision {
			b.Fatalf("%d overrides: the last save is not published: %v %s", s.n, err, rec.Body.String())
		}
	}
	b.ReportMetric(saves[1]/saves[0], "5000/10")
}

// medianOf is the middle of ds (the upper one of an even count).
func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

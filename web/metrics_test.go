package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/metrics"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// TestMetrics scrapes /metrics on its own listener: every named metric is
// there; requests are counted per route template (not per raw path, and
// unknown paths as "unmatched") with the status sent; each assembly is
// timed, token counting too; a draft moves the draft count, its
// publication the generation and the override counts; the database pool
// and the token cache are reported. The console's port does not answer /metrics.
func TestMetrics(t *testing.T) {
	t.Parallel()
	st, err := store.Open(context.Background(), storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	srv, err := New(context.Background(), Config{
		Addr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", Metrics: m,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Store: st, Library: reload.Fixed(lib),
		Assembler: assembler.New(assembler.Config{CountTokens: true, Observe: func(t assembler.Timing) { m.Assembly(t.Assemble, t.Tokens) }}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	token := newToken(t, st, "metrics", domain.ScopeAssemble, domain.ScopeRead, domain.ScopeWrite)

	before := scrape(t, srv.MetricsURL())
	for _, name := range []string{
		"promptdesk_http_requests_total", "promptdesk_http_request_duration_seconds",
		"promptdesk_snapshot_generation", "promptdesk_library_generation", "promptdesk_overrides", "promptdesk_drafts",
		"promptdesk_stale", "promptdesk_stale_since_timestamp_seconds", "promptdesk_last_notification_timestamp_seconds",
		"promptdesk_token_cache_age_seconds", "promptdesk_db_pool_connections", "promptdesk_db_pool_max_connections",
		"promptdesk_db_pool_acquires_total", "promptdesk_db_pool_acquire_duration_seconds_total", "go_goroutines",
	} {
		if before[name] == nil && name != "promptdesk_http_requests_total" && name != "promptdesk_http_request_duration_seconds" {
			t.Errorf("metric %s missing", name)
		}
	}
	if v := value(before, "promptdesk_stale"); v != 0 {
		t.Errorf("promptdesk_stale = %v with the database up", v)
	}
	if v := value(before, "promptdesk_db_pool_max_connections"); v < 1 {
		t.Errorf("promptdesk_db_pool_max_connections = %v", v)
	}
	gen := value(before, "promptdesk_snapshot_generation")

	const assemblies = 3
	for range assemblies {
		if rec := apiCall(t, srv.URL(), http.MethodPost, "/api/v1/assemble", `{"locale":"en-US","command":"/fieldnotes"}`, token, ""); rec != http.StatusOK {
			t.Fatalf("assemble: %d", rec)
		}
	}
	for _, id := range []string{"base.identity", "no.such.module"} {
		apiCall(t, srv.URL(), http.MethodGet, "/api/v1/modules/"+id, "", token, "")
	}
	apiCall(t, srv.URL(), http.MethodGet, "/no/such/page/42", "", "", "")
	// Methods a client invents are one label value, not one each.
	const invented = 50
	for i := range invented {
		apiCall(t, srv.URL(), fmt.Sprintf("INVENTED%d", i), "/api/v1/modules", "", token, "")
	}
	if code := apiCall(t, srv.URL(), http.MethodGet, metrics.Path, "", "", ""); code == http.StatusOK {
		t.Error("the console's port answers /metrics")
	}

	after := scrape(t, srv.MetricsURL())
	for _, c := range []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"method": "POST", "route": "/api/v1/assemble", "status": "200"}, assemblies},
		{map[string]string{"method": "GET", "route": "/api/v1/modules/:id", "status": "200"}, 1},
		{map[string]string{"method": "GET", "route": "/api/v1/modules/:id", "status": "404"}, 1},
		{map[string]string{"method": "GET", "route": metrics.Unmatched, "status": "404"}, 2}, // the page and /metrics
		{map[string]string{"method": metrics.OtherMethod}, invented},
	} {
		if got := value(after, "promptdesk_http_requests_total", c.labels); got != c.want {
			t.Errorf("promptdesk_http_requests_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
	for _, f := range after["promptdesk_http_requests_total"].GetMetric() {
		for _, l := range f.GetLabel() {
			if l.GetName() == "method" && strings.HasPrefix(l.GetValue(), "INVENTED") {
				t.Errorf("a client's invented method became a label: %q", l.GetValue())
			}
			if l.GetName() == "route" && (strings.Contains(l.GetValue(), "base.identity") || strings.Contains(l.GetValue(), "42")) {
				t.Errorf("a raw path became a route label: %q", l.GetValue())
			}
		}
	}
	if n := histogramCount(after, "promptdesk_http_request_duration_seconds", map[string]string{"method": "POST", "route": "/api/v1/assemble"}); n != assemblies {
		t.Errorf("assemble latency observations: %d, want %d", n, assemblies)
	}
	for _, name := range []string{"promptdesk_assembly_duration_seconds", "promptdesk_token_counting_duration_seconds"} {
		if n := histogramCount(after, name, nil); n != assemblies {
			t.Errorf("%s observations: %d, want %d", name, n, assemblies)
		}
	}
	if total, counting := histogramSum(after, "promptdesk_assembly_duration_seconds"), histogramSum(after, "promptdesk_token_counting_duration_seconds"); counting <= 0 || counting > total {
		t.Errorf("token counting took %v s of the assemblies' %v s", counting, total)
	}
	if v := value(after, "promptdesk_db_pool_acquires_total"); v <= value(before, "promptdesk_db_pool_acquires_total") {
		t.Errorf("promptdesk_db_pool_acquires_total did not rise: %v", v)
	}

	// A draft, then its publication.
	var cur struct {
		Text string `json:"text"`
	}
	if code := apiCallJSON(t, srv.URL(), http.MethodGet, "/api/v1/overrides/base.identity?locale=en-US", "", token, "", &cur); code != http.StatusOK {
		t.Fatalf("GET override: %d", code)
	}
	text := strings.TrimRight(cur.Text, "\n") + "\n\nOne more line.\n"
	var put struct {
		Revision int `json:"revision"`
	}
	if code := apiCallJSON(t, srv.URL(), http.MethodPut, "/api/v1/overrides/base.identity?locale=en-US", text, token, "", &put); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("PUT override: %d", code)
	}
	draft := scrape(t, srv.MetricsURL())
	if v := value(draft, "promptdesk_drafts"); v != 1 {
		t.Errorf("promptdesk_drafts after a draft = %v, want 1", v)
	}
	if v := value(draft, "promptdesk_snapshot_generation"); v != gen {
		t.Errorf("promptdesk_snapshot_generation after a draft = %v, want %v (nothing served changed)", v, gen)
	}
	if code := apiCall(t, srv.URL(), http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=en-US", "", token, strconv.Itoa(put.Revision)); code != http.StatusOK {
		t.Fatalf("publish revision %d: %d", put.Revision, code)
	}
	published := scrape(t, srv.MetricsURL())
	if v := value(published, "promptdesk_snapshot_generation"); v <= gen {
		t.Errorf("promptdesk_snapshot_generation after publishing = %v, want above %v", v, gen)
	}
	if v := value(published, "promptdesk_overrides", map[string]string{"state": "serving"}); v != 1 {
		t.Errorf(`promptdesk_overrides{state="serving"} = %v, want 1`, v)
	}
	if v, d := value(published, "promptdesk_drafts"), value(published, "promptdesk_overrides", map[string]string{"state": "drifted"}); v != 0 || d != 0 {
		t.Errorf("after publishing: drafts %v, drifted %v, want 0 and 0", v, d)
	}
}

// scrape GETs a metrics URL and parses the text format.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	if url == "" {
		t.Fatal("no metrics URL")
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return fams
}

// sample is the metric of family name whose labels include every one of
// want (the first of several; nil when none).
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	for _, m := range fams[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		ok := true
		for k, v := range want {
			ok = ok && have[k] == v
		}
		if ok {
			return m
		}
	}
	return nil
}

// value is the gauge or counter value of sample, 0 when absent.
func value(fams map[string]*dto.MetricFamily, name string, labels ...map[string]string) float64 {
	var want map[string]string
	if len(labels) > 0 {
		want = labels[0]
	}
	m := sample(fams, name, want)
	switch {
	case m == nil:
		return 0
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	return m.GetCounter().GetValue()
}

// histogramCount is the observation count of a histogram sample.
func histogramCount(fams map[string]*dto.MetricFamily, name string, labels map[string]string) uint64 {
	return sample(fams, name, labels).GetHistogram().GetSampleCount()
}

// histogramSum is the sum of the observations of an unlabelled histogram.
func histogramSum(fams map[string]*dto.MetricFamily, name string) float64 {
	return sample(fams, name, nil).GetHistogram().GetSampleSum()
}

// apiCall sends one request over the network to base+path with the token
// and If-Match (when not empty) and returns the status.
func apiCall(t *testing.T, base, method, path, body, token, ifMatch string) int {
	t.Helper()
	return apiCallJSON(t, base, method, path, body, token, ifMatch, nil)
}

// apiCallJSON is apiCall decoding a 2xx answer into out (when not nil).
func apiCallJSON(t *testing.T, base, method, path, body, token, ifMatch string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	authorize(req, token)
	switch {
	case method == http.MethodPut:
		req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	case body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, data)
		}
	}
	return resp.StatusCode
}

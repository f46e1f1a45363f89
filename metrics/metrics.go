// Package metrics is promptdesk's Prometheus instrumentation: every metric
// name, help text and bucket list lives here, so that the server, the
// assembler's observer and the tests share one definition, and no other
// package depends on the Prometheus client. Values that are state (the
// served generation, counts, ages, the database pool) are read when
// Prometheus scrapes, from the functions given to Watch; events (requests,
// assemblies, notifications) are recorded as they happen.
package metrics

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where Handler answers.
const Path = "/metrics"

// Unmatched is the route label of a request that matched no route, so
// that unknown paths do not each become a time series.
const Unmatched = "unmatched"

// Metrics holds promptdesk's metrics and the registry they are served
// from. Create it with New; it is safe for concurrent use.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	assembly  prometheus.Histogram
	counting  prometheus.Histogram
	notifyLag prometheus.Histogram
}

// Request and assembly buckets, in seconds: assembly takes tens of
// microseconds to a few milliseconds, a request up to the write timeout.
var (
	requestBuckets  = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	assemblyBuckets = prometheus.ExponentialBuckets(.00005, 2, 14) // 50 µs … 410 ms
	lagBuckets      = []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
)

// New returns the metrics, registered with a registry of their own
// together with the Go runtime and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "promptdesk_http_requests_total",
			Help: "HTTP requests answered, by method, route template (e.g. /modules/:id; \"unmatched\" for none) and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "promptdesk_http_request_duration_seconds",
			Help:    "Time from a request's headers to its answer, by method and route template.",
			Buckets: requestBuckets,
		}, []string{"method", "route"}),
		assembly: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "promptdesk_assembly_duration_seconds",
			Help:    "Time one successful assembly took (API, console preview and scenarios), token counting included.",
			Buckets: assemblyBuckets,
		}),
		counting: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "promptdesk_token_counting_duration_seconds",
			Help:    "Time one successful assembly spent counting tokens.",
			Buckets: assemblyBuckets,
		}),
		notifyLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "promptdesk_notification_lag_seconds",
			Help:    "Time from a change being committed (by any instance; clocks of several hosts may differ) to its notification reaching this process.",
			Buckets: lagBuckets,
		}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.assembly, m.counting, m.notifyLag,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// OtherMethod is the method label of a request whose method is not one
// of HTTP's standard ones.
const OtherMethod = "other"

// standardMethods are the methods HTTP defines (RFC 9110, and PATCH).
var standardMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace}

// Handler serves the metrics in the Prometheus text format; errors while
// gathering are answered with a 500 and logged by promhttp.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Request records one answered request: method, route template (not the
// raw path; Unmatched when no route matched), status sent and duration.
// A method other than HTTP's standard ones is recorded as OtherMethod:
// the client chooses the method, and each label value is a series kept
// for the life of the process.
func (m *Metrics) Request(method, route string, status int, d time.Duration) {
	if !slices.Contains(standardMethods, method) {
		method = OtherMethod
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(d.Seconds())
}

// Assembly records one successful assembly: its whole duration and the
// part spent counting tokens.
func (m *Metrics) Assembly(total, counting time.Duration) {
	m.assembly.Observe(total.Seconds())
	m.counting.Observe(counting.Seconds())
}

// Notified records a change notification committed at `at` (zero: unknown,
// nothing is recorded) and received at now.
func (m *Metrics) Notified(at, now time.Time) {
	if at.IsZero() {
		return
	}
	m.notifyLag.Observe(max(now.Sub(at), 0).Seconds())
}

// State is what is served, read at each scrape.
type State struct {
	// Generation is the served state's generation, rising with every
	// change of what the runtime API serves; LibraryGeneration the library's, rising with every reload
	// of a library folder.
	Generation        int64
	LibraryGeneration int
	// Published overrides serving, drafts pending, published overrides
	// whose builtin moved on (drifted), and published overrides that no
	// longer parse and do not serve (broken).
	Overrides, Drafts, Drifted, Broken int
	// StaleSince is when the database was found unreachable while the
	// last state read serves; zero while it answers.
	StaleSince time.Time
	// LastNotification is when the last change notification arrived;
	// zero when none has.
	LastNotification time.Time
	// TokensLoadedAt is when the API tokens were last loaded in full.
	TokensLoadedAt time.Time
}

// Watch registers the metrics read at each scrape: the served state from
// state() and the database pool's statistics from pool() (pgxpool.Pool's
// Stat). Call it once per Metrics; a second call panics (already
// registered).
func (m *Metrics) Watch(state func() State, pool func() *pgxpool.Stat, now func() time.Time) {
	m.reg.MustRegister(&stateCollector{state: state, now: now}, &poolCollector{pool: pool})
}

// stateCollector reads State once per scrape.
type stateCollector struct {
	state func() State
	now   func() time.Time
}

var (
	generationDesc        = prometheus.NewDesc("promptdesk_snapshot_generation", "Generation of what the runtime API serves; it rises with every change of a published override, a profile or the library.", nil, nil)
	libraryGenerationDesc = prometheus.NewDesc("promptdesk_library_generation", "Generation of the library that serves; it rises with every reload of a library folder.", nil, nil)
	overridesDesc         = prometheus.NewDesc("promptdesk_overrides", "Published overrides, by state: serving (including drifted), drifted (their builtin moved on), broken (no longer parse, not served).", []string{"state"}, nil)
	draftsDesc            = prometheus.NewDesc("promptdesk_drafts", "Draft overrides pending publication.", nil, nil)
	staleSinceDesc        = prometheus.NewDesc("promptdesk_stale_since_timestamp_seconds", "Unix time since when the database is unreachable and the last state read serves; 0 while it answers.", nil, nil)
	staleDesc             = prometheus.NewDesc("promptdesk_stale", "1 while the database is unreachable and the last state read serves, else 0.", nil, nil)
	lastNotificationDesc  = prometheus.NewDesc("promptdesk_last_notification_timestamp_seconds", "Unix time of the last change notification received; 0 when none has.", nil, nil)
	tokenCacheAgeDesc     = prometheus.NewDesc("promptdesk_token_cache_age_seconds", "Time since the API tokens were last loaded in full from the database.", nil, nil)
)

// Describe implements prometheus.Collector.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{generationDesc, libraryGenerationDesc, overridesDesc, draftsDesc, staleSinceDesc, staleDesc, lastNotificationDesc, tokenCacheAgeDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.state()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(generationDesc, float64(s.Generation))
	gauge(libraryGenerationDesc, float64(s.LibraryGeneration))
	gauge(overridesDesc, float64(s.Overrides), "serving")
	gauge(overridesDesc, float64(s.Drifted), "drifted")
	gauge(overridesDesc, float64(s.Broken), "broken")
	gauge(draftsDesc, float64(s.Drafts))
	stale := 0.0
	if !s.StaleSince.IsZero() {
		stale = 1
	}
	gauge(staleDesc, stale)
	gauge(staleSinceDesc, unix(s.StaleSince))
	gauge(lastNotificationDesc, unix(s.LastNotification))
	gauge(tokenCacheAgeDesc, max(c.now().Sub(s.TokensLoadedAt), 0).Seconds())
}

// unix is t in Unix seconds, 0 for the zero time.
func unix(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}

// poolCollector reads the pool's statistics once per scrape.
type poolCollector struct {
	pool func() *pgxpool.Stat
}

var (
	poolConnsDesc       = prometheus.NewDesc("promptdesk_db_pool_connections", "Connections of the database pool, by state: acquired (in use), idle, constructing; total is all of them.", []string{"state"}, nil)
	poolMaxDesc         = prometheus.NewDesc("promptdesk_db_pool_max_connections", "Most connections the database pool opens.", nil, nil)
	poolAcquiresDesc    = prometheus.NewDesc("promptdesk_db_pool_acquires_total", "Connections acquired from the pool.", nil, nil)
	poolEmptyDesc       = prometheus.NewDesc("promptdesk_db_pool_empty_acquires_total", "Acquires that found no idle connection and had to wait for one or open one.", nil, nil)
	poolCanceledDesc    = prometheus.NewDesc("promptdesk_db_pool_canceled_acquires_total", "Acquires given up because their request was cancelled or timed out.", nil, nil)
	poolAcquireTimeDesc = prometheus.NewDesc("promptdesk_db_pool_acquire_duration_seconds_total", "Total time spent acquiring connections from the pool.", nil, nil)
	poolNewDesc         = prometheus.NewDesc("promptdesk_db_pool_new_connections_total", "Connections the pool opened.", nil, nil)
	poolDestroyedDesc   = prometheus.NewDesc("promptdesk_db_pool_destroyed_connections_total", "Connections the pool closed, by reason: lifetime (max lifetime), idle (max idle time).", []string{"reason"}, nil)
)

// Describe implements prometheus.Collector.
func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolConnsDesc, poolMaxDesc, poolAcquiresDesc, poolEmptyDesc, poolCanceledDesc, poolAcquireTimeDesc, poolNewDesc, poolDestroyedDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool()
	if s == nil {
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(poolConnsDesc, float64(s.AcquiredConns()), "acquired")
	gauge(poolConnsDesc, float64(s.IdleConns()), "idle")
	gauge(poolConnsDesc, float64(s.ConstructingConns()), "constructing")
	gauge(poolConnsDesc, float64(s.TotalConns()), "total")
	gauge(poolMaxDesc, float64(s.MaxConns()))
	counter(poolAcquiresDesc, float64(s.AcquireCount()))
	counter(poolEmptyDesc, float64(s.EmptyAcquireCount()))
	counter(poolCanceledDesc, float64(s.CanceledAcquireCount()))
	counter(poolAcquireTimeDesc, s.AcquireDuration().Seconds())
	counter(poolNewDesc, float64(s.NewConnsCount()))
	counter(poolDestroyedDesc, float64(s.MaxLifetimeDestroyCount()), "lifetime")
	counter(poolDestroyedDesc, float64(s.MaxIdleDestroyCount()), "idle")
}

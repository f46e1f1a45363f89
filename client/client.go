// Package client is the Go client of promptdesk's runtime API for agent
// runtimes: Assemble, Render, Commands and Tools answer with the
// server's own types (assembler.Result, assembler.Rendered,
// assembler.Command, assembler.Tool) and say in Origin where each
// answer came from.
//
// Caching. Every answer is cached with the X-Promptdesk-Generation it
// came with. Follow reads the change feed (GET /api/v1/changes, a long
// poll); while it is followed and says the generation has not moved, a
// cached answer is served without a request (SourceCache). When the
// generation moves, the answers used in the last minute (the 64 used
// last) are fetched again in the background at once, and until that is
// done the cached answer is served marked SourceStale (stale while
// revalidate), the others on their next use: an
// assembly is posted again, a GET is sent with If-None-Match and its
// ETag, and a 304 keeps the cached body. Without Follow every answer is
// revalidated the same way on use.
//
// Bounded staleness. While promptdesk answers, a cached answer is served
// at most Options.MaxStale (default 2 s) after the client learned it may
// be outdated (the feed moved, or stopped answering); later calls wait
// for the server. A publish reaches a following client within the time
// of the feed's answer and one request (BENCHMARKS.md).
//
// Epochs. Generations are counted by one server process from the time
// it started. When the feed answers "reset" — the server restarted, its
// database was replaced under a new process, or the client fell more
// than 1024 changes behind — a new epoch begins: the whole cache is
// dropped (Status.Epoch counts them) and the answers used in the last
// minute are fetched again in the background. Point a client at one
// process, or at a load balancer that keeps a client on one.
//
// Outages. When promptdesk cannot be reached (no connection, a timeout,
// a 5xx), the last good answer is served marked SourceStale with
// Origin.Err saying why, for as long as the outage lasts; with nothing
// cached, Assemble, Render, Commands and Tools assemble locally from the
// library embedded in this binary through the server's own assembler,
// marked SourceFallback, so a runtime always has a prompt. The
// fallback knows no overrides and no profiles: a request naming a
// profile is assembled without it, and a request pinning revisions is
// refused. Until the server answers again (a feed poll or one
// background request each Options.RetryAfter), no call waits for it.
// A 4xx is the request's fault and is returned as *Error, never hidden
// behind a cached answer. While the server itself answers without its
// database, Origin.ServerStaleSince says since when its state was read.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// HeaderGeneration is the header promptdesk sends the generation of what
// it serves in.
const HeaderGeneration = "X-Promptdesk-Generation"

// Defaults of Options.
const (
	DefaultMaxStale   = 2 * time.Second
	DefaultFeedWait   = 25 * time.Second
	DefaultRetryAfter = time.Second
	DefaultMaxEntries = 1000
	DefaultTimeout    = 10 * time.Second
)

// After a change (the generation moved, or an epoch began) the
// refreshAhead answers used last, within recentUse, are fetched again
// in the background; the others wait for their next use.
const (
	recentUse    = time.Minute
	refreshAhead = 64
)

// backgroundFetches is how many background fetches run at once.
const backgroundFetches = 4

// Options are a Client's settings; the zero value takes every default.
type Options struct {
	// HTTPClient sends every request but the feed's long poll (which is
	// bounded by FeedWait instead of its Timeout); nil is a client with
	// a DefaultTimeout (10 s) timeout.
	HTTPClient *http.Client
	// MaxStale is how long a cached answer that may be outdated is still
	// served while it is revalidated in the background; 0 means
	// DefaultMaxStale, a negative value never (the call waits).
	MaxStale time.Duration
	// FeedWait is how long one change-feed poll waits for a change, 1 to
	// 30 s; 0 means DefaultFeedWait.
	FeedWait time.Duration
	// RetryAfter is how long after promptdesk could not be reached calls
	// answer from the cache or the fallback without asking it, one
	// background request finding out whether it is back; 0 means
	// DefaultRetryAfter.
	RetryAfter time.Duration
	// MaxEntries bounds the cache; the answer used least recently goes
	// first. 0 means DefaultMaxEntries.
	MaxEntries int
	// Assembler assembles the fallback; set it up as the server is
	// (fallback locale, time zone, skill budget). nil is the server's
	// defaults: en-US, UTC, token counting on.
	Assembler *assembler.Assembler
	// Library is the fallback's library; nil is the builtin library
	// embedded in this binary (library.Builtin), loaded on first use.
	Library *library.Snapshot
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Source says where an answer came from.
type Source string

// Sources of an answer.
const (
	// SourceServer: promptdesk answered this call (a 304 included).
	SourceServer Source = "server"
	// SourceCache: from the cache, which the change feed says is current.
	SourceCache Source = "cache"
	// SourceStale: from the cache, and it may be outdated: the
	// generation moved or the feed is not followed (a revalidation runs
	// in the background), or promptdesk cannot be reached (Err says
	// why).
	SourceStale Source = "stale"
	// SourceFallback: assembled in this process from the fallback
	// library, promptdesk unreachable and nothing cached; Err says why.
	SourceFallback Source = "fallback"
)

// Origin says where an answer came from and how old it is.
type Origin struct {
	Source Source
	// Generation is the X-Promptdesk-Generation the answer was fetched
	// at; 0 for the fallback.
	Generation int64
	// FetchedAt is when promptdesk last confirmed the answer (a 200 or a
	// 304); for the fallback, when it was assembled.
	FetchedAt time.Time
	// NotModified: this call revalidated the cached answer and
	// promptdesk answered 304.
	NotModified bool
	// Err is why promptdesk was not used: set with SourceFallback, and
	// with SourceStale while promptdesk cannot be reached.
	Err error
	// ServerStaleSince is set while promptdesk itself answers without
	// its database: the time (to the second) of the state it serves,
	// read from the report's assembler.StaleModule warning (assemble and
	// render only).
	ServerStaleSince time.Time
}

// Assembly is an assembled system prompt (the JSON of POST
// /api/v1/assemble) and where it came from. Its slices are shared with
// the cache: read them, do not modify them.
type Assembly struct {
	assembler.Result
	Origin Origin
}

// Rendering is one rendered module (the JSON of POST /api/v1/render) and
// where it came from; read-only as Assembly.
type Rendering struct {
	assembler.Rendered
	Origin Origin
}

// Commands is the slash-command menu of a locale (GET /api/v1/commands),
// sorted by command then module, and where it came from; read-only.
type Commands struct {
	List   []assembler.Command
	Origin Origin
}

// Tools is the tool descriptions of a locale (GET /api/v1/tools) by tool
// name, and where they came from; read-only.
type Tools struct {
	ByName map[string]assembler.Tool
	Origin Origin
}

// Error is promptdesk's refusal of a request (a 4xx, the API's JSON
// error): Status is the HTTP status, Code the API's error code
// ("invalid_request", "not_found", "unauthorized", …), Field the request
// field, query parameter or header at fault ("" when none).
type Error struct {
	Status  int
	Code    string
	Message string
	Field   string
}

// Error is "promptdesk: <status> <code>: field <field>: <message>", the
// field part only when set.
func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("promptdesk: %d %s: field %s: %s", e.Status, e.Code, e.Field, e.Message)
	}
	return fmt.Sprintf("promptdesk: %d %s: %s", e.Status, e.Code, e.Message)
}

// ErrUnavailable wraps every error of promptdesk not being reachable (no
// connection, a timeout, a 5xx), as Origin.Err and as the error of a
// call that had neither a cached answer nor a fallback.
var ErrUnavailable = errors.New("promptdesk unavailable")

// Status is what a Client knows of promptdesk.
type Status struct {
	// Generation is the newest generation known; 0 before any answer.
	Generation int64
	// Following: the change feed answered its last poll.
	Following bool
	// Epoch counts the epochs begun since the client was made (the feed
	// answered "reset"); 0 in the first.
	Epoch int
	// Unreachable: the last request to promptdesk failed with
	// ErrUnavailable, and LastErr is its error.
	Unreachable bool
	LastErr     error
	// Entries is the number of cached answers.
	Entries int
}

// Client talks to one promptdesk server. Make it with New and run Follow
// in a goroutine to keep its cache current; it is safe for concurrent
// use.
type Client struct {
	base  string
	token string
	http  *http.Client
	opt   Options
	now   func() time.Time

	fallbackOnce sync.Once
	fallbackLib  *library.Snapshot
	fallbackErr  error

	bg chan struct{} // a slot per background fetch running

	mu        sync.Mutex
	gen       int64
	following bool
	// changedAt is when the client last learned that cached answers may
	// be outdated: the generation moved or the feed stopped answering.
	changedAt time.Time
	epoch     int
	// downAt is when promptdesk last failed to be reached; zero while it
	// answers. lastErr is that failure.
	downAt   time.Time
	lastErr  error
	probedAt time.Time
	entries  map[string]*entry
	inflight map[string]bool
}

// entry is one cached answer.
type entry struct {
	call    call
	value   any
	gen     int64
	etag    string
	fetched time.Time
	used    time.Time
	epoch   int
}

// call is one request of the API: what to send and how to read the answer.
type call struct {
	key    string
	method string
	path   string
	body   []byte
	decode func([]byte) (any, error)
	// fallback answers the call locally; nil when the fallback cannot.
	fallback func() (any, error)
}

// New returns a client of the promptdesk server at baseURL
// ("http://127.0.0.1:8080") using the API token (a token with the
// assemble scope; "pd_…").
func New(baseURL, token string, opt Options) *Client {
	if opt.HTTPClient == nil {
		opt.HTTPClient = &http.Client{Timeout: DefaultTimeout}
	}
	if opt.MaxStale == 0 {
		opt.MaxStale = DefaultMaxStale
	}
	if opt.FeedWait <= 0 {
		opt.FeedWait = DefaultFeedWait
	}
	opt.FeedWait = min(max(opt.FeedWait, time.Second), 30*time.Second)
	if opt.RetryAfter <= 0 {
		opt.RetryAfter = DefaultRetryAfter
	}
	if opt.MaxEntries <= 0 {
		opt.MaxEntries = DefaultMaxEntries
	}
	if opt.Assembler == nil {
		opt.Assembler = assembler.New(assembler.Config{CountTokens: true})
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), token: token, http: opt.HTTPClient, opt: opt, now: now,
		bg: make(chan struct{}, backgroundFetches), entries: map[string]*entry{}, inflight: map[string]bool{}}
}

// Status returns what the client knows of promptdesk now.
func (c *Client) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Status{Generation: c.gen, Following: c.following, Epoch: c.epoch, Unreachable: !c.downAt.IsZero(), LastErr: c.lastErr, Entries: len(c.entries)}
}

// Assemble returns the assembly of req (POST /api/v1/assemble), from
// the cache, promptdesk or the fallback as the package comment says.
// Errors: *Error when promptdesk refuses the request (a 4xx: a wrong
// field, an unknown profile or module, a missing variable…); with the
// fallback, its *library.Error for the same faults; an error wrapping
// ErrUnavailable for a request pinning revisions that promptdesk cannot
// be asked for.
func (c *Client) Assemble(ctx context.Context, req *assembler.Request) (Assembly, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Assembly{}, fmt.Errorf("assemble request: %w", err)
	}
	cl := call{key: "assemble " + string(body), method: http.MethodPost, path: "/api/v1/assemble", body: body,
		decode: decoder[assembler.Result]()}
	if len(req.Revisions) == 0 {
		cl.fallback = func() (any, error) { return c.fallbackAssemble(req) }
	}
	v, o, err := c.do(ctx, cl)
	if err != nil {
		return Assembly{}, err
	}
	res := v.(*assembler.Result)
	o.ServerStaleSince, _ = assembler.StaleSince(res.Report)
	return Assembly{Result: *res, Origin: o}, nil
}

// Render returns one module rendered with the request's variables (POST
// /api/v1/render), from the cache, promptdesk or the fallback. Errors
// as Assemble (typically 404 not_found for the module, 422
// missing_variable or extra_variable naming "variables.<name>").
func (c *Client) Render(ctx context.Context, req *assembler.RenderRequest) (Rendering, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Rendering{}, fmt.Errorf("render request: %w", err)
	}
	cl := call{key: "render " + string(body), method: http.MethodPost, path: "/api/v1/render", body: body,
		decode: decoder[assembler.Rendered]()}
	if len(req.Revisions) == 0 {
		cl.fallback = func() (any, error) { return c.fallbackRender(req) }
	}
	v, o, err := c.do(ctx, cl)
	if err != nil {
		return Rendering{}, err
	}
	res := v.(*assembler.Rendered)
	o.ServerStaleSince, _ = assembler.StaleSince(res.Report)
	return Rendering{Rendered: *res, Origin: o}, nil
}

// Commands returns the slash commands of locale (a BCP 47 tag; "" is
// the server's fallback locale), GET /api/v1/commands, revalidated with
// its ETag. Errors as Assemble (422 invalid_request for a bad locale).
func (c *Client) Commands(ctx context.Context, locale string) (Commands, error) {
	path := "/api/v1/commands" + localeQuery(locale)
	cl := call{key: "GET " + path, method: http.MethodGet, path: path,
		decode: func(b []byte) (any, error) {
			var out []assembler.Command
			err := json.Unmarshal(b, &out)
			return out, err
		},
		fallback: func() (any, error) {
			snap, err := c.fallbackLibrary()
			if err != nil {
				return nil, err
			}
			return c.opt.Assembler.Commands(snap, nil, c.fallbackLocale(locale)), nil
		}}
	v, o, err := c.do(ctx, cl)
	if err != nil {
		return Commands{}, err
	}
	return Commands{List: v.([]assembler.Command), Origin: o}, nil
}

// Tools returns the tool descriptions of locale ("" is the server's
// fallback locale) by tool name, GET /api/v1/tools, revalidated with its
// ETag. Errors as Commands.
func (c *Client) Tools(ctx context.Context, locale string) (Tools, error) {
	path := "/api/v1/tools" + localeQuery(locale)
	cl := call{key: "GET " + path, method: http.MethodGet, path: path,
		decode: func(b []byte) (any, error) {
			var out map[string]assembler.Tool
			err := json.Unmarshal(b, &out)
			return out, err
		},
		fallback: func() (any, error) {
			snap, err := c.fallbackLibrary()
			if err != nil {
				return nil, err
			}
			return c.opt.Assembler.Tools(snap, nil, c.fallbackLocale(locale), c.now())
		}}
	v, o, err := c.do(ctx, cl)
	if err != nil {
		return Tools{}, err
	}
	return Tools{ByName: v.(map[string]assembler.Tool), Origin: o}, nil
}

// localeQuery is the ?locale= of a GET route, "" for none.
func localeQuery(locale string) string {
	if locale == "" {
		return ""
	}
	return "?locale=" + url.QueryEscape(locale)
}

// decoder reads a JSON answer into a new T.
func decoder[T any]() func([]byte) (any, error) {
	return func(b []byte) (any, error) {
		v := new(T)
		if err := json.Unmarshal(b, v); err != nil {
			return nil, err
		}
		return v, nil
	}
}

// verdict is how a call is answered.
type verdict int

const (
	fetchNow     verdict = iota // ask promptdesk and wait
	serveCurrent                // the cache is current
	serveStale                  // the cache, revalidated in the background
	serveOutage                 // promptdesk is unreachable: the cache or the fallback
)

// judge decides how to answer a call whose cached entry is e (nil when
// none); the caller holds c.mu.
func (c *Client) judge(e *entry, now time.Time) verdict {
	if e != nil && c.following && e.gen == c.gen {
		return serveCurrent
	}
	if !c.downAt.IsZero() {
		return serveOutage
	}
	if e == nil || c.opt.MaxStale < 0 {
		return fetchNow
	}
	since := e.fetched
	if c.changedAt.After(since) {
		since = c.changedAt
	}
	if now.Sub(since) <= c.opt.MaxStale {
		return serveStale
	}
	return fetchNow
}

// do answers one call.
func (c *Client) do(ctx context.Context, cl call) (any, Origin, error) {
	now := c.now()
	c.mu.Lock()
	e := c.entries[cl.key]
	if e != nil {
		e.used = now
	}
	v := c.judge(e, now)
	lastErr := c.lastErr
	var probe bool
	if v == serveOutage && now.Sub(c.probedAt) >= c.opt.RetryAfter {
		c.probedAt, probe = now, true
	}
	c.mu.Unlock()
	switch v {
	case serveCurrent:
		return e.value, Origin{Source: SourceCache, Generation: e.gen, FetchedAt: e.fetched}, nil
	case serveStale:
		c.background(cl)
		return e.value, Origin{Source: SourceStale, Generation: e.gen, FetchedAt: e.fetched}, nil
	case serveOutage:
		if probe {
			c.background(cl)
		}
		return c.outage(cl, e, lastErr)
	}
	val, o, err := c.fetch(ctx, cl, e)
	if errors.Is(err, ErrUnavailable) {
		return c.outage(cl, e, err)
	}
	return val, o, err
}

// outage answers a call promptdesk could not be asked for (err says
// why): the cached answer, else the fallback, else err.
func (c *Client) outage(cl call, e *entry, err error) (any, Origin, error) {
	if e != nil {
		return e.value, Origin{Source: SourceStale, Generation: e.gen, FetchedAt: e.fetched, Err: err}, nil
	}
	if cl.fallback == nil {
		return nil, Origin{}, fmt.Errorf("%w; the fallback cannot pin revisions", err)
	}
	at := c.now()
	v, ferr := cl.fallback()
	if ferr != nil {
		return nil, Origin{}, ferr
	}
	return v, Origin{Source: SourceFallback, FetchedAt: at, Err: err}, nil
}

// background fetches cl again unless a fetch of it runs already, with at
// most backgroundFetches at once; the caller does not wait.
func (c *Client) background(cl call) {
	c.mu.Lock()
	if c.inflight[cl.key] {
		c.mu.Unlock()
		return
	}
	c.inflight[cl.key] = true
	c.mu.Unlock()
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.inflight, cl.key)
			c.mu.Unlock()
		}()
		c.bg <- struct{}{}
		defer func() { <-c.bg }()
		c.mu.Lock()
		e := c.entries[cl.key]
		c.mu.Unlock()
		_, _, _ = c.fetch(context.Background(), cl, e)
	}()
}

// fetch asks promptdesk for cl, revalidating e when it has an ETag, and
// caches the answer. Errors: *Error for a 4xx; ErrUnavailable wrapped
// when promptdesk cannot be reached; an answer that does not decode.
func (c *Client) fetch(ctx context.Context, cl call, e *entry) (any, Origin, error) {
	c.mu.Lock()
	epoch := c.epoch
	c.mu.Unlock()
	etag := ""
	if e != nil {
		etag = e.etag
	}
	resp, err := c.send(ctx, cl.method, cl.path, cl.body, etag)
	if err != nil {
		if errors.Is(err, ErrUnavailable) {
			c.markDown(err)
		}
		return nil, Origin{}, err
	}
	c.markUp()
	at := c.now()
	var value any
	if resp.status == http.StatusNotModified && e != nil {
		value = e.value
	} else if value, err = cl.decode(resp.body); err != nil {
		return nil, Origin{}, fmt.Errorf("%s %s: the answer does not decode: %w", cl.method, cl.path, err)
	} else {
		etag = resp.etag
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen = max(c.gen, resp.gen)
	if epoch == c.epoch {
		c.entries[cl.key] = &entry{call: cl, value: value, gen: resp.gen, etag: etag, fetched: at, used: at, epoch: epoch}
		c.evict()
	}
	return value, Origin{Source: SourceServer, Generation: resp.gen, FetchedAt: at, NotModified: resp.status == http.StatusNotModified}, nil
}

// evict drops the entries used least recently beyond MaxEntries; the
// caller holds c.mu.
func (c *Client) evict() {
	for len(c.entries) > c.opt.MaxEntries {
		var oldest string
		var at time.Time
		for k, e := range c.entries {
			if oldest == "" || e.used.Before(at) {
				oldest, at = k, e.used
			}
		}
		delete(c.entries, oldest)
	}
}

// markDown notes that promptdesk could not be reached.
func (c *Client) markDown(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.downAt.IsZero() {
		c.downAt = c.now()
		c.probedAt = c.downAt
	}
	c.lastErr = err
}

// markUp notes that promptdesk answered.
func (c *Client) markUp() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.downAt, c.lastErr = time.Time{}, nil
}

// response is an answer of 2xx or 304.
type response struct {
	status int
	body   []byte
	gen    int64
	etag   string
}

// send makes one request with the token. Errors: *Error for a 4xx;
// ErrUnavailable wrapped for no connection, a timeout or a 5xx.
func (c *Client) send(ctx context.Context, method, path string, body []byte, etag string) (response, error) {
	return c.sendWith(ctx, c.http, method, path, body, etag)
}

func (c *Client) sendWith(ctx context.Context, hc *http.Client, method, path string, body []byte, etag string) (response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return response{}, err
		}
		return response{}, fmt.Errorf("%w: %s %s: %w", ErrUnavailable, method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("%w: %s %s: reading the answer: %w", ErrUnavailable, method, path, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotModified || resp.StatusCode >= 200 && resp.StatusCode < 300:
		gen, _ := strconv.ParseInt(resp.Header.Get(HeaderGeneration), 10, 64)
		return response{status: resp.StatusCode, body: data, gen: gen, etag: resp.Header.Get("ETag")}, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return response{}, refusal(resp.StatusCode, data)
	}
	return response{}, fmt.Errorf("%w: %s %s: %s: %s", ErrUnavailable, method, path, resp.Status, strings.TrimSpace(string(data)))
}

// refusal is the *Error of a 4xx answer.
func refusal(status int, body []byte) *Error {
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Field   string `json:"field"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Code == "" {
		return &Error{Status: status, Code: strconv.Itoa(status), Message: strings.TrimSpace(string(body))}
	}
	return &Error{Status: status, Code: e.Error.Code, Message: e.Error.Message, Field: e.Error.Field}
}

// isUnavailable reports whether err is promptdesk not being reached.
func isUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }

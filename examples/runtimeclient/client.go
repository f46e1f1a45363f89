// Package runtimeclient is an example of how an agent runtime uses
// promptdesk's API: it caches what it fetched by the generation of what
// promptdesk serves, follows the change feed to learn when that
// generation moves, revalidates GET answers with If-None-Match, and keeps
// serving its last good answer while promptdesk cannot be reached. It is
// a sketch to copy from, not a supported SDK; its test runs it against a
// real promptdesk server.
//
// The rule: an answer cached at generation G is used as it is while the
// feed is followed and says G is current. Otherwise (the generation
// moved, or the feed is down) it is asked for again: an assembly is
// POSTed again, a GET is revalidated with its ETag (a 304 costs no body).
// When that request fails (no connection, a timeout, a 5xx), the cached
// answer is returned with Stale set, and the error only when nothing is
// cached. The generation is one promptdesk process's: point a client at
// one process, or at a load balancer that keeps a client on one.
package runtimeclient

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
)

// HeaderGeneration is the header promptdesk sends the generation of what
// it serves in.
const HeaderGeneration = "X-Promptdesk-Generation"

// Client talks to one promptdesk server. Create it with New; call Follow
// in a goroutine to keep the cache current. It is safe for concurrent use.
type Client struct {
	base  string
	token string
	http  *http.Client
	// FeedWait is how long one change-feed request waits for a change
	// (the server allows up to 30 s).
	FeedWait time.Duration

	mu        sync.Mutex
	gen       int64 // the newest generation known; 0 when none
	following bool  // the feed answered last time and is being followed
	entries   map[string]*entry
}

// entry is one cached answer: its body, the generation it was fetched
// at, and its ETag (GET answers only).
type entry struct {
	body []byte
	gen  int64
	etag string
}

// Answer is what the client returns: the JSON body and where it came
// from.
type Answer struct {
	Body []byte
	// Generation is the generation the body was fetched at (0 when the
	// server sent none).
	Generation int64
	// Cached: the body came from the cache without a request.
	Cached bool
	// Revalidated: the server answered 304 Not Modified to the cached
	// ETag, so the cached body was used.
	Revalidated bool
	// Stale: the request failed and this is the last good answer; Err
	// says why.
	Stale bool
	Err   error
}

// New returns a client of the promptdesk server at baseURL
// ("http://127.0.0.1:8080") using the API token. httpClient nil takes one
// with a 10 s timeout.
func New(baseURL, token string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 10 * time.Second}
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), token: token, http: httpClient, FeedWait: 25 * time.Second, entries: map[string]*entry{}}
}

// Generation returns the newest generation the client knows of.
func (c *Client) Generation() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// fresh returns the cached entry of key when it may be used without a
// request, and the entry in any case (nil when none).
func (c *Client) fresh(key string) (e *entry, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e = c.entries[key]
	return e, e != nil && c.following && e.gen != 0 && e.gen == c.gen
}

// store caches body as key's answer at gen, and notes gen.
func (c *Client) store(key string, body []byte, gen int64, etag string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = &entry{body: body, gen: gen, etag: etag}
	c.gen = max(c.gen, gen)
}

// Assemble returns the assembly of req (the body of POST
// /api/v1/assemble): cached while its generation is current, else
// assembled again; the last good one when promptdesk cannot be reached.
// Errors: the server refused the request (a 4xx, as the API's JSON error),
// or it failed with nothing cached.
func (c *Client) Assemble(ctx context.Context, req any) (Answer, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Answer{}, err
	}
	key := "POST /api/v1/assemble " + string(body)
	cached, ok := c.fresh(key)
	if ok {
		return Answer{Body: cached.body, Generation: cached.gen, Cached: true}, nil
	}
	resp, err := c.do(ctx, http.MethodPost, "/api/v1/assemble", body, "")
	if err != nil {
		return stale(cached, err)
	}
	c.store(key, resp.body, resp.gen, "")
	return Answer{Body: resp.body, Generation: resp.gen}, nil
}

// Get returns the answer of a GET route (path and query, e.g.
// "/api/v1/modules/task.doc-minutes?locale=zh-CN"): cached while its
// generation is current, else revalidated with If-None-Match; the last
// good one when promptdesk cannot be reached. Errors as Assemble.
func (c *Client) Get(ctx context.Context, path string) (Answer, error) {
	key := "GET " + path
	cached, ok := c.fresh(key)
	if ok {
		return Answer{Body: cached.body, Generation: cached.gen, Cached: true}, nil
	}
	etag := ""
	if cached != nil {
		etag = cached.etag
	}
	resp, err := c.do(ctx, http.MethodGet, path, nil, etag)
	if err != nil {
		return stale(cached, err)
	}
	if resp.status == http.StatusNotModified && cached != nil {
		c.store(key, cached.body, resp.gen, etag)
		return Answer{Body: cached.body, Generation: resp.gen, Revalidated: true}, nil
	}
	c.store(key, resp.body, resp.gen, resp.etag)
	return Answer{Body: resp.body, Generation: resp.gen}, nil
}

// stale is the answer when a request failed with err: the cached entry,
// or err when there is none or the server refused the request.
func stale(cached *entry, err error) (Answer, error) {
	var refused *RefusedError
	if cached == nil || errors.As(err, &refused) {
		return Answer{}, err
	}
	return Answer{Body: cached.body, Generation: cached.gen, Stale: true, Err: err}, nil
}

// RefusedError is a 4xx answer: the request is wrong, and serving a
// cached answer would hide that.
type RefusedError struct {
	Status int
	Body   string // the API's JSON error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("promptdesk refused the request: %d %s", e.Status, e.Body)
}

// response is a successful (2xx or 304) answer.
type response struct {
	status int
	body   []byte
	gen    int64
	etag   string
}

// do sends one request. Errors: *RefusedError for a 4xx other than 304;
// any other failure (no connection, timeout, 5xx) as it is.
func (c *Client) do(ctx context.Context, method, path string, body []byte, etag string) (response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	gen, _ := strconv.ParseInt(resp.Header.Get(HeaderGeneration), 10, 64)
	switch {
	case resp.StatusCode == http.StatusNotModified || resp.StatusCode >= 200 && resp.StatusCode < 300:
		return response{status: resp.StatusCode, body: data, gen: gen, etag: resp.Header.Get("ETag")}, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return response{}, &RefusedError{Status: resp.StatusCode, Body: strings.TrimSpace(string(data))}
	}
	return response{}, fmt.Errorf("promptdesk answered %s: %s", resp.Status, strings.TrimSpace(string(data)))
}

// Follow reads the change feed (GET /api/v1/changes) until ctx ends,
// moving the client's generation with it: answers cached at an older
// generation are then asked for again. While the feed fails, nothing is
// used from the cache without a request (so a request finds out whether
// promptdesk is back), and Follow retries after 100 ms, doubling up to
// 5 s.
func (c *Client) Follow(ctx context.Context) {
	const minBackoff, maxBackoff = 100 * time.Millisecond, 5 * time.Second
	backoff := minBackoff
	for ctx.Err() == nil {
		if err := c.poll(ctx); err != nil {
			c.mu.Lock()
			c.following = false
			c.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		backoff = minBackoff
	}
}

// feedAnswer is the part of the change feed's answer the client uses.
type feedAnswer struct {
	Generation int64 `json:"generation"`
	Reset      bool  `json:"reset"`
}

// poll makes one change-feed request: since the known generation,
// waiting up to FeedWait for a change.
func (c *Client) poll(ctx context.Context) error {
	c.mu.Lock()
	since := c.gen
	c.mu.Unlock()
	q := url.Values{}
	if since > 0 {
		q.Set("since", strconv.FormatInt(since, 10))
		q.Set("wait", strconv.Itoa(int(c.FeedWait/time.Second)))
	}
	path := "/api/v1/changes"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	wctx, cancel := context.WithTimeout(ctx, c.FeedWait+10*time.Second)
	defer cancel()
	resp, err := c.doFeed(wctx, path)
	if err != nil {
		return err
	}
	var f feedAnswer
	if err := json.Unmarshal(resp, &f); err != nil {
		return fmt.Errorf("change feed: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.Reset {
		// The server cannot say what changed (it restarted, or the client
		// is too far behind): nothing cached is current.
		for _, e := range c.entries {
			e.gen = 0
		}
	}
	c.gen = f.Generation
	c.following = true
	return nil
}

// doFeed is do for the feed, whose long wait the client's own timeout
// must not cut short.
func (c *Client) doFeed(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	hc := *c.http
	hc.Timeout = 0 // ctx bounds the wait
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("change feed: %s: %s", resp.Status, strings.TrimSpace(string(data)))
	}
	return data, nil
}

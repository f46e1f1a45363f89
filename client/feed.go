package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// Backoff of Follow after a failed poll: from feedRetryMin, doubling up
// to feedRetryMax.
const (
	feedRetryMin = 100 * time.Millisecond
	feedRetryMax = 5 * time.Second
)

// Follow reads the change feed (GET /api/v1/changes?since=G&wait=S)
// until ctx ends, keeping the client's generation current: a move
// fetches the 64 answers used last (within the last minute) again in
// the background, and "reset" begins a new epoch (the cache is dropped,
// the same answers fetched again). While the feed fails nothing is
// served as current; Follow retries after 100 ms, doubling up to 5 s,
// and a failure to reach promptdesk sends calls to the cache or the
// fallback until a poll or a request succeeds. Run it in its own
// goroutine; it returns when ctx ends.
func (c *Client) Follow(ctx context.Context) {
	backoff := feedRetryMin
	for ctx.Err() == nil {
		if err := c.poll(ctx); err != nil {
			c.mu.Lock()
			if c.following {
				c.following, c.changedAt = false, c.now()
			}
			c.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, feedRetryMax)
			continue
		}
		backoff = feedRetryMin
	}
}

// feedAnswer is the part of the change feed's answer the client reads.
type feedAnswer struct {
	Generation int64 `json:"generation"`
	Reset      bool  `json:"reset"`
}

// poll makes one change-feed request since the known generation,
// waiting up to FeedWait for a change.
func (c *Client) poll(ctx context.Context) error {
	c.mu.Lock()
	since := c.gen
	c.mu.Unlock()
	q := url.Values{}
	if since > 0 {
		q.Set("since", strconv.FormatInt(since, 10))
		q.Set("wait", strconv.Itoa(int(c.opt.FeedWait/time.Second)))
	}
	path := "/api/v1/changes"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	wctx, cancel := context.WithTimeout(ctx, c.opt.FeedWait+10*time.Second)
	defer cancel()
	hc := *c.http
	hc.Timeout = 0 // wctx bounds the long poll
	resp, err := c.sendWith(wctx, &hc, http.MethodGet, path, nil, "")
	if err != nil {
		if ctx.Err() == nil && isUnavailable(err) {
			c.markDown(err)
		}
		return err
	}
	c.markUp()
	var f feedAnswer
	if err := json.Unmarshal(resp.body, &f); err != nil {
		return fmt.Errorf("change feed: the answer does not decode: %w", err)
	}
	now := c.now()
	c.mu.Lock()
	var again []*entry
	if f.Reset && since > 0 {
		// A new epoch: nothing cached can be compared with its
		// generations.
		again = c.recent(now, 0)
		c.entries = map[string]*entry{}
		c.epoch++
		c.gen, c.changedAt = f.Generation, now
	} else if f.Generation != c.gen || !c.following {
		c.gen = max(c.gen, f.Generation)
		c.changedAt = now
		again = c.recent(now, c.gen)
	}
	c.following = true
	c.mu.Unlock()
	for _, e := range again {
		c.background(e.call)
	}
	return nil
}

// recent is the entries to fetch again after a change: those not at
// generation gen used within recentUse, the refreshAhead used last. The
// caller holds c.mu.
func (c *Client) recent(now time.Time, gen int64) []*entry {
	var out []*entry
	for _, e := range c.entries {
		if e.gen != gen && now.Sub(e.used) <= recentUse {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *entry) int { return b.used.Compare(a.used) })
	return out[:min(len(out), refreshAhead)]
}

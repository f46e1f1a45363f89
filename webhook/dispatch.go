package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/promptdesk/promptdesk/domain"
)

// Policy is how deliveries are attempted. A delivery is attempted until an
// answer is 2xx, at most MaxAttempts times (per round: a redelivery
// starts a new one, domain.Delivery.Round); after the nth failure it
// waits FirstRetry·2ⁿ⁻¹, at most MaxRetry. An attempt fails on any other
// status (redirects are not followed), a network error, or no answer
// within Timeout.
type Policy struct {
	Timeout     time.Duration
	MaxAttempts int
	FirstRetry  time.Duration
	MaxRetry    time.Duration
	// Poll is how often Run looks for due deliveries (retries, and events
	// other processes recorded); an event this process records is sent at
	// once.
	Poll time.Duration
	// Batch is the most deliveries Run attempts at once.
	Batch int
	// Keep is how long finished deliveries stay in the log; Run deletes
	// older events (and their deliveries) every hour.
	Keep time.Duration
	// PrivateNetworks lets endpoints be on loopback, private-network and
	// link-local addresses; off, such an endpoint is refused when saved
	// (an address or localhost in its URL) and when a delivery connects
	// (a name resolving to one).
	PrivateNetworks bool
}

// DefaultPolicy is the Policy of zero fields: 10 s per attempt, 8
// attempts, retries after 5 s, 10 s, 20 s … up to 10 min (7 waits: the
// last attempt starts 10 min 35 s after the first, 11 min 55 s at most
// when every attempt runs to its timeout), polling every second, 10 at
// once, keeping the log 30 days.
var DefaultPolicy = Policy{Timeout: 10 * time.Second, MaxAttempts: 8, FirstRetry: 5 * time.Second,
	MaxRetry: 10 * time.Minute, Poll: time.Second, Batch: 10, Keep: 30 * 24 * time.Hour}

func (p Policy) withDefaults() Policy {
	if p.Timeout <= 0 {
		p.Timeout = DefaultPolicy.Timeout
	}
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultPolicy.MaxAttempts
	}
	if p.FirstRetry <= 0 {
		p.FirstRetry = DefaultPolicy.FirstRetry
	}
	if p.MaxRetry <= 0 {
		p.MaxRetry = DefaultPolicy.MaxRetry
	}
	if p.Poll <= 0 {
		p.Poll = DefaultPolicy.Poll
	}
	if p.Batch <= 0 {
		p.Batch = DefaultPolicy.Batch
	}
	if p.Keep <= 0 {
		p.Keep = DefaultPolicy.Keep
	}
	return p
}

// RetryAfter is the wait after the attempt-th failed attempt (from 1).
func (p Policy) RetryAfter(attempt int) time.Duration {
	d := p.FirstRetry
	for i := 1; i < attempt && d < p.MaxRetry; i++ {
		d *= 2
	}
	return min(d, p.MaxRetry)
}

// lease is how long a claimed delivery is this process's: its attempt's
// timeout and time to record the result. A process that dies mid-attempt
// leaves it due again after that.
func (p Policy) lease() time.Duration { return p.Timeout + 10*time.Second }

// shutdownGrace is how long attempts in flight may still take once Run is
// told to stop (the web server waits 5 s for its loops).
const shutdownGrace = 3 * time.Second

// pruneEvery is how often Run deletes events older than Policy.Keep.
const pruneEvery = time.Hour

// Run delivers until ctx ends: it keeps up to Policy.Batch attempts in
// flight, at most one per endpoint, and claims more as soon as one ends,
// at once after Record, and every Policy.Poll; so an endpoint that is
// slow or never answers holds up none of the others. Each attempt is
// logged. A store failure is logged and retried at the next poll. Every
// hour it deletes the finished events older than Policy.Keep. When ctx
// ends, attempts in flight get shutdownGrace to finish, and Run returns
// once they have.
func (h *Webhooks) Run(ctx context.Context) {
	client := newClient(h.policy.Timeout, h.policy.PrivateNetworks)
	defer client.CloseIdleConnections()
	tick := time.NewTicker(h.policy.Poll)
	defer tick.Stop()
	prune := time.NewTicker(pruneEvery)
	defer prune.Stop()
	// Attempts in flight when ctx ends get shutdownGrace to finish, so
	// that an answered request is not sent again by the next process.
	sendCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(shutdownGrace, cancel) })
	defer stop()
	inflight := map[int64]bool{} // endpoints with an attempt in flight
	done := make(chan int64)
	for {
		h.claim(ctx, sendCtx, client, inflight, done)
		select {
		case <-ctx.Done():
			for len(inflight) > 0 {
				delete(inflight, <-done)
			}
			return
		case id := <-done:
			delete(inflight, id)
		case <-tick.C:
		case <-h.wake:
		case <-prune.C:
			h.prune(ctx)
		}
	}
}

// prune deletes the finished events older than Policy.Keep.
func (h *Webhooks) prune(ctx context.Context) {
	n, err := h.store.PruneWebhookEvents(ctx, h.policy.Keep)
	switch {
	case err != nil && ctx.Err() == nil:
		h.log.Warn("webhook log: deleting old events failed", "err", err)
	case n > 0:
		h.log.Info("webhook log: old events deleted", "events", n, "older_than", h.policy.Keep)
	}
}

// claim fills the free places of Policy.Batch with due deliveries to
// endpoints not in inflight and starts their attempts on sendCtx; each
// sends its endpoint's id on done when it ends.
func (h *Webhooks) claim(ctx, sendCtx context.Context, client *http.Client, inflight map[int64]bool, done chan<- int64) {
	for ctx.Err() == nil {
		free := h.policy.Batch - len(inflight)
		if free <= 0 {
			return
		}
		list, err := h.store.ClaimDeliveries(ctx, free, h.policy.lease(), slices.Collect(maps.Keys(inflight)))
		if err != nil {
			if ctx.Err() == nil {
				h.log.Warn("webhook deliveries: claiming failed; retrying at the next poll", "err", err)
			}
			return
		}
		for _, d := range list {
			inflight[d.WebhookID] = true
			go func() {
				h.attempt(sendCtx, client, d)
				done <- d.WebhookID
			}()
		}
		if len(list) < free {
			return
		}
	}
}

// attempt sends d once and records the attempt and what follows.
func (h *Webhooks) attempt(ctx context.Context, client *http.Client, d domain.Delivery) {
	start := h.now()
	status, errText, final := h.send(ctx, client, d, start)
	a := domain.DeliveryAttempt{Attempt: d.Attempts, At: start, Duration: h.now().Sub(start), Status: status, Error: errText}
	var out domain.AttemptOutcome
	switch {
	case errText == "":
		out.Delivered = true
	case d.Round() < h.policy.MaxAttempts && !final:
		out.RetryIn = h.policy.RetryAfter(d.Round())
	}
	// Recorded even when ctx ended meanwhile: the attempt happened.
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if _, err := h.store.FinishAttempt(rec, d.ID, a, out); err != nil {
		h.log.Warn("webhook delivery: recording the attempt failed; it is sent again when its lease ends",
			"delivery", d.ID, "key", d.EventKey, "err", err)
		return
	}
	switch {
	case out.Delivered:
		h.log.Info("webhook delivered", "url", d.URL, "key", d.EventKey, "attempt", d.Attempts, "status", status)
	case out.RetryIn > 0:
		h.log.Warn("webhook delivery failed; retrying", "url", d.URL, "key", d.EventKey, "attempt", d.Attempts, "retry_in", out.RetryIn, "err", errText)
	default:
		h.log.Error("webhook delivery failed; giving up", "url", d.URL, "key", d.EventKey, "attempts", d.Attempts, "err", errText)
	}
}

// send posts d's body signed at now; errText is "" for a 2xx answer, else
// why it failed (status is 0 when no answer came); final when trying
// again cannot help (a receiver on an internal address).
func (h *Webhooks) send(ctx context.Context, client *http.Client, d domain.Delivery, now time.Time) (status int, errText string, final bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return 0, err.Error(), false
	}
	ts := now.Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "promptdesk-webhook")
	req.Header.Set(HeaderEvent, d.EventType)
	req.Header.Set(HeaderIdempotencyKey, d.EventKey)
	req.Header.Set(HeaderAttempt, strconv.Itoa(d.Attempts))
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	secret, err := h.openSecret(d.Secret)
	if err != nil {
		return 0, "the endpoint's secret cannot be read: " + err.Error(), true
	}
	req.Header.Set(HeaderSignature, Sign(secret, ts, d.Body))
	resp, err := client.Do(req)
	if err != nil {
		var uerr interface{ Timeout() bool }
		var refused *refusedReceiver
		switch {
		case errors.As(err, &refused):
			return 0, refused.Error(), true
		case errors.As(err, &uerr) && uerr.Timeout():
			return 0, fmt.Sprintf("no answer within %s", h.policy.Timeout), false
		}
		return 0, err.Error(), false
	}
	defer resp.Body.Close()
	// Read and dropped, never logged: the receiver's answer is its own
	// (it may be an internal service's page); reading lets the
	// connection be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, "", false
	}
	return resp.StatusCode, "HTTP " + resp.Status, false
}

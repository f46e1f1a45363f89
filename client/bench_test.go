package client_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkPublishToSeen measures how long a publish takes to reach a
// runtime that follows the change feed: each iteration saves a new
// revision of base.identity, publishes it and asks the client for an
// assembly until its text has the new revision's line. Reported: the
// 50th and 99th percentiles in milliseconds, from sending the publish
// (sent-p50-ms, sent-p99-ms) and from its answer (answered-p50-ms,
// answered-p99-ms). Run 200 publishes with
//
//	go test -run '^$' -bench PublishToSeen -benchtime 200x ./client
func BenchmarkPublishToSeen(b *testing.B) {
	f := newFixture(b)
	c, _ := newClient(f)
	follow(b, c, func() bool { return c.Status().Following })
	ctx := context.Background()
	req := decodeRequest(b, `{"locale":"en-US","message":"Please translate this note","model":"gpt-4o"}`)
	if _, err := c.Assemble(ctx, req); err != nil {
		b.Fatal(err)
	}
	builtin := f.builtinText("base.identity", "en-US")
	var fromSent, fromAnswered []time.Duration
	i, rev := 0, 0
	for b.Loop() {
		i++
		line := fmt.Sprintf("Publish number %d.", i)
		rev = f.save(f.url(), "base.identity", "en-US", builtin+"\n"+line+"\n", rev)
		sent := time.Now()
		f.publish(f.url(), "base.identity", "en-US", rev)
		answered := time.Now()
		for {
			a, err := c.Assemble(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(a.Text, line) {
				break
			}
			if time.Since(sent) > 30*time.Second {
				b.Fatalf("publish %d not seen in 30 s", i)
			}
			time.Sleep(100 * time.Microsecond)
		}
		seen := time.Now()
		fromSent = append(fromSent, seen.Sub(sent))
		fromAnswered = append(fromAnswered, seen.Sub(answered))
	}
	report := func(name string, d []time.Duration) {
		slices.Sort(d)
		pct := func(p float64) float64 {
			return float64(d[min(len(d)-1, int(p*float64(len(d))))]) / float64(time.Millisecond)
		}
		b.ReportMetric(pct(0.50), name+"-p50-ms")
		b.ReportMetric(pct(0.99), name+"-p99-ms")
	}
	report("sent", fromSent)
	report("answered", fromAnswered)
}

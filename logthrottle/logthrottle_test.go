package logthrottle_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/logthrottle"
)

// TestThrottle: an error repeated within the period is logged once; the
// next one after the period carries the count of those dropped; info
// records and other messages are not held back.
func TestThrottle(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(logthrottle.New(slog.NewTextHandler(&buf, nil), 10*time.Second))
	start := time.Now()
	record := func(at time.Time, level slog.Level, msg string) {
		r := slog.NewRecord(at, level, msg, 0)
		if err := log.Handler().Handle(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1000 {
		record(start.Add(time.Duration(i)*time.Millisecond), slog.LevelError, "request failed")
		record(start.Add(time.Duration(i)*time.Millisecond), slog.LevelInfo, "request")
	}
	record(start.Add(time.Second), slog.LevelWarn, "request failed") // another level: its own count
	record(start.Add(11*time.Second), slog.LevelError, "request failed")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var errs []string
	info := 0
	for _, l := range lines {
		switch {
		case strings.Contains(l, "level=INFO"):
			info++
		default:
			errs = append(errs, l)
		}
	}
	if info != 1000 {
		t.Errorf("%d info lines, want all 1000", info)
	}
	if len(errs) != 3 {
		t.Fatalf("%d warning/error lines, want 3:\n%s", len(errs), strings.Join(errs, "\n"))
	}
	if strings.Contains(errs[0], "suppressed") || !strings.Contains(errs[2], "level=ERROR") || !strings.Contains(errs[2], "suppressed=999") {
		t.Errorf("lines:\n%s\nwant the first without a count and the last with suppressed=999", strings.Join(errs, "\n"))
	}
	// Derived handlers share the counts.
	buf.Reset()
	log.With("component", "x").Error("request failed")
	if buf.Len() != 0 {
		t.Errorf("a derived logger logged a throttled message: %s", buf.String())
	}
}

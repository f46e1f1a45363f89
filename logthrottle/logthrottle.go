// Package logthrottle keeps a failure that repeats (a database that went
// away fails every request) from flooding the log: an slog.Handler that
// passes each warning or error message on at most once per period, with
// the number of the same message suppressed since the last one passed.
package logthrottle

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// SuppressedKey is the attribute carrying how many records with the same
// level and message were dropped since the last one logged.
const SuppressedKey = "suppressed"

// Handler wraps an slog.Handler. Records below slog.LevelWarn pass as they
// are; a warning or error passes when no record of the same level and
// message passed within the period, else it is counted and dropped. The
// count goes with the next one that passes (attribute SuppressedKey).
// Handlers derived with WithAttrs and WithGroup share the counts.
type Handler struct {
	next  slog.Handler
	every time.Duration
	seen  *seen
}

type seen struct {
	mu sync.Mutex
	m  map[key]*entry
}

type key struct {
	level slog.Level
	msg   string
}

type entry struct {
	last       time.Time
	suppressed int
}

// New returns a Handler passing records on to next, each warning or error
// message at most once per every.
func New(next slog.Handler, every time.Duration) *Handler {
	return &Handler{next: next, every: every, seen: &seen{m: map[key]*entry{}}}
}

// Enabled reports whether the wrapped handler takes records of level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle passes r on or drops it (see Handler).
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.next.Handle(ctx, r)
	}
	at := r.Time
	if at.IsZero() {
		at = time.Now()
	}
	k := key{r.Level, r.Message}
	h.seen.mu.Lock()
	e := h.seen.m[k]
	if e != nil && at.Sub(e.last) < h.every {
		e.suppressed++
		h.seen.mu.Unlock()
		return nil
	}
	if e == nil {
		e = &entry{}
		h.seen.m[k] = e
	}
	n := e.suppressed
	e.last, e.suppressed = at, 0
	h.seen.mu.Unlock()
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int(SuppressedKey, n))
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns a Handler over next.WithAttrs sharing h's counts.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(attrs), every: h.every, seen: h.seen}
}

// WithGroup returns a Handler over next.WithGroup sharing h's counts.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), every: h.every, seen: h.seen}
}

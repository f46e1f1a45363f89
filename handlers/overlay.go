package handlers

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
)

// OverlaySource is what the Overlay reads from the store.
type OverlaySource interface {
	ListOverrides(ctx context.Context) ([]store.Override, error)
	ListDrafts(ctx context.Context) ([]store.Override, error)
	ListProfiles(ctx context.Context) ([]store.Profile, error)
}

// Overlay is the in-memory copy of the operator state (overrides and
// profiles) on top of the library, rebuilt after every write through this
// server and, under Run, after changes made by other processes and after
// each reload of a library folder, so that pages and assembly never query
// the database per request (S6). It is safe for concurrent use.
type Overlay struct {
	src OverlaySource
	lib *reload.Library
	log *slog.Logger

	mu  sync.Mutex // serialises rebuilds, so the last one stored read last
	cur atomic.Pointer[View]

	// stale holds one token when a rebuild has been asked for (Changed) and
	// Run has not started it yet: a burst of changes queues one rebuild.
	stale chan struct{}
}

// View is one immutable state of the Overlay: the library (with the
// library folder's broken files, LibraryBroken), the assembler
// State built from the published overrides (what the runtime serves), and
// every published override row, including rows whose text no longer
// parses (Broken, keyed like Rows); then the drafts: the unpublished
// heads (Drafts, with DraftBroken for those that do not parse) and
// WithDrafts, State with the parsed drafts on top, for the preview's
// "include drafts" (the same pointer as State when there is none).
// Nothing in it may be modified.
type View struct {
	Library       *library.Snapshot
	LibraryBroken []reload.BrokenFile
	State         *assembler.State
	Rows          map[assembler.OverrideKey]store.Override
	Broken        map[assembler.OverrideKey]error
	Drafts        map[assembler.OverrideKey]store.Override
	DraftBroken   map[assembler.OverrideKey]error
	WithDrafts    *assembler.State
}

// NewOverlay returns an Overlay over lib, whose Current library each
// Rebuild takes; call Rebuild before Current. To follow a library folder,
// register LibraryChanged with lib.OnChange.
func NewOverlay(lib *reload.Library, src OverlaySource, log *slog.Logger) *Overlay {
	return &Overlay{src: src, lib: lib, log: log, stale: make(chan struct{}, 1)}
}

// Changed tells Run that the store changed (a notification from another
// process; S6). It never blocks: while a rebuild is queued, further calls add nothing, so
// a burst costs at most the rebuild in flight plus one.
func (o *Overlay) Changed() {
	select {
	case o.stale <- struct{}{}:
	default:
	}
}

// Run keeps the Overlay current until ctx is cancelled: it rebuilds after
// Changed and every `every` as a safety net for missed notifications
// (S6). A failed rebuild is logged and retried a second later (or after
// every, when shorter); the last good View keeps serving meanwhile, and
// Current never waits for a rebuild.
func (o *Overlay) Run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.stale:
		case <-tick.C:
		case <-retry:
		}
		retry = nil
		if err := o.Rebuild(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			wait := min(time.Second, every)
			o.log.Warn("refreshing the operator state failed; the previous state keeps serving", "retry_in", wait, "err", err)
			retry = time.After(wait)
		}
	}
}

// LibraryChanged swaps the library's current state into the current View
// (a reloaded library folder, S6). The operator state does not depend on
// the library, so nothing is read from the store: the new library serves
// at once, even while the database is unreachable, and drift is judged
// against it from then on. Before the first Rebuild it does nothing.
func (o *Overlay) LibraryChanged() {
	o.mu.Lock()
	defer o.mu.Unlock()
	cur := o.cur.Load()
	if cur == nil {
		return
	}
	v := *cur
	lib := o.lib.Current()
	v.Library, v.LibraryBroken = lib.Snapshot, lib.Broken
	o.cur.Store(&v)
}

// Current returns the latest View; nil before the first Rebuild.
func (o *Overlay) Current() *View { return o.cur.Load() }

// Rebuild takes the library's current state, reads every override and
// profile and swaps in a new View; drift is judged against that library. An
// override whose text no longer parses is logged and kept in Broken, not
// served; it does not fail the rebuild. Errors are the store's.
func (o *Overlay) Rebuild(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	rows, err := o.src.ListOverrides(ctx)
	if err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	drafts, err := o.src.ListDrafts(ctx)
	if err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	profiles, err := o.src.ListProfiles(ctx)
	if err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	lib := o.lib.Current()
	v := &View{
		Library:       lib.Snapshot,
		LibraryBroken: lib.Broken,
		State: &assembler.State{
			Overrides: make(map[assembler.OverrideKey]*assembler.Override, len(rows)),
			Profiles:  make(map[string]*assembler.Profile, len(profiles)),
		},
		Rows:        make(map[assembler.OverrideKey]store.Override, len(rows)),
		Broken:      map[assembler.OverrideKey]error{},
		Drafts:      make(map[assembler.OverrideKey]store.Override, len(drafts)),
		DraftBroken: map[assembler.OverrideKey]error{},
	}
	for _, r := range rows {
		key := assembler.Key(r.ModuleID, r.Locale)
		v.Rows[key] = r
		ov, err := parseOverride(r)
		if err != nil {
			o.log.Warn("override no longer parses; not served", "module", r.ModuleID, "locale", r.Locale, "revision", r.Revision, "err", err)
			v.Broken[key] = err
			continue
		}
		v.State.Overrides[key] = ov
	}
	v.WithDrafts = v.State
	for _, r := range drafts {
		key := assembler.Key(r.ModuleID, r.Locale)
		v.Drafts[key] = r
		ov, err := parseOverride(r)
		if err != nil {
			v.DraftBroken[key] = err
			continue
		}
		if v.WithDrafts == v.State {
			v.WithDrafts = &assembler.State{Overrides: maps.Clone(v.State.Overrides)}
		}
		v.WithDrafts.Overrides[key] = ov
	}
	for _, p := range profiles {
		v.State.Profiles[p.ID] = &assembler.Profile{
			ID:              p.ID,
			Name:            p.Name,
			Locale:          p.Locale,
			Model:           p.Model,
			TimeZone:        p.TimeZone,
			PromptModules:   slices.Clone(p.PromptModules),
			SystemPrompt:    p.SystemPrompt,
			SkillDisclosure: p.SkillDisclosure,
			TokenBudget:     p.TokenBudget,
		}
	}
	if v.WithDrafts != v.State {
		v.WithDrafts.Profiles = v.State.Profiles
	}
	o.cur.Store(v)
	return nil
}

// parseOverride parses a stored override for the assembler State.
func parseOverride(r store.Override) (*assembler.Override, error) {
	m, err := library.Parse(overrideFile(r.ModuleID, r.Locale), []byte(r.Text))
	if err == nil && m.ID != r.ModuleID {
		err = fmt.Errorf("its id is %q, not %q: %w", m.ID, r.ModuleID, library.ErrInvalid)
	}
	if err != nil {
		return nil, err
	}
	m.Locale = r.Locale
	return &assembler.Override{
		Module:         m,
		Locale:         r.Locale,
		Revision:       r.Revision,
		BasedOnVersion: r.BasedOnVersion,
		BaseSnapshot:   r.BaseSnapshot,
	}, nil
}

// overrideFile names an override in parse errors, like the store does.
func overrideFile(id, locale string) string {
	return fmt.Sprintf("override %s (%s)", id, locale)
}

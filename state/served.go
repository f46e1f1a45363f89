// Package state is the operator state promptdesk serves, below the HTTP
// layer: the immutable View of the library with the published and draft
// overrides and the profiles on top (Served), and the writes that change
// it (Overrides, Profiles). The writes live here with the view so that
// every one of them refreshes what is served, and none can forget to: the
// refresh is not exported, and outside this package only notifications
// from other processes (Changed) and the periodic safety net (Run) ask
// for one. Console, API, drift review and import are thin adapters over
// the same write path. Scenarios runs saved scenarios against the View and
// keeps their accepted outputs (they are not served, so it refreshes
// nothing).
package state

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
)

// Source is what Served reads from the store: the operator state in one
// snapshot (store.Store.ReadOperatorState).
type Source interface {
	ReadOperatorState(ctx context.Context) (domain.OperatorState, error)
}

// Nothing is a Source holding no overrides and no profiles: the library
// alone, for a command that opens no database.
var Nothing Source = nothing{}

type nothing struct{}

func (nothing) ReadOperatorState(context.Context) (domain.OperatorState, error) {
	return domain.OperatorState{}, nil
}

// Served keeps the current View: rebuilt after every write through this
// package and, under Run, after changes made by other processes and after
// each reload of a library folder, so that pages and assembly never query
// the database per request. It is safe for concurrent use.
type Served struct {
	src Source
	lib *reload.Library
	log *slog.Logger

	mu  sync.Mutex // serialises rebuilds, so the last one stored read last
	cur atomic.Pointer[View]

	// stale holds one token when a rebuild has been asked for (Changed) and
	// Run has not started it yet: a burst of changes queues one rebuild.
	stale chan struct{}
	gen   atomic.Int64 // the last View's Generation
	// feed is the recent changes of what the runtime API serves.
	feed feed

	// What is known of the database: since when it is unreachable (zero
	// while it answers) and when the last change notification came.
	healthMu   sync.Mutex
	staleSince time.Time
	notified   time.Time
}

// Open reads the operator state once and returns the Served over lib,
// whose current library each rebuild takes. To follow a library folder,
// it registers LibraryChanged with lib.OnChange. Errors are the store's.
func Open(ctx context.Context, lib *reload.Library, src Source, log *slog.Logger) (*Served, error) {
	s := &Served{src: src, lib: lib, log: log, stale: make(chan struct{}, 1)}
	if err := s.rebuild(ctx); err != nil {
		return nil, err
	}
	lib.OnChange(s.LibraryChanged)
	return s, nil
}

// Load reads the operator state once over a fixed library snapshot, for
// one-shot commands such as the CLI's assemble and import. Errors are the
// store's.
func Load(ctx context.Context, src Source, lib *library.Snapshot, log *slog.Logger) (*Served, error) {
	return Open(ctx, reload.Fixed(lib), src, log)
}

// Changed tells Run that the store changed (a notification from another
// process). It never blocks: while a rebuild is queued, further calls add
// nothing, so a burst costs at most the rebuild in flight plus one.
func (s *Served) Changed() {
	select {
	case s.stale <- struct{}{}:
	default:
	}
}

// Run keeps the View current until ctx is cancelled: it rebuilds after
// Changed and every `every` as a safety net for missed notifications. A
// failed rebuild is logged and retried a second later (or after every,
// when shorter); the last good View keeps serving meanwhile, and Current
// never waits for a rebuild.
func (s *Served) Run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stale:
		case <-tick.C:
		case <-retry:
		}
		retry = nil
		if err := s.rebuild(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.Unreachable(err)
			wait := min(time.Second, every)
			s.log.Warn("refreshing the operator state failed; the previous state keeps serving", "retry_in", wait, "err", err)
			retry = time.After(wait)
		}
	}
}

// LibraryChanged recomposes the current View on the library's current
// state (a reloaded library folder). Nothing is read from the store: the
// new library serves at once, even while the database is unreachable;
// drift is judged against it, and an override that no longer fits it (it
// includes a module the library dropped) stops serving and is listed as
// broken.
func (s *Served) LibraryChanged() {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.cur.Load()
	if cur == nil {
		return
	}
	s.swap(s.compose(s.lib.Current(), cur.rows, cur.drafts, cur.profiles))
}

// Current returns the latest View, never nil after Open.
func (s *Served) Current() *View { return s.cur.Load() }

// refresh rebuilds after a write of this process. The write is committed,
// so the rebuild finishes even if the request that made it was cancelled.
func (s *Served) refresh(ctx context.Context, what string) error {
	if err := s.rebuild(context.WithoutCancel(ctx)); err != nil {
		s.Unreachable(err)
		return fmt.Errorf("%s, but reloading the served state failed: %w", what, err)
	}
	return nil
}

// rebuild takes the library's current state, reads every override and
// profile in one snapshot and swaps in a new View. An override whose text no longer parses
// is logged and kept in Broken, not served; it does not fail the rebuild.
// Errors are the store's.
func (s *Served) rebuild(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	read, err := s.src.ReadOperatorState(ctx)
	if err != nil {
		return fmt.Errorf("operator state: %w", err)
	}
	s.swap(s.compose(s.lib.Current(), read.Overrides, read.Drafts, read.Profiles))
	s.healthMu.Lock()
	s.staleSince = time.Time{}
	s.healthMu.Unlock()
	return nil
}

// Unreachable records that err, from any use of the database, means the
// database cannot be reached (domain.ErrUnavailable); other errors are
// ignored. From the first such error until the next successful rebuild,
// StaleSince reports the View as stale.
func (s *Served) Unreachable(err error) {
	if !errors.Is(err, domain.ErrUnavailable) {
		return
	}
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	if s.staleSince.IsZero() {
		s.staleSince = time.Now()
	}
}

// StaleSince returns when the database was found unreachable, with ok
// true, while the View serving is the last one read before that; ok is
// false while the database answers.
func (s *Served) StaleSince() (since time.Time, ok bool) {
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	return s.staleSince, !s.staleSince.IsZero()
}

// Notified records that a change notification arrived now, for
// LastNotification.
func (s *Served) Notified() {
	s.healthMu.Lock()
	s.notified = time.Now()
	s.healthMu.Unlock()
}

// LastNotification returns when the last change notification arrived
// (Notified), zero when none has.
func (s *Served) LastNotification() time.Time {
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	return s.notified
}

// compose builds the View of the operator state on lib, with no
// ServedGeneration yet (swap gives it one). An override whose
// text no longer parses, or uses a placeholder that is neither a variable,
// an environment value, a library module nor a stored override's id, is
// kept in Broken (DraftBroken for a draft) and not served: the builtin
// serves instead of an override that would fail every assembly.
func (s *Served) compose(lib *reload.State, rows, drafts []domain.Override, profiles []domain.Profile) *View {
	v := &View{
		Generation:    s.gen.Add(1),
		Library:       lib.Snapshot,
		LibraryBroken: lib.Broken,
		State: &assembler.State{
			Overrides: make(map[assembler.OverrideKey]*assembler.Override, len(rows)),
			Profiles:  make(map[string]*assembler.Profile, len(profiles)),
		},
		Rows:        make(map[assembler.OverrideKey]domain.Override, len(rows)),
		Broken:      map[assembler.OverrideKey]error{},
		Drafts:      make(map[assembler.OverrideKey]domain.Override, len(drafts)),
		DraftBroken: map[assembler.OverrideKey]error{},
		rows:        rows,
		drafts:      drafts,
		profiles:    profiles,
	}
	// A published override may include another published override's id; a
	// draft may also include a draft's.
	published, any := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		published[r.ModuleID], any[r.ModuleID] = true, true
	}
	for _, r := range drafts {
		any[r.ModuleID] = true
	}
	parse := func(r domain.Override, stored map[string]bool) (*assembler.Override, error) {
		o, err := parseOverride(r)
		if err != nil {
			return nil, err
		}
		if err := lib.Snapshot.CheckPlaceholdersWith(o.Module, func(id string) bool { return stored[id] }); err != nil {
			return nil, fmt.Errorf("it no longer fits the library: %w", err)
		}
		return o, nil
	}
	for _, r := range rows {
		key := assembler.Key(r.ModuleID, r.Locale)
		v.Rows[key] = r
		ov, err := parse(r, published)
		if err != nil {
			s.log.Warn("override not served", "module", r.ModuleID, "locale", r.Locale, "revision", r.Revision, "err", err)
			v.Broken[key] = err
			continue
		}
		v.State.Overrides[key] = ov
	}
	v.WithDrafts = v.State
	for _, r := range drafts {
		key := assembler.Key(r.ModuleID, r.Locale)
		v.Drafts[key] = r
		ov, err := parse(r, any)
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
	v.idx = newIndex(lib.Snapshot, v.Rows, v.Drafts)
	v.published = v.idx
	if len(v.Drafts) > 0 {
		v.published = newIndex(lib.Snapshot, v.Rows)
	}
	return v
}

// parseOverride parses a stored override for the assembler State.
func parseOverride(r domain.Override) (*assembler.Override, error) {
	m, err := library.Parse(OverrideFile(r.ModuleID, r.Locale), []byte(r.Text))
	if err == nil && m.ID != r.ModuleID {
		err = fmt.Errorf("its id is %q, not %q: %w", m.ID, r.ModuleID, library.ErrInvalid)
	}
	if err != nil {
		return nil, err
	}
	m.Locale = r.Locale
	return &assembler.Override{
		ID:             r.ModuleID,
		Module:         m,
		Locale:         r.Locale,
		Revision:       r.Revision,
		BasedOnVersion: r.BasedOnVersion,
		BaseSnapshot:   r.BaseSnapshot,
	}, nil
}

// OverrideFile is how an override of id in locale is named in parse
// errors: "override task.x (en-US)".
func OverrideFile(id, locale string) string {
	return fmt.Sprintf("override %s (%s)", id, locale)
}

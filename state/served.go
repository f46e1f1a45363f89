// Package state is the operator state promptdesk serves, below the HTTP
// layer: the immutable View of the library with the published and draft
// overrides and the profiles on top (Served), and the writes that change
// it (Overrides, Profiles). The writes live here with the view so that
// every one of them refreshes what is served, and none can forget to: the
// refresh is not exported, and outside this package only notifications
// from other processes (ChangedOverride, ChangedProfile, Changed) and the
// periodic safety net (Run) ask for one. Console, API, drift review and import are thin adapters over
// the same write path. Scenarios runs saved scenarios against the View and
// keeps their accepted outputs (they are not served, so it refreshes
// nothing).
package state

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
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

// KeySource is a Source that also reads one key of the operator state
// (store.Store): after a change of one override or profile, Served reads
// that key alone instead of everything. ReadOverrideKey returns the
// override's served published revision and its pending draft, each nil
// when there is none (no error for an override that does not exist), in
// one snapshot; GetProfile returns the profile, or an error matching
// library.ErrNotFound when there is none. Other errors are the store's.
type KeySource interface {
	Source
	ReadOverrideKey(ctx context.Context, moduleID, locale string) (domain.OverrideKeyState, error)
	GetProfile(ctx context.Context, id string) (domain.Profile, error)
}

// Nothing is a Source holding no overrides and no profiles: the library
// alone, for a command that opens no database.
var Nothing Source = nothing{}

type nothing struct{}

func (nothing) ReadOperatorState(context.Context) (domain.OperatorState, error) {
	return domain.OperatorState{}, nil
}

// Served keeps the current View: updated after every write through this
// package and, under Run, after changes made by other processes and after
// each reload of a library folder, so that pages and assembly never query
// the database per request. A change of one override or profile reads
// that key alone (when the Source is a KeySource) and composes the new
// View from the last one, changing that key and what depends on it
// (withKey); Changed, the periodic safety net and a change while the
// database was unreachable read everything and compose every override
// again. It is safe for concurrent use.
type Served struct {
	src Source
	lib *reload.Library
	log *slog.Logger
	// origin tells this Served's own change notifications (Origin).
	origin string

	mu  sync.Mutex // serialises reads and swaps, so the last View stored read last
	cur atomic.Pointer[View]
	// texts is the lower-cased search text of module texts, for every
	// View (searchText).
	texts *moduleTexts
	// parsed is the parse of every stored row of the current View, by key
	// and revision (under mu): a compose parses only rows not in it, and
	// withKey changes it in place.
	parsed map[parseKey]parsedRow

	// stale holds one token when an update has been asked for (Changed,
	// ChangedOverride, ChangedProfile) and Run has not started it yet: a
	// burst of changes queues one pass over what they named.
	stale chan struct{}
	// What the queued pass reads: everything (pendingAll), or the keys
	// named since the last pass.
	pendingMu  sync.Mutex
	pendingAll bool
	pending    map[changeKey]bool

	gen atomic.Int64 // the last View's Generation
	// Reads so far, for Reads.
	fullReads, keyReads atomic.Int64
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
	s := &Served{src: src, lib: lib, log: log, origin: rand.Text(), stale: make(chan struct{}, 1), pending: map[changeKey]bool{}, texts: &moduleTexts{}}
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

// Origin is this Served's own id (26 random base32 characters, new with
// each Open): every write through this package carries it in its context
// (domain.WithOrigin), so its change notification names it, and a
// listener skips such a notification, whose change this Served already
// serves.
func (s *Served) Origin() string { return s.origin }

// own returns ctx marked as the context of a write of this Served, which
// applies the write itself once it is committed (refresh).
func (s *Served) own(ctx context.Context) context.Context {
	return domain.WithOrigin(ctx, s.origin)
}

// maxPending is how many keys a queued pass reads one by one; past it the
// pass reads everything at once, which costs less than that many reads.
const maxPending = 64

// Changed tells Run that the store changed in ways not named (a listener
// that just connected may have missed changes): Run reads everything. It
// never blocks: while a pass is queued, further calls add nothing, so a
// burst costs at most the pass in flight plus one.
func (s *Served) Changed() { s.queue(changeKey{}) }

// ChangedOverride tells Run that the override of id in locale changed in
// another process: Run reads that key alone and replaces it in the View.
// It never blocks, like Changed.
func (s *Served) ChangedOverride(id, locale string) { s.queue(overrideKey(id, locale)) }

// ChangedProfile tells Run that the profile id changed in another process:
// Run reads that profile alone. It never blocks, like Changed.
func (s *Served) ChangedProfile(id string) { s.queue(profileKey(id)) }

// queue adds k (the zero key: everything) to the next pass of Run and
// wakes it.
func (s *Served) queue(k changeKey) {
	s.pendingMu.Lock()
	if k == (changeKey{}) || len(s.pending) >= maxPending {
		s.pendingAll = true
	} else {
		s.pending[k] = true
	}
	s.pendingMu.Unlock()
	select {
	case s.stale <- struct{}{}:
	default:
	}
}

// takePending returns and clears what the next pass reads: all, or the
// keys named, in a fixed order.
func (s *Served) takePending() (keys []changeKey, all bool) {
	s.pendingMu.Lock()
	defer s.pendingMu.Unlock()
	all, s.pendingAll = s.pendingAll, false
	if !all {
		keys = slices.SortedFunc(maps.Keys(s.pending), func(a, b changeKey) int {
			return cmp.Or(strings.Compare(a.subject, b.subject), strings.Compare(a.id, b.id), strings.Compare(a.locale, b.locale))
		})
	}
	clear(s.pending)
	return keys, all
}

// Reads counts what a Served read from its Source since Open: Full, the
// whole operator state (Open, Changed, Run's safety net and retries, any
// update while the database was found unreachable or from a Source that
// is not a KeySource); Keys, one override key or one profile (a write
// through this package, a change named by another process). Only reads
// that succeeded count.
type Reads struct {
	Full, Keys int64
}

// Reads returns the reads so far.
func (s *Served) Reads() Reads {
	return Reads{Full: s.fullReads.Load(), Keys: s.keyReads.Load()}
}

// Run keeps the View current until ctx is cancelled: after Changed it
// reads everything, after ChangedOverride and ChangedProfile the keys
// they named, and every `every` everything again as a safety net for
// missed notifications. A failed read is logged and retried a second
// later (or after every, when shorter) as a read of everything; the last
// good View keeps serving meanwhile, and Current never waits for a read.
func (s *Served) Run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var retry <-chan time.Time
	for {
		all := false
		select {
		case <-ctx.Done():
			return
		case <-s.stale:
		case <-tick.C:
			all = true
		case <-retry:
			all = true
		}
		retry = nil
		keys, queuedAll := s.takePending()
		var err error
		if all || queuedAll {
			err = s.rebuild(ctx)
		} else {
			for _, k := range keys {
				if err = s.update(ctx, k); err != nil {
					break
				}
			}
		}
		if err != nil {
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
	s.swap(s.compose(s.lib.Current(), values(cur.Rows), values(cur.Drafts), cur.profiles), nil, true)
}

// Current returns the latest View, never nil after Open.
func (s *Served) Current() *View { return s.cur.Load() }

// refresh updates the View after a write of this process that has
// committed: the write is stored, whatever happens here, so a failure to
// read it back is no error of the write. It is logged, marks the View
// stale (StaleSince, shown by /readyz) and queues a full read, which Run
// retries until the database answers. The update finishes even if the
// request that made the write was cancelled.
func (s *Served) refresh(ctx context.Context, what string, k changeKey) {
	if err := s.update(context.WithoutCancel(ctx), k); err != nil {
		s.Unreachable(err)
		s.Changed()
		s.log.Warn(what+"; the served state could not be read back and is read again when the database answers", "err", err)
	}
}

// changeKey names what a change is about: an override (subject
// domain.SubjectOverride, id, locale as a LocaleKey) or a profile
// (domain.SubjectProfile, id); the zero changeKey is everything.
type changeKey struct {
	subject, id, locale string
}

// overrideKey is the changeKey of the override of id in locale.
func overrideKey(id, locale string) changeKey {
	return changeKey{domain.SubjectOverride, id, library.LocaleKey(locale)}
}

// profileKey is the changeKey of the profile id.
func profileKey(id string) changeKey { return changeKey{subject: domain.SubjectProfile, id: id} }

// update reads the key k alone and swaps in the View with that key
// replaced, composed from the last View (withKey, withProfiles), so that
// it costs the same whatever the number of overrides. It reads everything instead (rebuild) when the Source is not
// a KeySource, when k is the zero key, and while the database is found
// unreachable, since changes may have been missed meanwhile. Errors are
// the store's.
func (s *Served) update(ctx context.Context, k changeKey) error {
	ks, ok := s.src.(KeySource)
	if _, stale := s.StaleSince(); !ok || stale || k == (changeKey{}) {
		return s.rebuild(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, lib := s.cur.Load(), s.lib.Current()
	var next *View
	var touched []assembler.OverrideKey
	switch k.subject {
	case domain.SubjectOverride:
		read, err := ks.ReadOverrideKey(ctx, k.id, k.locale)
		if err != nil {
			return fmt.Errorf("operator state: %w", err)
		}
		key := assembler.OverrideKey{ID: k.id, Locale: k.locale}
		if lib.Snapshot == cur.Library {
			next, touched = s.withKey(lib, cur, key, read.Published, read.Draft)
			break
		}
		// A library reload not composed yet: everything is checked again.
		rows, drafts := cur.Rows.Without(key), cur.Drafts.Without(key)
		if read.Published != nil {
			rows = rows.With(key, *read.Published)
		}
		if read.Draft != nil {
			drafts = drafts.With(key, *read.Draft)
		}
		next = s.compose(lib, values(rows), values(drafts), cur.profiles)
	case domain.SubjectProfile:
		p, err := ks.GetProfile(ctx, k.id)
		profiles := cur.profiles
		switch {
		case errors.Is(err, library.ErrNotFound):
			profiles = withProfile(profiles, k.id, nil)
		case err != nil:
			return fmt.Errorf("operator state: %w", err)
		default:
			profiles = withProfile(profiles, k.id, &p)
		}
		if lib.Snapshot == cur.Library {
			next = s.withProfiles(lib, cur, profiles)
		} else {
			next = s.compose(lib, values(cur.Rows), values(cur.Drafts), profiles)
		}
	default:
		return fmt.Errorf("operator state: a change of %q is not served: %w", k.subject, library.ErrInvalid)
	}
	s.keyReads.Add(1)
	s.swap(next, touched, next.Library != cur.Library)
	return nil
}

// values is every value of m, in key order.
func values(m assembler.ByKey[domain.Override]) []domain.Override {
	out := make([]domain.Override, 0, m.Len())
	for _, r := range m.All() {
		out = append(out, r)
	}
	return out
}

// withProfile returns profiles (ordered by id, byte order) with the
// profile id replaced by p, or removed when p is nil; profiles itself is
// not modified.
func withProfile(profiles []domain.Profile, id string, p *domain.Profile) []domain.Profile {
	out := slices.DeleteFunc(slices.Clone(profiles), func(q domain.Profile) bool { return q.ID == id })
	if p == nil {
		return out
	}
	i, _ := slices.BinarySearchFunc(out, id, func(q domain.Profile, id string) int { return strings.Compare(q.ID, id) })
	return slices.Insert(out, i, *p)
}

// rebuild takes the library's current state, reads every override and
// profile in one snapshot and swaps in a new View. An override whose text
// no longer parses is logged and kept in Broken, not served; it does not
// fail the rebuild. Errors are the store's.
func (s *Served) rebuild(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	read, err := s.src.ReadOperatorState(ctx)
	if err != nil {
		return fmt.Errorf("operator state: %w", err)
	}
	s.fullReads.Add(1)
	s.swap(s.compose(s.lib.Current(), read.Overrides, read.Drafts, read.Profiles), nil, true)
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

// parseKey is what a stored row's parse is kept by: its module id, its
// LocaleKey and its revision.
type parseKey struct {
	id, locale string
	revision   int
}

// parseKeyOf is r's parseKey.
func parseKeyOf(r domain.Override) parseKey {
	return parseKey{r.ModuleID, library.LocaleKey(r.Locale), r.Revision}
}

// parsedRow is the parse of row (parseOverride): o, or err.
type parsedRow struct {
	row domain.Override
	o   *assembler.Override
	err error
}

// parses reports whether p is the parse of r: r has every field
// parseOverride reads as p's row has it. A revision is never rewritten,
// so this holds for the same key and revision; it is checked all the same,
// since a stale parse would serve the wrong text.
func (p parsedRow) parses(r domain.Override) bool {
	return p.row.ModuleID == r.ModuleID && p.row.Locale == r.Locale && p.row.Revision == r.Revision &&
		p.row.Text == r.Text && p.row.BasedOnVersion == r.BasedOnVersion && p.row.BaseSnapshot == r.BaseSnapshot
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

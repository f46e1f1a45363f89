package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
)

// OverrideStore is what Overrides needs from the store.
type OverrideStore interface {
	GetOverride(ctx context.Context, moduleID, locale string) (domain.Override, error)
	SaveOverride(ctx context.Context, o domain.Override, baseRevision int) (domain.Override, error)
	DeleteOverride(ctx context.Context, moduleID, locale string, baseRevision int) error
	Publish(ctx context.Context, moduleID, locale string, baseRevision int) (domain.Override, error)
	Discard(ctx context.Context, moduleID, locale string, baseRevision int) (domain.Override, bool, error)
	GetRevision(ctx context.Context, moduleID, locale string, revision int) (domain.Revision, error)
	RestoreRevision(ctx context.Context, moduleID, locale string, revision, baseRevision int) (domain.Override, error)
	KeepMine(ctx context.Context, moduleID, locale string, baseRevision, newBasedOnVersion int, newBaseSnapshot, newBaseHash string) (domain.Override, error)
	TakeBuiltin(ctx context.Context, moduleID, locale string, baseRevision int) error
	OverrideHistory
	ChangeRequestStore
	// ListScenarios lists the saved scenarios that Effect and WhereUsed
	// assemble.
	ListScenarios(ctx context.Context) ([]domain.Scenario, error)
}

// Overrides is the one write path of overrides: console, API, drift
// review and import all save, publish, discard, delete, restore and
// review through it, so they follow the same rules and every write
// refreshes Served. Who made a change is the actor of the context
// (domain.WithActor).
type Overrides struct {
	Store     OverrideStore
	Served    *Served
	Assembler *assembler.Assembler
	Log       *slog.Logger
	// Checklist is the module checklist run on every text checked or
	// saved (lint.Lint; the server and the CLI set it, so that this
	// package, and the handlers above it, depend on no checker): its
	// warnings and notices come back in the Outcome and never block a
	// save. Nil runs none.
	Checklist func(m *library.Module) []library.Finding
	// Outbox, when set, is woken after each publish, delete and restore,
	// whose webhook events the store wrote with them.
	Outbox Outbox
	// Review turns change review on: a publish, delete, take builtin or
	// keep mine is refused (ErrReviewRequired) unless requested (Request)
	// and approved by someone else (Approve).
	Review bool
}

// Edit is a new text for the override of ID in Locale.
type Edit struct {
	ID, Locale string
	// Text is the whole module file, frontmatter and body.
	Text string
	// Revision is the revision the text is based on: 0 creates the
	// override (or brings a deleted one back).
	Revision int
	// Action is the revision action to record (domain.ActionImport); ""
	// records create or save.
	Action string
}

// OutcomeKind says what a save did.
type OutcomeKind string

// The outcomes of a save.
const (
	// OutcomeStored: a new revision was stored (Saved).
	OutcomeStored OutcomeKind = "stored"
	// OutcomeEqualsBuiltin: the text is the builtin's (EqualsBuiltin):
	// nothing was stored; Builtin is that text, Head the override left as
	// it was, if any.
	OutcomeEqualsBuiltin OutcomeKind = "equals-builtin"
	// OutcomeUnchanged: the text is Head's already (trailing white space
	// aside) and nothing was stored: no revision, audit entry or event.
	// That holds for an edit of the head (nothing changed) and for one
	// based on an older revision (a save sent again, say after the
	// browser's back button), which is then no conflict.
	OutcomeUnchanged OutcomeKind = "unchanged"
	// OutcomeConflict: the override is not at the revision the text was
	// based on; Head is the override now (nil when there is none) and
	// Reason the store's explanation. Nothing was stored.
	OutcomeConflict OutcomeKind = "conflict"
	// OutcomeInvalid: the text breaks a rule (Errors); nothing was stored.
	OutcomeInvalid OutcomeKind = "invalid"
)

// Outcome is what a save did, for an adapter to turn into a page, JSON or
// a report line. Module, Warnings and Notices describe the text whenever
// it parsed and passed the checks (every kind but invalid); an invalid
// text whose fields all parsed has Warnings and Notices too (Check).
type Outcome struct {
	Kind     OutcomeKind
	Module   *library.Module
	Saved    domain.Override
	Builtin  *library.Module
	Head     *domain.Override
	Reason   string
	Errors   []LineError
	Warnings []library.Finding
	Notices  []library.Finding
}

// Check applies the checks of a save to text without storing anything:
// Outcome invalid with every error of the text at once, or stored-to-be
// with the parsed module and its checklist findings (Kind is ""). An
// invalid text whose every field parsed (its errors are placeholders, the
// id, the layer or includes) carries its checklist findings too, though
// no Module.
func (s *Overrides) Check(id, locale, text string) Outcome {
	m, errs := check(s.Assembler, s.Served.Current(), id, locale, text)
	if len(errs) > 0 {
		out := Outcome{Kind: OutcomeInvalid, Errors: errs}
		if m != nil {
			out.Warnings, out.Notices = s.findings(m)
		}
		return out
	}
	out := Outcome{Module: m}
	out.Warnings, out.Notices = s.findings(m)
	return out
}

// BuiltinBase is the builtin an override of id in locale is copied from
// (View.BuiltinBase with the server's fallback locale).
func (s *Overrides) BuiltinBase(v *View, id, locale string) (*library.Module, bool) {
	return v.BuiltinBase(s.Assembler.FallbackLocale(), id, locale)
}

// Save checks e.Text and saves it as a draft revision of the override.
// The base rule: a new override is based on the builtin it is copied from
// (BuiltinBase); an edit keeps the base of the revision it edits, drifted
// or not, because only the drift review moves a base. A text equal to
// the head's stores nothing (OutcomeUnchanged), based on an older
// revision too, which is then no conflict. The error is for the store failing; every
// refusal is an Outcome.
func (s *Overrides) Save(ctx context.Context, e Edit) (Outcome, error) {
	v := s.Served.Current()
	out := s.Check(e.ID, e.Locale, e.Text)
	if out.Kind == OutcomeInvalid {
		return out, nil
	}
	m := out.Module
	head, exists, err := s.head(ctx, e.ID, e.Locale)
	if err != nil {
		return Outcome{}, err
	}
	if exists && EqualsBuiltin(m.Text, head.Text) {
		// Nothing changed, or sent again after it was saved, or someone
		// saved the same text: there is nothing to store or merge
		// (trailing whitespace aside, as for the builtin).
		out.Kind, out.Head = OutcomeUnchanged, &head
		return out, nil
	}
	if e.Revision > 0 && exists && head.Revision != e.Revision {
		// The base depends on the revision edited: refuse before saving.
		return s.conflict(ctx, out, e, fmt.Errorf("%s is at revision %d, not %d", OverrideFile(e.ID, e.Locale), head.Revision, e.Revision))
	}
	if exists {
		out.Head = &head
	}
	base, hasBuiltin := s.BuiltinBase(v, e.ID, e.Locale)
	if hasBuiltin && EqualsBuiltin(m.Text, base.Text) {
		out.Kind, out.Builtin = OutcomeEqualsBuiltin, base
		return out, nil
	}
	o := domain.Override{ModuleID: e.ID, Locale: e.Locale, Action: e.Action}
	switch {
	case exists && e.Revision == head.Revision:
		o.BasedOnVersion, o.BaseSnapshot, o.BaseHash = head.BasedOnVersion, head.BaseSnapshot, head.BaseHash
	case hasBuiltin:
		o.BasedOnVersion, o.BaseSnapshot, o.BaseHash = base.Version, base.Text, domain.TextHash(base.Text)
	}
	return s.store(ctx, out, o, m, e.Revision, e.Text)
}

// store encodes m into o, saves it on top of revision and refreshes.
func (s *Overrides) store(ctx context.Context, out Outcome, o domain.Override, m *library.Module, revision int, text string) (Outcome, error) {
	o.Text, o.Title, o.Version = m.Text, m.Title, m.Version
	fields, err := json.Marshal(m.Frontmatter)
	if err != nil {
		return Outcome{}, fmt.Errorf("%s: encode its fields: %w", OverrideFile(o.ModuleID, o.Locale), err)
	}
	o.Fields = fields
	saved, err := s.Store.SaveOverride(s.Served.own(ctx), o, revision)
	switch {
	case errors.Is(err, library.ErrConflict) || errors.Is(err, library.ErrNotFound) && revision > 0:
		return s.conflict(ctx, out, Edit{ID: o.ModuleID, Locale: o.Locale, Text: text, Revision: revision}, err)
	case errors.Is(err, library.ErrInvalid):
		return Outcome{Kind: OutcomeInvalid, Errors: []LineError{{Msg: err.Error()}}}, nil
	case err != nil:
		return Outcome{}, err
	}
	s.Served.refresh(ctx, "override saved", overrideKey(saved.ModuleID, saved.Locale))
	s.Log.Info("override saved", "module", saved.ModuleID, "locale", saved.Locale, "revision", saved.Revision,
		"author", saved.Author, "published", o.Publish)
	out.Kind, out.Saved = OutcomeStored, saved
	return out, nil
}

// head reads the override's head; exists is false when there is none.
func (s *Overrides) head(ctx context.Context, id, locale string) (domain.Override, bool, error) {
	h, err := s.Store.GetOverride(ctx, id, locale)
	switch {
	case errors.Is(err, library.ErrNotFound):
		return domain.Override{}, false, nil
	case err != nil:
		return domain.Override{}, false, err
	}
	return h, true, nil
}

// conflict is the conflict outcome of e, with the head as it is now.
func (s *Overrides) conflict(ctx context.Context, out Outcome, e Edit, reason error) (Outcome, error) {
	head, exists, err := s.head(ctx, e.ID, e.Locale)
	if err != nil {
		return Outcome{}, err
	}
	out.Kind, out.Reason, out.Head = OutcomeConflict, reason.Error(), nil
	if exists {
		out.Head = &head
	}
	return out, nil
}

// Publish makes the draft at revision the served text and returns the
// head. The draft is checked again against what is served now, since
// other publishes may have happened since it was saved: two drafts that
// include each other may each pass alone and make a cycle together.
// Errors: ErrReviewRequired while Review is on; library.ErrInvalid when
// that draft no longer parses or would break assembly;
// library.ErrConflict when the head moved past revision;
// library.ErrNotFound when there is no override; else the store's.
func (s *Overrides) Publish(ctx context.Context, id, locale string, revision int) (domain.Override, error) {
	if err := s.reviewed(); err != nil {
		return domain.Override{}, err
	}
	if err := s.publishable(id, locale, revision); err != nil {
		return domain.Override{}, err
	}
	saved, err := s.Store.Publish(s.Served.own(ctx), id, locale, revision)
	if err != nil {
		return domain.Override{}, err
	}
	s.Log.Info("override published", "module", id, "locale", saved.Locale, "revision", saved.Revision)
	s.Served.refresh(ctx, "override published", overrideKey(id, locale))
	s.wake()
	return saved, nil
}

// publishable checks the draft at revision against what serves now.
func (s *Overrides) publishable(id, locale string, revision int) error {
	key := assembler.Key(id, locale)
	v := s.Served.Current()
	if d, ok := v.Drafts.Get(key); ok && d.Revision == revision {
		if perr, broken := v.DraftBroken.Get(key); broken {
			return fmt.Errorf("draft revision %d of %s (%s) does not parse, so it cannot be published; fix it first: %v: %w",
				revision, id, locale, perr, library.ErrInvalid)
		}
		o, _ := v.WithDrafts.Overrides.Get(key)
		if err := s.servable(v, o); err != nil {
			return fmt.Errorf("draft revision %d of %s (%s) cannot be published: %v; edit it first: %w",
				revision, id, locale, err, library.ErrInvalid)
		}
	}
	return nil
}

// servable checks a draft override against v's served State with the
// draft on top: its placeholders name published modules only, and its
// includes make no cycle.
func (s *Overrides) servable(v *View, o *assembler.Override) error {
	st := &assembler.State{Overrides: v.State.Overrides.With(assembler.Key(o.ID, o.Locale), o), Profiles: v.State.Profiles}
	if err := v.Library.CheckPlaceholdersWith(o.Module, st.Overrides.HasID); err != nil {
		return err
	}
	return s.Assembler.CheckIncludes(v.Library, st, o.Module, o.Locale)
}

// NoDraft is the error of discarding when no draft is pending any more
// (it was discarded or published, say the form was posted again):
// nothing changed and nothing was recorded. Head is the override now.
type NoDraft struct {
	Head domain.Override
}

func (e *NoDraft) Error() string {
	return fmt.Sprintf("%s has no draft to discard: revision %d is published", OverrideFile(e.Head.ModuleID, e.Head.Locale), e.Head.Revision)
}

// Discard drops the draft at revision: the published text serves on as a
// new revision, or the override is removed (removed true) when nothing was
// ever published. Errors: *NoDraft when no draft is pending now; else as
// Publish.
func (s *Overrides) Discard(ctx context.Context, id, locale string, revision int) (saved domain.Override, removed bool, err error) {
	if saved, removed, err = s.Store.Discard(s.Served.own(ctx), id, locale, revision); err != nil {
		if errors.Is(err, library.ErrInvalid) || errors.Is(err, library.ErrConflict) {
			if head, exists, herr := s.head(ctx, id, locale); herr == nil && exists && !head.Draft {
				return domain.Override{}, false, &NoDraft{Head: head}
			}
		}
		return domain.Override{}, false, err
	}
	s.Log.Info("override draft discarded", "module", id, "locale", locale, "revision", revision, "removed", removed)
	s.Served.refresh(ctx, "draft discarded", overrideKey(id, locale))
	return saved, removed, nil
}

// Delete removes the override at revision: the builtin serves again (a
// user module's locale is gone). Errors: ErrReviewRequired while Review
// is on; library.ErrInvalid when the
// module would be gone while a served module includes it (includedBy);
// library.ErrConflict when it moved past revision; library.ErrNotFound
// when there is none.
func (s *Overrides) Delete(ctx context.Context, id, locale string, revision int) error {
	if err := s.reviewed(); err != nil {
		return err
	}
	if err := s.includedBy(id, locale); err != nil {
		return err
	}
	if err := s.Store.DeleteOverride(s.Served.own(ctx), id, locale, revision); err != nil {
		return err
	}
	s.Log.Info("override deleted", "module", id, "locale", locale, "revision", revision)
	s.Served.refresh(ctx, "override deleted", overrideKey(id, locale))
	s.wake()
	return nil
}

// includedBy refuses to remove the override of id in locale when that
// leaves no text of id at all (no builtin, no other served locale) while
// a served module includes {{id}}: every assembly entering it would fail.
func (s *Overrides) includedBy(id, locale string) error {
	v := s.Served.Current()
	if v.Library.Has(id) {
		return nil
	}
	for key := range v.State.Overrides.ID(id) {
		if key != assembler.Key(id, locale) {
			return nil
		}
	}
	var by []string
	for _, key := range dependents(v.deps.Root(), id, false) {
		if o, ok := v.State.Overrides.Get(key); ok && key.ID != id && includes(o.Module, id) {
			by = append(by, fmt.Sprintf("%s (%s, override)", key.ID, o.Locale))
		}
	}
	for _, mid := range v.Library.IDs() {
		for _, loc := range v.Library.ModuleLocales(mid) {
			if m, _ := v.Library.Module(mid, loc); includes(m, id) {
				by = append(by, fmt.Sprintf("%s (%s, builtin)", mid, loc))
			}
		}
	}
	if len(by) == 0 {
		return nil
	}
	slices.Sort(by)
	return fmt.Errorf("%s would no longer exist, but %s include {{%s}}; remove those includes first: %w",
		id, strings.Join(by, ", "), id, library.ErrInvalid)
}

// includes reports whether m has the placeholder {{id}} and does not
// declare id as a variable.
func includes(m *library.Module, id string) bool {
	if _, isVar := m.Variable(id); isVar {
		return false
	}
	return slices.ContainsFunc(m.Placeholders, func(p library.Placeholder) bool { return p.Name == id })
}

// Restore makes the text and base of an old revision the override's
// draft again, on top of base (the head the operator saw). The text must
// still pass the checks of a save (OutcomeInvalid otherwise); a head past
// base is OutcomeConflict; a head with that text and base already is
// OutcomeUnchanged (nothing stored). Errors: library.ErrNotFound for an unknown
// revision, library.ErrInvalid for a revision that removed the override.
func (s *Overrides) Restore(ctx context.Context, id, locale string, revision, base int) (Outcome, error) {
	r, err := s.Store.GetRevision(ctx, id, locale, revision)
	if err != nil {
		return Outcome{}, err
	}
	if domain.Removal(r.Action, r.Text) {
		return Outcome{}, fmt.Errorf("revision %d removed the override: it has no text to restore: %w", revision, library.ErrInvalid)
	}
	out := s.Check(id, locale, r.Text)
	if out.Kind == OutcomeInvalid {
		return out, nil
	}
	if b, ok := s.BuiltinBase(s.Served.Current(), id, locale); ok && EqualsBuiltin(out.Module.Text, b.Text) {
		out.Kind, out.Builtin = OutcomeEqualsBuiltin, b
		return out, nil
	}
	head, exists, err := s.head(ctx, id, locale)
	if err != nil {
		return Outcome{}, err
	}
	if exists && EqualsBuiltin(out.Module.Text, head.Text) && head.BaseHash == r.BaseHash {
		// The head is that revision's text on that base already.
		out.Kind, out.Head = OutcomeUnchanged, &head
		return out, nil
	}
	saved, err := s.Store.RestoreRevision(s.Served.own(ctx), id, locale, revision, base)
	switch {
	case errors.Is(err, library.ErrConflict):
		return s.conflict(ctx, out, Edit{ID: id, Locale: locale, Revision: base}, err)
	case err != nil:
		return Outcome{}, err
	}
	s.Served.refresh(ctx, "revision restored", overrideKey(id, locale))
	s.wake()
	s.Log.Info("override revision restored", "module", id, "locale", locale, "restored", revision, "revision", saved.Revision)
	out.Kind, out.Saved = OutcomeStored, saved
	return out, nil
}

// KeepMine is the drift review's "keep mine": the override at revision
// keeps its text and is based on the builtin now (BuiltinBase), published
// at once; with its builtin removed it becomes a user module (based on
// nothing). Errors: ErrReviewRequired, library.ErrConflict,
// library.ErrNotFound as Delete.
func (s *Overrides) KeepMine(ctx context.Context, id, locale string, revision int) (domain.Override, error) {
	if err := s.reviewed(); err != nil {
		return domain.Override{}, err
	}
	var version int
	var text string
	if b, ok := s.BuiltinBase(s.Served.Current(), id, locale); ok {
		version, text = b.Version, b.Text
	}
	saved, err := s.Store.KeepMine(s.Served.own(ctx), id, locale, revision, version, text, domain.TextHash(text))
	if err != nil {
		return domain.Override{}, err
	}
	s.Log.Info("drift reviewed: kept the override", "module", id, "locale", saved.Locale, "revision", saved.Revision, "builtin_version", version)
	s.Served.refresh(ctx, "override kept", overrideKey(id, locale))
	s.wake()
	return saved, nil
}

// TakeBuiltin is the drift review's "take builtin": the override at
// revision is removed and the builtin serves. Errors as Delete.
func (s *Overrides) TakeBuiltin(ctx context.Context, id, locale string, revision int) error {
	if err := s.reviewed(); err != nil {
		return err
	}
	if err := s.includedBy(id, locale); err != nil {
		return err
	}
	if err := s.Store.TakeBuiltin(s.Served.own(ctx), id, locale, revision); err != nil {
		return err
	}
	s.Log.Info("drift reviewed: took the builtin", "module", id, "locale", locale, "revision", revision)
	s.Served.refresh(ctx, "builtin taken", overrideKey(id, locale))
	s.wake()
	return nil
}

// Rebase is the drift review's rebase: text, the operator's merge of the
// builtin's changes into the override at revision, is saved as a draft
// based on the builtin now; like every edit it serves once published
// (which resolves the drift). Conflict markers left in the text
// (linediff) are invalid, like any failed check; a text equal to the
// builtin stores nothing.
func (s *Overrides) Rebase(ctx context.Context, id, locale, text string, revision int) (Outcome, error) {
	head, exists, err := s.head(ctx, id, locale)
	if err != nil {
		return Outcome{}, err
	}
	if !exists || head.Revision != revision {
		return s.conflict(ctx, Outcome{}, Edit{ID: id, Locale: locale, Text: text, Revision: revision},
			fmt.Errorf("%s is not at revision %d any more", OverrideFile(id, locale), revision))
	}
	base, ok := s.BuiltinBase(s.Served.Current(), id, locale)
	if !ok {
		return Outcome{}, fmt.Errorf("%s has no builtin to rebase onto: keep it as a user module or delete it: %w", id, library.ErrInvalid)
	}
	if out, marked := markers(text, base.Text, head.Text); marked {
		return out, nil
	}
	out := s.Check(id, locale, text)
	if out.Kind == OutcomeInvalid {
		return out, nil
	}
	out.Head = &head
	if EqualsBuiltin(out.Module.Text, base.Text) {
		out.Kind, out.Builtin = OutcomeEqualsBuiltin, base
		return out, nil
	}
	o := domain.Override{ModuleID: id, Locale: head.Locale, Action: domain.ActionRebase,
		BasedOnVersion: base.Version, BaseSnapshot: base.Text, BaseHash: domain.TextHash(base.Text)}
	return s.store(ctx, out, o, out.Module, revision, text)
}

// markers is the invalid outcome of a merged text with a "=======" line
// none of sources has, the middle marker of a conflict whose other
// markers were removed (complete marker lines fail every Check); marked
// is false when it has none.
func markers(text string, sources ...string) (out Outcome, marked bool) {
	e := library.ConflictMarkers("", linediff.StraySeparators(text, sources...))
	if e == nil {
		return Outcome{}, false
	}
	return Outcome{Kind: OutcomeInvalid, Errors: []LineError{{Line: e.Line, Msg: e.Msg}}}, true
}

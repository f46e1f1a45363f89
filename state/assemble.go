package state

import (
	"context"
	"fmt"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// Mode is what an assembly reads of a View besides the library. The zero
// Mode is what the runtime API serves: the published overrides and the
// profiles.
type Mode struct {
	// BuiltinOnly leaves every stored override out, published or draft:
	// the library's text serves. Profiles still apply: they are request
	// settings (locale, model, modules, budget), not module text. Pins in
	// the request still serve their revisions on top.
	BuiltinOnly bool
	// Drafts serves each pending draft over its published override (a
	// preview "with drafts"); the report marks what came from a draft
	// (DraftSuffix) and ends with the drafts-included warning. Ignored
	// with BuiltinOnly.
	Drafts bool
	// On, when set, replaces the overrides and profiles of the mode with
	// this state: what is served with one unsaved change on top (the
	// impact of an edit).
	On *assembler.State
	// Channel is the runtime API token's channel: domain.ChannelStaging
	// serves as Drafts does (the pending drafts, which include every
	// publish waiting for approval, on top of what is published) less the
	// overrides an open delete or take-builtin request would remove
	// (Assembly.Requests), and the report ends with the warning
	// ChannelModule · "channel:staging". "" and domain.ChannelProduction
	// serve what is published. Ignored with BuiltinOnly.
	Channel string
}

// ChannelModule is the module of the report entry naming the staging
// channel (reason "channel:staging").
const ChannelModule = "channel"

// Assembly runs every assembly promptdesk makes — the runtime API, the
// preview, saved scenarios, the impact of an edit and the CLI — so that
// all give the same answer for the same request and mode.
type Assembly struct {
	Served    *Served
	Assembler *assembler.Assembler
	// Revisions reads the revisions a request pins ("revisions"); nil
	// refuses pins with a 422 naming the field.
	Revisions RevisionSource
	// Requests lists the open change requests, whose deletes and
	// take-builtins the staging channel applies; nil applies none.
	Requests RequestSource
}

// RequestSource lists change requests by status (store.Store).
type RequestSource interface {
	ListChangeRequests(ctx context.Context, status string) ([]domain.ChangeRequest, error)
}

// RequestsUnreadReason is the reason of the staging report's warning
// when the open change requests could not be read (the database is
// unreachable): the pending drafts serve, the pending removals do not.
const RequestsUnreadReason = "channel:staging-requests-unread"

// Assembled is one assembly and what it was made on.
type Assembled struct {
	*assembler.Result
	// View is the View it was assembled on.
	View *View
	// Drafts counts the report entries served from a draft (Mode.Drafts).
	Drafts int
}

// DraftSuffix ends the reason of a composition report entry whose text
// came from a draft, in an assembly with Mode.Drafts; the report also
// gets a warning entry with reason DraftsIncludedReason + the number of
// entries served from drafts.
const (
	DraftSuffix          = " · draft"
	DraftsIncludedReason = "drafts-included:"
)

// StaleModule is the module of the report warning saying that the served
// state is the last one read before the database became unreachable:
// reason "stale-since:<RFC 3339 time>".
const StaleModule = "database"

// Assemble assembles req on the current View in mode m at now (a request
// without "now" gets it). Errors: the assembler's (*library.Error,
// matching library.ErrInvalid or library.ErrNotFound for the request's
// faults), a 422 for a pin that cannot serve, else the store's.
func (a *Assembly) Assemble(ctx context.Context, req *assembler.Request, m Mode, now time.Time) (*Assembled, error) {
	return a.AssembleOn(ctx, a.Served.Current(), req, m, now)
}

// AssembleOn is Assemble on the View v, for callers that assemble many
// requests on one View (scenario runs, impact). While the database is
// unreachable the report ends with the StaleModule warning.
func (a *Assembly) AssembleOn(ctx context.Context, v *View, req *assembler.Request, m Mode, now time.Time) (*Assembled, error) {
	st := v.State
	staging := m.Channel == domain.ChannelStaging && !m.BuiltinOnly
	drafts := (m.Drafts || staging) && !m.BuiltinOnly
	var unread bool
	switch {
	case m.On != nil:
		st = m.On
	case m.BuiltinOnly:
		st = &assembler.State{Profiles: v.State.Profiles}
	case staging:
		st, unread = a.staged(ctx, v.WithDrafts)
	case drafts:
		st = v.WithDrafts
	}
	// A pin may name only what this mode serves: without drafts, a
	// user module that is only a draft does not exist.
	pv := v
	if !drafts {
		pv = v.Published()
	}
	st, err := a.pin(ctx, pv, st, req.Revisions)
	if err != nil {
		return nil, err
	}
	res, err := a.Assembler.Assemble(v.Library, st, req, now)
	if err != nil {
		return nil, err
	}
	out := &Assembled{Result: res, View: v}
	if drafts && m.On == nil {
		out.Drafts = markDrafts(v, res)
	}
	if staging {
		res.Report = append(res.Report, channelWarnings(unread)...)
	}
	if w, ok := a.Served.staleWarning(); ok {
		res.Report = append(res.Report, w)
	}
	return out, nil
}

// staged is st (the pending drafts on top of what is published) less the
// overrides that an open delete or take-builtin request removes: what
// serves once every open request is approved. unread is true when the
// requests could not be read; st then serves as it is.
func (a *Assembly) staged(ctx context.Context, st *assembler.State) (_ *assembler.State, unread bool) {
	if a.Requests == nil {
		return st, false
	}
	open, err := a.Requests.ListChangeRequests(ctx, domain.RequestOpen)
	if err != nil {
		return st, true
	}
	ov := st.Overrides
	for _, r := range open {
		if r.Action == domain.ActionDelete || r.Action == domain.ActionTakeBuiltin {
			ov = ov.Without(assembler.Key(r.ModuleID, r.Locale))
		}
	}
	if ov.Len() == st.Overrides.Len() {
		return st, false
	}
	return &assembler.State{Overrides: ov, Profiles: st.Profiles}, false
}

// channelWarnings are the staging channel's report entries: the channel,
// and RequestsUnreadReason when the requests could not be read.
func channelWarnings(unread bool) []assembler.ReportEntry {
	reasons := []string{"channel:" + domain.ChannelStaging}
	if unread {
		reasons = append(reasons, RequestsUnreadReason)
	}
	out := make([]assembler.ReportEntry, len(reasons))
	for i, r := range reasons {
		out[i] = assembler.ReportEntry{Kind: assembler.KindWarning, Module: ChannelModule, Reason: r}
		out[i].Line = out[i].TextForm()
	}
	return out
}

// Render renders one module by id through the override chain of the
// current View with the request's variables (and pins), and while the
// database is unreachable the StaleModule warning. On the staging channel
// (domain.ChannelStaging) it renders what Assemble serves that channel,
// and the report has the channel's warnings. Errors as Assemble.
func (a *Assembly) Render(ctx context.Context, req *assembler.RenderRequest, channel string, now time.Time) (*assembler.Rendered, []assembler.ReportEntry, error) {
	v := a.Served.Current()
	var report []assembler.ReportEntry
	st := v.State
	if channel == domain.ChannelStaging {
		var unread bool
		st, unread = a.staged(ctx, v.WithDrafts)
		report = channelWarnings(unread)
	} else {
		v = v.Published()
		st = v.State
	}
	st, err := a.pin(ctx, v, st, req.Revisions)
	if err != nil {
		return nil, nil, err
	}
	out, err := a.Assembler.Render(v.Library, st, req, now)
	if err != nil {
		return nil, nil, err
	}
	if w, ok := a.Served.staleWarning(); ok {
		report = append(report, w)
	}
	return out, report, nil
}

// pin is st with the pinned revisions served (Pinned); st itself
// without pins.
func (a *Assembly) pin(ctx context.Context, v *View, st *assembler.State, revisions map[string]int) (*assembler.State, error) {
	if len(revisions) == 0 {
		return st, nil
	}
	pins, err := assembler.Pins(revisions)
	if err != nil {
		return nil, err
	}
	if a.Revisions == nil {
		return nil, &library.Error{Code: library.CodeInvalidRequest, Field: "revisions", Msg: "pinned revisions are read from the database, which this command does not open"}
	}
	return Pinned(ctx, a.Revisions, v, st, pins)
}

// staleWarning is the StaleModule report entry; ok is false while the
// database answers.
func (s *Served) staleWarning() (assembler.ReportEntry, bool) {
	since, ok := s.StaleSince()
	if !ok {
		return assembler.ReportEntry{}, false
	}
	e := assembler.ReportEntry{Kind: assembler.KindWarning, Module: StaleModule, Reason: "stale-since:" + since.UTC().Format(time.RFC3339)}
	e.Line = e.TextForm()
	return e, true
}

// markDrafts marks the report entries of res served from a draft of v,
// the draft's own revision and not a pinned one (their source stays override, override-drifted or user-module; the
// reason gets DraftSuffix) and adds the drafts-included warning, whose
// number counts the marked entries. It returns that number.
func markDrafts(v *View, res *assembler.Result) int {
	n := 0
	for i := range res.Report {
		e := &res.Report[i]
		switch e.Source {
		case assembler.SourceOverride, assembler.SourceOverrideDrifted, assembler.SourceUserModule:
		default:
			continue
		}
		key := assembler.Key(e.Module, e.Locale)
		d, ok := v.Drafts.Get(key)
		if o, _ := v.WithDrafts.Overrides.Get(key); !ok || o == nil || o.Revision != d.Revision || e.Revision != d.Revision {
			continue // no draft, one that does not parse and so did not serve, or a pinned revision served instead
		}
		e.Reason += DraftSuffix
		e.Line = e.TextForm()
		n++
	}
	w := assembler.ReportEntry{Kind: assembler.KindWarning, Module: "drafts", Reason: fmt.Sprintf("%s%d", DraftsIncludedReason, n)}
	w.Line = w.TextForm()
	res.Report = append(res.Report, w)
	return n
}

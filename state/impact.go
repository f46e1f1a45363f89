package state

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// Change is a change of the override of ID in Locale whose effect on what
// is served Effect computes: Text becomes the override's text (an unsaved
// edit, or a draft about to be published), or with Remove the override is
// gone and the builtin, the fallback locale or nothing serves. Label names
// Text where the served text is described ("draft revision 4"; default
// "your text").
type Change struct {
	ID, Locale string
	Text       string
	Remove     bool
	Label      string
}

// Effect is what a Change does to what is served: the text serving the
// override's locale before and after it, and every saved scenario
// assembled before and after.
type Effect struct {
	Before, After ServedText
	Scenarios     []ScenarioImpact
}

// ServedText is the module file that serves one id in one locale. From
// says where it comes from ("builtin zh-CN v1", "override revision 3
// (en-US)", "your text"); Text and From are "" when nothing serves.
type ServedText struct {
	Text string
	From string
}

// ScenarioImpact is one saved scenario assembled on the served state
// (Before) and on the same state with a change on top (After): the full
// system prompt texts and their token counts (0 when the assembler
// counts no tokens). BeforeErr and AfterErr are the assembly errors of a
// side that failed, nil when it assembled.
type ScenarioImpact struct {
	ID, Name                  string
	Before, After             string
	BeforeTokens, AfterTokens int
	BeforeErr, AfterErr       error
}

// Changed reports whether the change changes the scenario's output: the
// texts differ, or one side failed where the other did not (or failed
// otherwise).
func (i ScenarioImpact) Changed() bool {
	return i.Before != i.After || errorText(i.BeforeErr) != errorText(i.AfterErr)
}

// errorText is err's message, "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Failed reports whether either side failed to assemble.
func (i ScenarioImpact) Failed() bool { return i.BeforeErr != nil || i.AfterErr != nil }

// TextError is the error of Effect and Impact for a text that fails the
// checks of a save: nothing can be assembled with it. It matches
// library.ErrInvalid.
type TextError struct {
	Errors []LineError
}

// Error lists the errors, each with its line when it names one.
func (e *TextError) Error() string {
	msgs := make([]string, len(e.Errors))
	for i, le := range e.Errors {
		msgs[i] = le.Msg
		if le.Line > 0 {
			msgs[i] = fmt.Sprintf("line %d: %s", le.Line, le.Msg)
		}
	}
	return "the text cannot be assembled: " + strings.Join(msgs, "; ")
}

// Unwrap makes a TextError match library.ErrInvalid.
func (e *TextError) Unwrap() error { return library.ErrInvalid }

// Impact is the effect of an unsaved text of the override of id in
// locale on the saved scenarios: each assembled against the served View
// and against the same state with text on top, nothing stored. Errors: a
// *TextError when text fails the checks of a save; else the store's.
func (s *Overrides) Impact(ctx context.Context, id, locale, text string) ([]ScenarioImpact, error) {
	e, err := s.Effect(ctx, Change{ID: id, Locale: locale, Text: text})
	return e.Scenarios, err
}

// Effect computes what c would change in what is served, on the current
// View: the served text of c's locale and every saved scenario, assembled
// with the server's assembler before and after (a request without "now"
// gets the same current time on both sides, so only the change shows).
// A scenario whose request does not decode or assemble is kept with its
// error. Errors: a *TextError when c.Text fails the checks of a save
// (Before is set even then); else the store's.
func (s *Overrides) Effect(ctx context.Context, c Change) (Effect, error) {
	v := s.Served.Current()
	e := Effect{Before: s.servedText(v, v.State, c.ID, c.Locale, "")}
	after, err := s.changed(v, c)
	if err != nil {
		return e, err
	}
	label := c.Label
	if label == "" {
		label = "your text"
	}
	e.After = s.servedText(v, after, c.ID, c.Locale, label)
	scs, err := s.scenarios(ctx)
	if err != nil {
		return Effect{}, err
	}
	now := time.Now()
	for _, sc := range scs {
		i := ScenarioImpact{ID: sc.ID, Name: sc.Name}
		req, err := assembler.DecodeRequest(sc.Request)
		if err != nil {
			i.BeforeErr = fmt.Errorf("the saved request does not decode: %w", err)
			i.AfterErr = i.BeforeErr
			e.Scenarios = append(e.Scenarios, i)
			continue
		}
		i.Before, i.BeforeTokens, i.BeforeErr = s.assemble(ctx, v, nil, req, now)
		i.After, i.AfterTokens, i.AfterErr = s.assemble(ctx, v, after, req, now)
		e.Scenarios = append(e.Scenarios, i)
	}
	return e, nil
}

// ServedText is the text that serves id in locale now.
func (s *Overrides) ServedText(id, locale string) ServedText {
	v := s.Served.Current()
	return s.servedText(v, v.State, id, locale, "")
}

// assembly is the one assembly path (Assembly) on s's parts.
func (s *Overrides) assembly() *Assembly {
	return &Assembly{Served: s.Served, Assembler: s.Assembler, Revisions: s.Store}
}

// changed is v's served State with c on top.
func (s *Overrides) changed(v *View, c Change) (*assembler.State, error) {
	st := &assembler.State{Overrides: v.State.Overrides, Profiles: v.State.Profiles}
	key := assembler.Key(c.ID, c.Locale)
	if c.Remove {
		st.Overrides = st.Overrides.Without(key)
		return st, nil
	}
	out := s.Check(c.ID, c.Locale, c.Text)
	if out.Kind == OutcomeInvalid {
		return nil, &TextError{Errors: out.Errors}
	}
	o := &assembler.Override{ID: c.ID, Module: out.Module, Locale: c.Locale}
	// The base of the override as it would be saved, so drift is judged
	// as it will be.
	if head, ok := v.Head(c.ID, c.Locale); ok {
		o.Revision, o.BasedOnVersion, o.BaseSnapshot = head.Revision, head.BasedOnVersion, head.BaseSnapshot
	} else if b, ok := s.BuiltinBase(v, c.ID, c.Locale); ok {
		o.BasedOnVersion, o.BaseSnapshot = b.Version, b.Text
	}
	st.Overrides = st.Overrides.With(key, o)
	return st, nil
}

// servedText is the text st serves for id in locale; an override not in
// v's served State is named by mine.
func (s *Overrides) servedText(v *View, st *assembler.State, id, locale, mine string) ServedText {
	sv, ok := s.Assembler.Resolve(v.Library, st, id, locale)
	if !ok {
		return ServedText{}
	}
	from := fmt.Sprintf("builtin %s v%d", sv.Locale, sv.Module.Version)
	if sv.Override != nil {
		from = fmt.Sprintf("override revision %d (%s)", sv.Override.Revision, sv.Locale)
		if served, ok := v.State.Overrides.Get(assembler.Key(id, sv.Locale)); mine != "" && (!ok || served != sv.Override) {
			from = fmt.Sprintf("%s (%s)", mine, sv.Locale)
		}
	}
	if sv.Fallback {
		from += ", the fallback locale"
	}
	return ServedText{Text: sv.Module.Text, From: from}
}

// assemble runs req on v as served, or with on (Mode.On) when set: the
// system prompt text and its tokens, or the error.
func (s *Overrides) assemble(ctx context.Context, v *View, on *assembler.State, req *assembler.Request, now time.Time) (string, int, error) {
	res, err := s.assembly().AssembleOn(ctx, v, req, Mode{On: on}, now)
	if err != nil {
		return "", 0, err
	}
	return res.Text, res.Tokens, nil
}

// scenarios lists the saved scenarios, ordered by id.
func (s *Overrides) scenarios(ctx context.Context) ([]domain.Scenario, error) {
	scs, err := s.Store.ListScenarios(ctx)
	if err != nil {
		return nil, fmt.Errorf("saved scenarios: %w", err)
	}
	return scs, nil
}

// Uses is where one module is used: the profiles whose promptModules name
// it (sorted by id) and the saved scenarios it enters when assembled on
// the served View (by scenario id).
type Uses struct {
	Profiles  []ProfileUse
	Scenarios []ScenarioUse
	// Total is the number of saved scenarios assembled.
	Total int
}

// ProfileUse is a profile that names the module in its promptModules, at
// 1-based Position.
type ProfileUse struct {
	ID, Name string
	Position int
}

// ScenarioUse is a saved scenario and why the module entered it: one
// Entry per composition report entry of kind prompt or include, or the
// assembly error (Err) of a scenario that did not assemble.
type ScenarioUse struct {
	ID, Name string
	Entries  []assembler.ReportEntry
	Err      error
}

// WhereUsed finds where id is used on the served View: the profiles
// naming it and the saved scenarios whose assembly enters it (kinds
// prompt and include of the composition report: profile, default,
// intent:…, command:…, attachment, by:…). A scenario that fails to
// assemble is listed with its error. Errors are the store's.
func (s *Overrides) WhereUsed(ctx context.Context, id string) (Uses, error) {
	v := s.Served.Current()
	var u Uses
	for _, p := range v.State.Profiles {
		if n := slices.Index(p.PromptModules, id); n >= 0 {
			u.Profiles = append(u.Profiles, ProfileUse{ID: p.ID, Name: p.Name, Position: n + 1})
		}
	}
	slices.SortFunc(u.Profiles, func(a, b ProfileUse) int { return strings.Compare(a.ID, b.ID) })
	scs, err := s.scenarios(ctx)
	if err != nil {
		return Uses{}, err
	}
	u.Total = len(scs)
	now := time.Now()
	for _, sc := range scs {
		use := ScenarioUse{ID: sc.ID, Name: sc.Name}
		req, err := assembler.DecodeRequest(sc.Request)
		if err == nil {
			var res *assembler.Result
			if res, err = s.Assembler.Assemble(v.Library, v.State, req, now); err == nil {
				for _, e := range res.Report {
					if e.Module == id && (e.Kind == assembler.KindPrompt || e.Kind == assembler.KindInclude) {
						use.Entries = append(use.Entries, e)
					}
				}
			}
		}
		use.Err = err
		if use.Err != nil || len(use.Entries) > 0 {
			u.Scenarios = append(u.Scenarios, use)
		}
	}
	return u, nil
}

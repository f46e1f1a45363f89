package assembler

import (
	"fmt"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// RenderRequest asks for one module rendered with caller variables, the
// "named scenario" use (title generation, polishing, injection,
// context notes, sub-agent prompts). Locale "" means the fallback locale;
// Model, TimeZone and Now feed the environment values as in Request.
type RenderRequest struct {
	Module    string            `json:"module"`
	Locale    string            `json:"locale,omitempty"`
	Variables map[string]string `json:"variables,omitempty"`
	Model     string            `json:"model,omitempty"`
	TimeZone  string            `json:"timeZone,omitempty"`
	Now       *time.Time        `json:"now,omitempty"`
	// Format is "" or FormatText, or FormatMessages to add
	// Rendered.Messages (one system message: the text).
	Format string `json:"format,omitempty"`
	// Revisions pins overrides as Request.Revisions does.
	Revisions map[string]int `json:"revisions,omitempty"`
}

// Rendered is one rendered module: its text, token count (0 when counting
// is off) and where the text came from: Revision is the revision of the
// override that served (0, and absent from the JSON, for a builtin).
// Messages holds the text as one system message with FormatMessages.
type Rendered struct {
	Text     string    `json:"text"`
	Tokens   int       `json:"tokens"`
	Module   string    `json:"module"`
	Version  int       `json:"version"`
	Source   string    `json:"source"`
	Revision int       `json:"revision,omitempty"`
	Locale   string    `json:"locale"`
	Fallback bool      `json:"fallback"`
	Messages []Message `json:"messages,omitempty"`
	// Report is absent but while the server answers from the state it
	// last read (the database unreachable): then it holds the entry that
	// says so.
	Report []ReportEntry `json:"report,omitempty"`
}

// Render renders one module by id through the override chain.
// Errors are *Error values: not found, missing or extra variable, unknown
// placeholder, include cycle or depth, invalid time zone.
func (a *Assembler) Render(snap *library.Snapshot, st *State, req *RenderRequest, now time.Time) (*Rendered, error) {
	if req.Module == "" {
		return nil, &library.Error{Code: library.CodeInvalidRequest, Field: "module", Msg: "the module id is required"}
	}
	if err := checkFormat(req.Format, ""); err != nil {
		return nil, err
	}
	if err := oneLine("model", req.Model, MaxModelLength); err != nil {
		return nil, err
	}
	locale := firstNonEmpty(req.Locale, a.cfg.FallbackLocale)
	s, ok := a.Resolve(snap, st, req.Module, locale)
	if !ok {
		return nil, &library.Error{Code: library.CodeNotFound, Module: req.Module, Field: "module", Msg: fmt.Sprintf("no module %q in %s", req.Module, a.lookedIn(locale))}
	}
	loc, err := a.zone(&Request{TimeZone: req.TimeZone}, nil)
	if err != nil {
		return nil, err
	}
	if req.Now != nil {
		now = *req.Now
	}
	r := &renderer{a: a, snap: snap, st: st, locale: locale, vars: req.Variables, declared: map[string]bool{},
		req: &Request{Model: req.Model}, model: req.Model, now: now.In(loc), loc: loc, lab: a.labelsFor(snap, locale)}
	if r.lab.labels == nil {
		return nil, &library.Error{Code: library.CodeNotFound, Field: "locale", Msg: "no labels for " + a.lookedIn(locale)}
	}
	sp, err := r.module(s)
	if err != nil {
		return nil, err
	}
	text := r.slice(sp)
	if err := extraVariables(req.Variables, r.declared, req.Module, "the module does not declare this variable"); err != nil {
		return nil, err
	}
	out := &Rendered{Text: text, Module: s.Module.ID, Version: s.Module.Version, Source: s.Source, Locale: s.Locale, Fallback: s.Fallback}
	if s.Override != nil {
		out.Revision = s.Override.Revision
	}
	if req.Format == FormatMessages {
		out.Messages = []Message{{Role: RoleSystem, Content: text}}
	}
	counter, err := a.counter(req.Model)
	if err != nil {
		return nil, err
	}
	if counter != nil {
		out.Tokens = counter.Count(text)
	}
	return out, nil
}

// lookedIn names the locales a lookup tried: locale, then the fallback
// locale when it is another one ("ja-JP or the fallback en-US").
func (a *Assembler) lookedIn(locale string) string {
	if library.LocaleKey(locale) == library.LocaleKey(a.cfg.FallbackLocale) {
		return locale
	}
	return locale + " or the fallback " + a.cfg.FallbackLocale
}

package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/driftreviewpage"
	"github.com/promptdesk/promptdesk/views/overridepage"
)

// The impact panel and the confirmation pages: what an edit, a publish, a
// discard or a removal changes in what is served is shown before it
// counts. The actions themselves stay the POST routes they were.

// Impact handles POST /modules/:id/override/:locale/impact with the
// editor's form (text; revision and merged are kept): the impact panel of
// the unsaved text on the saved scenarios, nothing stored. An htmx request
// (the Show impact button, or a live editor's text-changed event) gets
// the panel alone; without JavaScript the editor page with the panel
// under the form. 422 when the text fails the checks of a save: the panel
// lists its errors (the page also shows them under their lines).
func (h *Overrides) Impact(c echo.Context) error {
	v, id, locale, _, err := h.target(c)
	if err != nil {
		return err
	}
	text := c.FormValue("text")
	panel, textErr, err := h.impact(c, id, locale, text)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if textErr != nil {
		status = http.StatusUnprocessableEntity
	}
	if isPartial(c) {
		return Render(c, status, overridepage.ImpactPanel(*panel))
	}
	e := h.editor(v, id, locale)
	e.Text, e.Impact, e.Merged = text, panel, c.FormValue("merged") != ""
	e.Note.Value = c.FormValue("note")
	if e.Revision, err = formRevision(c, "revision"); err != nil || e.Revision < 0 {
		e.Revision = 0
		e.Errors = []string{"the form's revision field is not a revision number; reload the editor"}
		status = http.StatusUnprocessableEntity
	}
	if textErr != nil {
		e.Lines, e.Errors = components.NumberLines(e.Text, editorErrors(textErr.Errors))
	}
	return h.editorPage(c, status, e)
}

// impact is the impact panel of text as the override of id in locale;
// textErr is set when the text fails the checks (the panel then lists its
// errors).
func (h *Overrides) impact(c echo.Context, id, locale, text string) (*overridepage.Impact, *state.TextError, error) {
	scs, err := h.Service.Impact(consoleContext(c), id, locale, text)
	var textErr *state.TextError
	switch {
	case errors.As(err, &textErr):
		return &overridepage.Impact{URL: impactURL(id, locale), Errors: lineMessages(textErr.Errors)}, textErr, nil
	case err != nil:
		return nil, nil, err
	}
	return impactModel(scs, impactURL(id, locale)), nil, nil
}

// impactURL is where the editor of id's override in locale asks for the
// impact of its text.
func impactURL(id, locale string) string {
	return overrideURL(id, locale) + "/impact"
}

// impactModel is the panel of the scenarios' before and after: the ones
// that change or fail, with their diffs, and the names of the others.
func impactModel(scs []state.ScenarioImpact, refresh string) *overridepage.Impact {
	p := &overridepage.Impact{URL: refresh, Total: len(scs)}
	for _, s := range scs {
		if !s.Changed() && !s.Failed() {
			p.Unchanged = append(p.Unchanged, s.Name)
			continue
		}
		sc := overridepage.ScenarioChange{ID: s.ID, Name: s.Name, PreviewURL: "/preview?scenario=" + url.QueryEscape(s.ID),
			TokensBefore: s.BeforeTokens, TokensAfter: s.AfterTokens, BeforeErr: problem(s.BeforeErr), AfterErr: problem(s.AfterErr)}
		if !s.Failed() {
			sc.Lines, sc.Plus, sc.Minus = diffLines(s.Before, s.After)
		}
		p.Changed = append(p.Changed, sc)
	}
	return p
}

// lineMessages are line errors as one message each, naming the line.
func lineMessages(errs []state.LineError) []string {
	out := make([]string, len(errs))
	for i, le := range errs {
		out[i] = le.Msg
		if le.Line > 0 {
			out[i] = fmt.Sprintf("line %d: %s", le.Line, le.Msg)
		}
	}
	return out
}

// effectModel fills the served-text diff and the impact of eff into m.
func effectModel(m *overridepage.Confirm, eff state.Effect, impact bool) {
	m.BeforeFrom, m.AfterFrom = eff.Before.From, eff.After.From
	m.Same = eff.Before.Text == eff.After.Text
	m.Diff, m.Plus, m.Minus = diffLines(eff.Before.Text, eff.After.Text)
	if impact {
		m.Impact = impactModel(eff.Scenarios, "")
	}
}

// headLine describes the override's head for a confirmation.
func headLine(row domain.Override) string {
	s := fmt.Sprintf("Revision %d by %s, %s", row.Revision, row.Author, row.UpdatedAt.UTC().Format(timeLayout))
	switch {
	case row.Draft && row.PublishedRevision > 0:
		s += fmt.Sprintf(": a draft; revision %d is published and serves", row.PublishedRevision)
	case row.Draft:
		s += ": a draft; no revision of this override serves, the builtin does"
	default:
		s += ": published, it serves"
	}
	return s + "."
}

// confirmTarget reads the route and the override's head for a
// confirmation page. Errors: ErrNotFound when there is no override.
func (h *Overrides) confirmTarget(c echo.Context) (id, locale string, row domain.Override, redirected bool, err error) {
	_, id, locale, redirected, err = h.target(c)
	if err != nil || redirected {
		return "", "", domain.Override{}, redirected, err
	}
	row, err = h.Service.Head(c.Request().Context(), id, locale)
	if errors.Is(err, library.ErrNotFound) {
		return "", "", domain.Override{}, false, fmt.Errorf("%s has no override in %s: %w", id, locale, library.ErrNotFound)
	}
	return id, locale, row, false, err
}

// ConfirmPublish renders GET /modules/:id/override/:locale/publish: the
// served text now → the draft, and the draft's impact on the saved
// scenarios, with the form that publishes it (POST, the draft's revision).
// A head that is no draft, or a draft that fails the checks, is shown
// without the form. Errors: ErrNotFound when there is no override.
func (h *Overrides) ConfirmPublish(c echo.Context) error {
	id, locale, row, redirected, err := h.confirmTarget(c)
	if err != nil || redirected {
		return err
	}
	m := h.confirm(id, row, "publish")
	m.Flash = flashFor(c)
	m.Heading = fmt.Sprintf("Publish %s (%s)", id, row.Locale)
	m.Button = fmt.Sprintf("Publish revision %d", row.Revision)
	m.Summary = fmt.Sprintf("Publishing makes draft revision %d the text served for %s: the runtime API, the default preview and every process serve it from then on.", row.Revision, row.Locale)
	if !row.Draft {
		m.Blocked = fmt.Sprintf("Nothing to publish: revision %d is published already and no draft is pending.", row.Revision)
		m.Same, m.BeforeFrom = true, h.Service.ServedText(id, locale).From
		m.AfterFrom = m.BeforeFrom
		return Render(c, http.StatusOK, overridepage.ConfirmPage(m))
	}
	eff, err := h.Service.Effect(consoleContext(c), state.Change{ID: id, Locale: locale, Text: row.Text, Label: fmt.Sprintf("draft revision %d", row.Revision)})
	var textErr *state.TextError
	switch {
	case errors.As(err, &textErr):
		m.Blocked = fmt.Sprintf("Draft revision %d cannot be published: %s. Edit it first.", row.Revision, strings.Join(lineMessages(textErr.Errors), "; "))
		eff.After = state.ServedText{Text: row.Text, From: fmt.Sprintf("draft revision %d, which fails the checks", row.Revision)}
		effectModel(&m, eff, false)
	case err != nil:
		return err
	default:
		effectModel(&m, eff, true)
	}
	reviewNote(h.Service.ReviewOn(), &m)
	return Render(c, http.StatusOK, overridepage.ConfirmPage(m))
}

// ConfirmDiscard renders GET /modules/:id/override/:locale/discard: what
// serves stays (the published text, or the builtin when nothing was ever
// published), and the draft that is thrown away, with the form that
// discards it (POST, the draft's revision). Errors: ErrNotFound when
// there is no override.
func (h *Overrides) ConfirmDiscard(c echo.Context) error {
	id, locale, row, redirected, err := h.confirmTarget(c)
	if err != nil || redirected {
		return err
	}
	m := h.confirm(id, row, "discard")
	m.Heading = fmt.Sprintf("Discard the draft of %s (%s)", id, row.Locale)
	m.Button, m.Danger = fmt.Sprintf("Discard draft revision %d", row.Revision), true
	served := h.Service.ServedText(id, locale)
	m.BeforeFrom, m.AfterFrom, m.Same = served.From, served.From, true
	if !row.Draft {
		m.Blocked = fmt.Sprintf("Nothing to discard: revision %d is published and no draft is pending.", row.Revision)
		return Render(c, http.StatusOK, overridepage.ConfirmPage(m))
	}
	d := &overridepage.Dropped{Title: "The draft you discard, against what serves now (" + orNone(served.From) + ")"}
	m.Summary = fmt.Sprintf("Discarding throws draft revision %d away: published revision %d serves on, recorded as a new revision. The history keeps the draft.", row.Revision, row.PublishedRevision)
	if row.PublishedRevision == 0 {
		m.Summary = fmt.Sprintf("No revision of this override serves: discarding draft revision %d removes the override, and what serves now serves on. The history keeps the draft.", row.Revision)
	}
	d.Lines, d.Plus, d.Minus = diffLines(served.Text, row.Text)
	m.Dropped = d
	return Render(c, http.StatusOK, overridepage.ConfirmPage(m))
}

// ConfirmDelete renders GET /modules/:id/override/:locale/delete: the
// served text now → after the delete (the builtin, the fallback locale's
// text or nothing), the impact on the saved scenarios, a pending draft
// that goes too, and the form that deletes (POST, the head's revision).
// Errors: ErrNotFound when there is no override.
func (h *Overrides) ConfirmDelete(c echo.Context) error {
	id, locale, row, redirected, err := h.confirmTarget(c)
	if err != nil || redirected {
		return err
	}
	m, err := h.deleteModel(c, id, locale, row)
	if err != nil {
		return err
	}
	reviewNote(h.Service.ReviewOn(), &m)
	return Render(c, http.StatusOK, overridepage.ConfirmPage(m))
}

// deleteModel is the delete confirmation of row, the head of id's
// override in locale.
func (h *Overrides) deleteModel(c echo.Context, id, locale string, row domain.Override) (overridepage.Confirm, error) {
	m := h.confirm(id, row, "delete")
	m.Heading = fmt.Sprintf("Delete override %s (%s)", id, row.Locale)
	m.Button, m.Danger = fmt.Sprintf("Delete revision %d", row.Revision), true
	m.Summary = "Deleting returns the module to its builtin text for this locale (a user module's locale disappears). The history keeps every revision."
	eff, err := h.Service.Effect(consoleContext(c), state.Change{ID: id, Locale: locale, Remove: true})
	if err != nil {
		return m, err
	}
	effectModel(&m, eff, true)
	if row.Draft {
		m.Summary += fmt.Sprintf(" The pending draft, revision %d, goes too.", row.Revision)
		d := &overridepage.Dropped{Title: "The pending draft, which goes too, against what serves now (" + orNone(eff.Before.From) + ")"}
		d.Lines, d.Plus, d.Minus = diffLines(eff.Before.Text, row.Text)
		m.Dropped = d
	}
	return m, nil
}

// confirm is the part of every override confirmation that comes from the
// head row: its revision is what the form posts.
func (h *Overrides) confirm(id string, row domain.Override, verb string) overridepage.Confirm {
	return overridepage.Confirm{
		ID: id, Locale: row.Locale, Verb: verb,
		Head:    headLine(row),
		PostURL: overrideURL(id, row.Locale) + "/" + verb,
		Fields:  []overridepage.Field{{Name: "revision", Value: strconv.Itoa(row.Revision)}},
		BackURL: "/modules/" + id,
		Note:    noteField(),
	}
}

// orNone is a served text's source, or "nothing" when none serves.
func orNone(from string) string {
	if from == "" {
		return "nothing"
	}
	return from
}

// ConfirmTakeBuiltin renders GET /drift/:id/:locale/take-builtin: the
// served override → the builtin now, the impact on the saved scenarios,
// and the form that takes the builtin (POST /drift/:id/:locale with the
// revision and builtin the page showed). Without a drift, or with a
// draft pending, the page says why there is nothing to confirm. Errors:
// ErrNotFound when there is no override, ErrInvalid for a user module.
func (h *DriftReview) ConfirmTakeBuiltin(c echo.Context) error {
	id, locale, redirected, err := routeTarget(c, takeBuiltinURL)
	if err != nil || redirected {
		return err
	}
	r, err := h.load(c, id, locale)
	if err != nil {
		return err
	}
	rm := r.model
	m := driftConfirm(r, driftreviewpage.ActionTakeBuiltin)
	m.Heading = fmt.Sprintf("Take the builtin for %s (%s)", id, rm.Locale)
	m.Summary = fmt.Sprintf("Taking the builtin removes the override: builtin v%d serves for %s again. The history keeps every revision.", rm.BuiltinVersion, rm.Locale)
	m.Button, m.Danger = "Take builtin", true
	if rm.BuiltinRemoved {
		m.Heading = fmt.Sprintf("Remove the override of %s (%s)", id, rm.Locale)
		m.Summary, m.Button = "The builtin left the library: removing the override leaves the module without text in this locale. The history keeps every revision.", "Remove the override"
	}
	eff, err := h.Service.Effect(consoleContext(c), state.Change{ID: id, Locale: locale, Remove: true})
	if err != nil {
		return err
	}
	effectModel(&m, eff, true)
	reviewNote(h.Service.ReviewOn(), &m)
	return Render(c, http.StatusOK, overridepage.ConfirmPage(m))
}

// ConfirmKeepMine renders GET /drift/:id/:locale/keep-mine: the served
// text stays, based on the builtin now, with the form that keeps it
// (POST /drift/:id/:locale with the revision and builtin the page
// showed). Without a drift, or with a draft pending, the page says why
// there is nothing to confirm. Errors as ConfirmTakeBuiltin.
func (h *DriftReview) ConfirmKeepMine(c echo.Context) error {
	id, locale, redirected, err := routeTarget(c, func(id, locale string) string { return reviewURL(id, locale) + "/keep-mine" })
	if err != nil || redirected {
		return err
	}
	r, err := h.load(c, id, locale)
	if err != nil {
		return err
	}
	rm := r.model
	served := h.Service.ServedText(id, locale)
	m := driftConfirm(r, driftreviewpage.ActionKeepMine)
	m.Heading = fmt.Sprintf("Keep the override of %s (%s)", id, rm.Locale)
	m.Summary = fmt.Sprintf("Keeping it keeps the served text and records builtin v%d as its base, which ends the drift. The history keeps every revision.", rm.BuiltinVersion)
	m.Button = "Keep mine"
	m.Same, m.BeforeFrom, m.AfterFrom = true, served.From, served.From
	if rm.BuiltinRemoved {
		m.Summary = "The builtin left the library: the override keeps its text and serves as a user module, based on no builtin. The history keeps every revision."
		m.Button = "Keep as a user module"
	}
	reviewNote(h.Service.ReviewOn(), &m)
	return Render(c, http.StatusOK, overridepage.ConfirmPage(m))
}

// driftConfirm is what the confirmations of a drift review's action have
// in common: the form posting action with the revision and builtin the
// page showed, back to the review, and why there is nothing to confirm
// while a draft is pending or without a drift.
func driftConfirm(r *review, action string) overridepage.Confirm {
	rm := r.model
	m := overridepage.Confirm{
		ID: rm.ID, Locale: rm.Locale, Verb: action, Drift: true,
		Head:    headLine(r.row),
		PostURL: rm.Action,
		Fields: []overridepage.Field{{Name: "action", Value: action},
			{Name: "base", Value: strconv.Itoa(rm.Revision)}, {Name: "builtin", Value: rm.BuiltinHash}},
		BackURL: rm.Action,
		Note:    noteField(),
	}
	switch {
	case rm.Pending > 0:
		m.Blocked = fmt.Sprintf("A draft (revision %d) is pending on this override: publish or discard it first, then review the drift.", rm.Pending)
	case !rm.Drifted:
		m.Blocked = "The override is based on the builtin as it is now: there is no drift to review."
	}
	return m
}

// reviewNote tells, on a confirmation, that with change review on the
// button asks for the change rather than making it.
func reviewNote(on bool, m *overridepage.Confirm) {
	if !on || m.Blocked != "" {
		return
	}
	m.Summary += " Change review is on: confirming makes a change request, and the change serves once another editor or an admin approves it."
	m.Button = "Request review: " + strings.ToLower(m.Button[:1]) + m.Button[1:]
}

// takeBuiltinURL is the take-builtin confirmation of id's override in
// locale.
func takeBuiltinURL(id, locale string) string {
	return reviewURL(id, locale) + "/take-builtin"
}

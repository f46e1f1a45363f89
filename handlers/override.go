package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/modulepage"
	"github.com/promptdesk/promptdesk/views/overridepage"
)

// OverrideService is what the override pages and the override API need
// of the one write path of overrides (*state.Overrides): the head and
// history as stored, the checks of a text, the writes, and what a change
// would do to the saved scenarios.
type OverrideService interface {
	Head(ctx context.Context, id, locale string) (domain.Override, error)
	Revisions(ctx context.Context, id, locale string) ([]domain.Revision, error)
	Check(id, locale, text string) state.Outcome
	Save(ctx context.Context, e state.Edit) (state.Outcome, error)
	Publish(ctx context.Context, id, locale string, revision int) (domain.Override, error)
	Discard(ctx context.Context, id, locale string, revision int) (saved domain.Override, removed bool, err error)
	Delete(ctx context.Context, id, locale string, revision int) error
	Restore(ctx context.Context, id, locale string, revision, base int) (state.Outcome, error)
	ThreeWay(ctx context.Context, id, locale string, revision int, yours string, head domain.Override) (state.ThreeWay, error)
	Impact(ctx context.Context, id, locale, text string) ([]state.ScenarioImpact, error)
	Effect(ctx context.Context, c state.Change) (state.Effect, error)
	ServedText(id, locale string) state.ServedText
	BuiltinBase(v *state.View, id, locale string) (*library.Module, bool)
	ReviewOn() bool
	Request(ctx context.Context, r domain.ChangeRequest) (domain.ChangeRequest, error)
}

// Overrides serves the override editor, delete and user-module pages.
// Every write goes through the Service.
type Overrides struct {
	Service   OverrideService
	Served    *state.Served
	Assembler *assembler.Assembler
}

// consoleContext is the request's context, whose actor (domain.WithActor)
// is the logged-in user: LoadUser puts it there.
func consoleContext(c echo.Context) context.Context {
	return c.Request().Context()
}

// Pick handles GET /modules/:id/override?locale=L, the new-locale form of
// the module page, by redirecting to the editor of that locale.
func (h *Overrides) Pick(c echo.Context) error {
	id := c.Param("id")
	if !h.Served.Current().Exists(id) {
		return fmt.Errorf("module %q does not exist: %w", id, library.ErrNotFound)
	}
	locale, err := library.CanonicalLocale(c.QueryParam("locale"))
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, overrideURL(id, locale))
}

// target reads and checks the :id and :locale of an editor route. A
// non-canonical locale spelling is answered with a redirect (redirect is
// true and the response is written).
func (h *Overrides) target(c echo.Context) (v *state.View, id, locale string, redirect bool, err error) {
	v = h.Served.Current()
	id = c.Param("id")
	if !v.Exists(id) {
		return nil, "", "", false, fmt.Errorf("module %q does not exist: %w", id, library.ErrNotFound)
	}
	locale, err = library.CanonicalLocale(c.Param("locale"))
	if err != nil {
		return nil, "", "", false, err
	}
	if locale != c.Param("locale") && c.Request().Method == http.MethodGet {
		suffix := strings.TrimPrefix(c.Request().URL.Path, overrideURL(id, c.Param("locale")))
		return nil, "", "", true, c.Redirect(http.StatusMovedPermanently, overrideURL(id, locale)+suffix)
	}
	return v, id, locale, false, nil
}

// Edit renders GET /modules/:id/override/:locale: the existing override
// text with its revision, or else the builtin text of the locale, of the
// fallback locale, or of any locale. Errors: ErrNotFound for an unknown
// id, ErrInvalid for a malformed locale.
func (h *Overrides) Edit(c echo.Context) error {
	v, id, locale, redirected, err := h.target(c)
	if err != nil || redirected {
		return err
	}
	e := h.editor(v, id, locale)
	row, err := h.Service.Head(c.Request().Context(), id, locale)
	switch {
	case err == nil:
		e.Text, e.Revision = row.Text, row.Revision
		e.Prefill = fmt.Sprintf("Editing the override: revision %d by %s, %s.", row.Revision, row.Author, row.UpdatedAt.UTC().Format(timeLayout))
		if row.Draft {
			e.Prefill = fmt.Sprintf("Editing the override's draft: revision %d by %s, %s, not published yet.", row.Revision, row.Author, row.UpdatedAt.UTC().Format(timeLayout))
		}
	case errors.Is(err, library.ErrNotFound):
		e.Text, e.Prefill = h.prefill(v, id, locale)
	default:
		return err
	}
	if d := v.Drift(id, locale); d.Drifted() {
		e.Prefill += fmt.Sprintf(" This override is drifted (%s, based on v%d): saving keeps that base, so it stays on the drift list until the drift is reviewed.", d.Describe(), d.BasedOnVersion)
	}
	e.Flash = flashFor(c)
	if out := h.Service.Check(id, locale, e.Text); out.Kind != state.OutcomeInvalid {
		checklist(&e, out)
	}
	return h.editorPage(c, http.StatusOK, e)
}

// editor returns the editor model of id in locale without text.
func (h *Overrides) editor(v *state.View, id, locale string) overridepage.Editor {
	e := overridepage.Editor{ID: id, Locale: locale, Action: overrideURL(id, locale), BackURL: "/modules/" + id, ImpactURL: impactURL(id, locale),
		Note: noteField()}
	if b, ok := v.BuiltinBase(h.Assembler.FallbackLocale(), id, locale); ok {
		e.Builtin = b.Text
		e.BuiltinSource = fmt.Sprintf("Builtin text (%s, version %d)", b.Locale, b.Version)
	}
	return e
}

// prefill returns the text a new override starts from and says where it
// came from.
func (h *Overrides) prefill(v *state.View, id, locale string) (text, note string) {
	if b, ok := v.BuiltinBase(h.Assembler.FallbackLocale(), id, locale); ok {
		if library.LocaleKey(b.Locale) == library.LocaleKey(locale) {
			return b.Text, fmt.Sprintf("New override, prefilled from the builtin %s text (version %d).", b.Locale, b.Version)
		}
		return b.Text, fmt.Sprintf("There is no builtin %s text: prefilled from the builtin %s text (version %d). Translate it before saving.", locale, b.Locale, b.Version)
	}
	// A user module in a new locale starts from one of its other locales.
	if s, ok := h.Assembler.Resolve(v.Library, v.State, id, locale); ok {
		return s.Module.Text, fmt.Sprintf("New locale of a user module, prefilled from its %s text.", s.Locale)
	}
	if ms := v.Modules(id); len(ms) > 0 {
		return ms[0].Text, fmt.Sprintf("New locale of a user module, prefilled from its %s text.", ms[0].Locale)
	}
	return "", ""
}

// Save handles POST /modules/:id/override/:locale: the text must
// parse, keep the id and layer, and use only known placeholders; a text
// equal to the builtin stores nothing; a stale revision is a conflict
// that shows both texts. Responds 422 with the errors under their lines,
// 409 on conflict, else redirects to the module page, or back to the
// editor when the module checklist has warnings, which it shows.
// With the form field check set (the Check button) nothing is stored:
// the page shows the errors or the checklist warnings of the text.
func (h *Overrides) Save(c echo.Context) error {
	v, id, locale, _, err := h.target(c)
	if err != nil {
		return err
	}
	e := h.editor(v, id, locale)
	e.Text, e.Merged = c.FormValue("text"), c.FormValue("merged") != ""
	e.Revision, err = formRevision(c, "revision")
	if err != nil || e.Revision < 0 {
		e.Errors = []string{"the form's revision field is not a revision number; reload the editor"}
		return h.editorPage(c, http.StatusUnprocessableEntity, e)
	}
	return h.save(c, v, e)
}

// save is the part of Save and Create after binding: the Service checks
// and stores; the outcome becomes a page or a redirect.
func (h *Overrides) save(c echo.Context, v *state.View, e overridepage.Editor) error {
	if c.FormValue("check") != "" {
		out := h.Service.Check(e.ID, e.Locale, e.Text)
		if out.Kind == state.OutcomeInvalid {
			e.Lines, e.Errors = components.NumberLines(e.Text, checkLines(out))
			return h.editorPage(c, http.StatusUnprocessableEntity, e)
		}
		checklist(&e, out)
		e.Notice = "Checked, nothing was saved: no errors, and the text follows the module checklist."
		if e.Warnings > 0 {
			e.Notice = fmt.Sprintf("Checked, nothing was saved: no errors; the module checklist has %d warning(s), shown under their lines.", e.Warnings)
		}
		return h.editorPage(c, http.StatusOK, e)
	}
	e.Note = noteField()
	e.Note.Value = c.FormValue("note")
	ctx, err := noteContext(c)
	if err != nil {
		e.Note.Error = problemMessage(err)
		return h.editorPage(c, http.StatusUnprocessableEntity, e)
	}
	out, err := h.Service.Save(ctx, state.Edit{ID: e.ID, Locale: e.Locale, Text: e.Text, Revision: e.Revision})
	if err != nil {
		return err
	}
	switch out.Kind {
	case state.OutcomeInvalid:
		e.Lines, e.Errors = components.NumberLines(e.Text, checkLines(out))
		return h.editorPage(c, http.StatusUnprocessableEntity, e)
	case state.OutcomeEqualsBuiltin:
		e.Notice = fmt.Sprintf("Your text equals the builtin %s text (version %d): nothing was stored.", out.Builtin.Locale, out.Builtin.Version)
		if out.Head != nil {
			e.Notice += " The existing override is unchanged; delete it to return to the builtin."
		}
		return h.editorPage(c, http.StatusOK, e)
	case state.OutcomeUnchanged:
		// Sent again (the back button after a save): nothing to store,
		// and the editor is now based on the head.
		head := out.Head
		e.Revision, e.Merged = head.Revision, false
		e.Notice = fmt.Sprintf("Nothing changed, nothing was saved: your text is revision %d already (by %s, %s)", head.Revision, head.Author, head.UpdatedAt.UTC().Format(timeLayout))
		if head.Draft {
			e.Notice += ", a draft not published yet."
		} else {
			e.Notice += ", published."
		}
		return h.editorPage(c, http.StatusOK, e)
	case state.OutcomeConflict:
		return h.conflict(c, e, out.Head)
	}
	saved := out.Saved
	if len(out.Warnings) > 0 {
		// Back to the editor, which shows the warnings under their lines.
		setFlash(c, fmt.Sprintf("Override of %s (%s): draft saved, not served yet: revision %d. The module checklist has %d warning(s), shown below; they do not block publishing, on the module page.", saved.ModuleID, saved.Locale, saved.Revision, len(out.Warnings)))
		return seeOther(c, overrideURL(saved.ModuleID, saved.Locale))
	}
	setFlash(c, fmt.Sprintf("Override of %s (%s): draft saved, not served yet: revision %d. Publish it on this page to serve it.", saved.ModuleID, saved.Locale, saved.Revision))
	return seeOther(c, localeURL(saved.ModuleID, saved.Locale))
}

// editorErrors are a save's errors as the editor shows them.
func editorErrors(errs []state.LineError) []components.LineError {
	out := make([]components.LineError, len(errs))
	for i, le := range errs {
		out[i] = components.LineError{Line: le.Line, Msg: le.Msg}
	}
	return out
}

// checklist puts each checklist warning of out (the Check of e.Text)
// under its line; warnings that name no line and notices (a locale
// without lint cue words) go above the text.
func checklist(e *overridepage.Editor, out state.Outcome) {
	var warns []components.LineError
	for _, f := range out.Warnings {
		msg := "[" + f.RuleLabel() + "] " + f.Message
		if f.Line > 0 {
			warns = append(warns, components.LineError{Line: f.Line, Msg: msg, Warning: true})
			continue
		}
		e.Checklist = append(e.Checklist, msg)
	}
	for _, f := range out.Notices {
		e.Checklist = append(e.Checklist, "["+f.RuleLabel()+"] "+f.Message)
	}
	e.Warnings = len(warns)
	if len(warns) > 0 {
		e.Lines, _ = components.NumberLines(e.Text, warns)
	}
}

// Publish handles POST /modules/:id/override/:locale/publish with the
// draft's revision: it becomes the served text. A draft that
// does not parse is refused (422); a head that moved past the revision,
// or is gone, answers 409 with the module page as it is now.
func (h *Overrides) Publish(c echo.Context) error {
	return h.draftAction(c, "publish")
}

// Discard handles POST /modules/:id/override/:locale/discard with the
// draft's revision: the published text serves on as a new
// revision, or the override is removed when nothing was ever published.
// Stale or gone answers 409 like Publish.
func (h *Overrides) Discard(c echo.Context) error {
	return h.draftAction(c, "discard")
}

func (h *Overrides) draftAction(c echo.Context, action string) error {
	_, id, locale, _, err := h.target(c)
	if err != nil {
		return err
	}
	rev, err := formRevision(c, "revision")
	if err != nil {
		return err
	}
	if rev <= 0 {
		return fmt.Errorf("the form does not say which draft revision to %s; reload the module page: %w", action, library.ErrInvalid)
	}
	ctx, err := noteContext(c)
	if err != nil {
		return err
	}
	var flash string
	switch {
	case action == "publish" && h.Service.ReviewOn():
		var r domain.ChangeRequest
		if r, err = h.Service.Request(ctx, domain.ChangeRequest{Action: domain.ActionPublish, ModuleID: id, Locale: locale, Revision: rev}); err == nil {
			return requested(c, r)
		}
	case action == "publish":
		var saved domain.Override
		if saved, err = h.Service.Publish(ctx, id, locale, rev); err == nil {
			flash = fmt.Sprintf("Override of %s (%s) published: revision %d is served.", id, saved.Locale, saved.Revision)
		}
	default:
		var saved domain.Override
		var removed bool
		saved, removed, err = h.Service.Discard(ctx, id, locale, rev)
		var none *state.NoDraft
		switch {
		case errors.As(err, &none):
			setFlash(c, fmt.Sprintf("Nothing changed: %s (%s) has no draft to discard; revision %d is published and serves.", id, none.Head.Locale, none.Head.Revision))
			return seeOther(c, "/modules/"+id)
		case err != nil:
		case removed:
			flash = fmt.Sprintf("Draft of %s (%s) discarded: nothing was ever published, so the override is removed.", id, locale)
		default:
			flash = fmt.Sprintf("Draft of %s (%s) discarded: the published text serves on, as revision %d.", id, saved.Locale, saved.Revision)
		}
	}
	if errors.Is(err, library.ErrConflict) || errors.Is(err, library.ErrNotFound) {
		// Stale: show the module as it is now.
		v := h.Served.Current()
		if !v.Exists(id) {
			return fmt.Errorf("module %q does not exist: %w", id, library.ErrNotFound)
		}
		m := moduleModel(h.Assembler, v, id)
		m.Alert = fmt.Sprintf("Nothing was done (%s): %v. The page below shows the override as it is now.", action, err)
		return Render(c, http.StatusConflict, modulepage.Page(m))
	}
	if err != nil {
		return err
	}
	setFlash(c, flash)
	if !h.Served.Current().Exists(id) {
		return seeOther(c, "/")
	}
	return seeOther(c, localeURL(id, locale))
}

// conflict renders the 409 page of a stale save: the revision the edit
// started from, the user's text and the head (nil when the override is
// gone), the diffs of both edits from the first, and the editor holding
// the merge of both, based on the head. A gone override keeps the user's
// text in the editor, to create it again.
func (h *Overrides) conflict(c echo.Context, e overridepage.Editor, head *domain.Override) error {
	if head == nil {
		e.Conflict = &overridepage.Conflict{Deleted: true, Yours: e.Text}
		e.Revision, e.Merged = 0, false
		return h.editorPage(c, http.StatusConflict, e)
	}
	t, err := h.Service.ThreeWay(consoleContext(c), e.ID, e.Locale, e.Revision, e.Text, *head)
	if err != nil {
		return err
	}
	k := &overridepage.Conflict{Revision: head.Revision, Author: head.Author, Updated: head.UpdatedAt.UTC().Format(timeLayout),
		Text: head.Text, Yours: e.Text, Common: t.Common, CommonFrom: t.CommonFrom}
	k.YourDiff.Lines, k.YourDiff.Plus, k.YourDiff.Minus = diffLines(t.Common, e.Text)
	k.TheirDiff.Lines, k.TheirDiff.Plus, k.TheirDiff.Minus = diffLines(t.Common, head.Text)
	for i, m := range t.Merged.Conflicts {
		k.Conflicts = append(k.Conflicts, overridepage.MergeConflict{N: i + 1, Line: m.Line, Yours: m.Override, Theirs: m.Builtin})
	}
	e.Conflict, e.Text, e.Revision, e.Merged = k, t.Merged.Text, head.Revision, true
	e.Lines, e.Errors, e.Warnings, e.Checklist = nil, nil, 0, nil
	return h.editorPage(c, http.StatusConflict, e)
}

// Delete handles POST /modules/:id/override/:locale/delete with the
// confirmed revision. A newer revision is a conflict (409) showing the
// current text for a new confirmation; an override deleted before (the
// form posted again) goes back to the module, or the library for a user
// module, saying so. Errors: ErrNotFound when there is no override.
func (h *Overrides) Delete(c echo.Context) error {
	// No h.target: a user module whose last override went is no module
	// any more, and deleting it again says so below.
	id := c.Param("id")
	locale, err := library.CanonicalLocale(c.Param("locale"))
	if err != nil {
		return err
	}
	rev, err := formRevision(c, "revision")
	if err != nil {
		return err
	}
	ctx, err := noteContext(c)
	if err != nil {
		return err
	}
	if h.Service.ReviewOn() {
		var r domain.ChangeRequest
		if r, err = h.Service.Request(ctx, domain.ChangeRequest{Action: domain.ActionDelete, ModuleID: id, Locale: locale, Revision: rev}); err == nil {
			return requested(c, r)
		}
	} else {
		err = h.Service.Delete(ctx, id, locale, rev)
	}
	back := "/modules/" + id
	if !h.Served.Current().Exists(id) {
		back = "/"
	}
	if again, err := goneAgain(c, err, back); again {
		return err
	}
	if errors.Is(err, library.ErrConflict) {
		row, err := h.Service.Head(ctx, id, locale)
		if err != nil {
			return err
		}
		m, err := h.deleteModel(c, id, locale, row)
		if err != nil {
			return err
		}
		m.Alert = "The override changed since you asked to delete it; nothing was deleted. Review what deleting does now and confirm again."
		return Render(c, http.StatusConflict, overridepage.ConfirmPage(m))
	}
	if err != nil {
		return err
	}
	if !h.Served.Current().Exists(id) {
		setFlash(c, fmt.Sprintf("User module %s (%s) deleted.", id, locale))
		return seeOther(c, "/")
	}
	setFlash(c, fmt.Sprintf("Override of %s (%s) deleted: the builtin serves again.", id, locale))
	return seeOther(c, "/modules/"+id)
}

// userModuleTemplate prefills the new user-module form.
const userModuleTemplate = `---
id: task.example
layer: task
version: 1
title: Example skill
description: One line - what this module is for
priority: 10
triggers:
- kind: command
  command: /example
---
You are ... State who the model is, what it does, what it must not do, and
what to answer when information is missing.
`

// New renders GET /overrides/new, the form for a user module: an override
// whose id has no builtin.
func (h *Overrides) New(c echo.Context) error {
	e := overridepage.Editor{
		New:     true,
		Locale:  h.Assembler.FallbackLocale(),
		Action:  "/overrides/new",
		Text:    userModuleTemplate,
		Prefill: "The id in the text must equal the module id above; its layer is the part before the first dot.",
		BackURL: "/",
	}
	return h.editorPage(c, http.StatusOK, e)
}

// Create handles POST /overrides/new: a user module id must be well formed
// and not a builtin's; the text is checked like any override. Responds 422
// with field or line errors, 409 when that id and locale exist.
func (h *Overrides) Create(c echo.Context) error {
	v := h.Served.Current()
	e := overridepage.Editor{
		New:         true,
		ID:          strings.TrimSpace(c.FormValue("id")),
		Locale:      strings.TrimSpace(c.FormValue("locale")),
		Action:      "/overrides/new",
		Text:        c.FormValue("text"),
		BackURL:     "/",
		FieldErrors: map[string]string{},
	}
	switch problem := library.IDProblem(e.ID); {
	case problem != "":
		e.FieldErrors["id"] = problem
	case v.Library.Has(e.ID):
		e.FieldErrors["id"] = fmt.Sprintf("%s is a builtin module: override it from its page instead", e.ID)
	}
	if loc, err := library.CanonicalLocale(e.Locale); err != nil {
		e.FieldErrors["locale"] = "a locale is a BCP 47 tag such as en-US or zh-CN"
	} else {
		e.Locale = loc
	}
	if len(e.FieldErrors) > 0 {
		return h.editorPage(c, http.StatusUnprocessableEntity, e)
	}
	if _, exists := v.Head(e.ID, e.Locale); exists {
		e.FieldErrors["id"] = fmt.Sprintf("a user module %s (%s) exists already: edit it from its page", e.ID, e.Locale)
		return h.editorPage(c, http.StatusConflict, e)
	}
	return h.save(c, v, e)
}

package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/diffview"
	"github.com/promptdesk/promptdesk/views/historypage"
)

// HistoryService is what the history page needs of the override write
// path (*state.Overrides): the revisions, and restoring one.
type HistoryService interface {
	Revisions(ctx context.Context, id, locale string) ([]domain.Revision, error)
	Restore(ctx context.Context, id, locale string, revision, base int) (state.Outcome, error)
}

// History serves the revision history of an override and restores old
// revisions through the Service.
type History struct {
	Service HistoryService
	Served  *state.Served
}

// diffContext is how many unchanged lines a diff keeps around a change.
const diffContext = 3

// routeTarget reads the :id and :locale of a history or review route. A
// GET with a non-canonical locale spelling is redirected to canonical(id,
// locale) (redirect is true and the response is written). Errors:
// ErrInvalid for a malformed locale.
func routeTarget(c echo.Context, canonical func(id, locale string) string) (id, locale string, redirect bool, err error) {
	id = c.Param("id")
	locale, err = library.CanonicalLocale(c.Param("locale"))
	if err != nil {
		return "", "", false, err
	}
	if locale != c.Param("locale") && c.Request().Method == http.MethodGet {
		return "", "", true, c.Redirect(http.StatusMovedPermanently, canonical(id, locale))
	}
	return id, locale, false, nil
}

// historyURL is the history page of id's override in locale.
func historyURL(id, locale string) string {
	return overrideURL(id, locale) + "/history"
}

// Show renders GET /modules/:id/override/:locale/history: every revision,
// newest first, each with its diff against the revision before (the
// first against the builtin it was based on), and a restore button per
// revision with text. Errors: ErrNotFound for a module that does not
// exist and never had an override in that locale.
func (h *History) Show(c echo.Context) error {
	v := h.Served.Current()
	id, locale, redirected, err := routeTarget(c, historyURL)
	if err != nil || redirected {
		return err
	}
	revs, err := h.Service.Revisions(c.Request().Context(), id, locale)
	if err != nil {
		return err
	}
	if len(revs) == 0 && !v.Exists(id) {
		return fmt.Errorf("module %q does not exist: %w", id, library.ErrNotFound)
	}
	m := historyModel(id, locale, revs)
	m.Flash = flashFor(c)
	return Render(c, http.StatusOK, historypage.Page(m))
}

// historyModel turns revisions (newest first) into the page model.
func historyModel(id, locale string, revs []domain.Revision) historypage.Model {
	m := historypage.Model{
		ID:         id,
		Locale:     locale,
		ModuleURL:  "/modules/" + id,
		EditorURL:  overrideURL(id, locale),
		RestoreURL: overrideURL(id, locale) + "/restore",
	}
	if len(revs) > 0 {
		m.Locale = revs[0].Locale
		m.Head = revs[0].Revision
		m.Removed = removal(revs[0])
	}
	for i, r := range revs {
		e := historypage.Revision{
			Revision:       r.Revision,
			Action:         r.Action,
			Author:         r.Author,
			Time:           r.CreatedAt.UTC().Format(timeLayout),
			Version:        r.Version,
			BasedOnVersion: r.BasedOnVersion,
			Head:           i == 0,
			Removal:        removal(r),
			Note:           r.Note,
		}
		if r.Serving && !e.Removal {
			e.Serving = true
			if r.Published.By != "" {
				e.PublishedBy, e.PublishedAt, e.PublishNote = r.Published.By, r.Published.At.UTC().Format(timeLayout), r.Published.Note
			}
		}
		e.Restorable = !e.Head && !e.Removal
		if !e.Removal {
			// Compare with the nearest older revision that has a text;
			// the first with the builtin it was copied from.
			prev, against := r.BaseSnapshot, fmt.Sprintf("the builtin v%d it was based on", r.BasedOnVersion)
			if r.BasedOnVersion == 0 {
				prev, against = "", "an empty text (a new user module)"
			}
			for _, older := range revs[i+1:] {
				if !removal(older) {
					prev, against = older.Text, fmt.Sprintf("revision %d", older.Revision)
					break
				}
			}
			e.Against = against
			e.Diff, e.Plus, e.Minus = diffLines(prev, r.Text)
		}
		m.Revisions = append(m.Revisions, e)
	}
	return m
}

// removal reports whether a revision action removed the override.
func removal(r domain.Revision) bool {
	return domain.Removal(r.Action, r.Text)
}

// diffLines is the folded line diff old → new for diffview, with the
// number of inserted and deleted lines.
func diffLines(old, new string) (lines []diffview.Line, plus, minus int) {
	return foldedDiff(linediff.Diff(old, new))
}

// Restore handles POST /modules/:id/override/:locale/restore with the
// revision to restore and base, the newest revision the page showed: the
// old text becomes a new revision (action restore) if it still passes the
// editor's checks, and the browser goes to the module page. A stale base
// answers 409 and an invalid text 422, both with the history as it is
// now and nothing restored. Errors: ErrNotFound for an unknown revision.
func (h *History) Restore(c echo.Context) error {
	id, locale, _, err := routeTarget(c, historyURL)
	if err != nil {
		return err
	}
	rev, err := formRevision(c, "revision")
	if err != nil {
		return err
	}
	base, err := formRevision(c, "base")
	if err != nil {
		return err
	}
	ctx, err := noteContext(c)
	if err != nil {
		return err
	}
	refuse := func(status int, alert string, errs []string) error {
		revs, err := h.Service.Revisions(ctx, id, locale)
		if err != nil {
			return err
		}
		m := historyModel(id, locale, revs)
		m.Alert, m.Errors = alert, errs
		return Render(c, status, historypage.Page(m))
	}
	out, err := h.Service.Restore(ctx, id, locale, rev, base)
	switch {
	case errors.Is(err, library.ErrInvalid):
		return refuse(http.StatusUnprocessableEntity, fmt.Sprintf("Revision %d removed the override: it has no text to restore.", rev), nil)
	case err != nil:
		return err
	}
	switch out.Kind {
	case state.OutcomeConflict:
		now := "removed"
		if out.Head != nil {
			now = fmt.Sprintf("at revision %d by %s", out.Head.Revision, out.Head.Author)
		}
		return refuse(http.StatusConflict, fmt.Sprintf("The override changed since you loaded this page: it is now %s. Nothing was restored; check the history below and restore again.", now), nil)
	case state.OutcomeUnchanged:
		return refuse(http.StatusOK, fmt.Sprintf("Nothing changed: the newest revision, %d, holds revision %d's text and base already; nothing was restored.", out.Head.Revision, rev), nil)
	case state.OutcomeEqualsBuiltin:
		return refuse(http.StatusOK, fmt.Sprintf("Revision %d equals the builtin %s text (version %d) now: nothing was restored. Delete the override to return to the builtin.", rev, out.Builtin.Locale, out.Builtin.Version), nil)
	case state.OutcomeInvalid:
		var msgs []string
		for _, e := range out.Errors {
			if e.Line > 0 {
				msgs = append(msgs, fmt.Sprintf("line %d: %s", e.Line, e.Msg))
			} else {
				msgs = append(msgs, e.Msg)
			}
		}
		return refuse(http.StatusUnprocessableEntity, fmt.Sprintf("Revision %d no longer passes the editor's checks, so it was not restored; copy what you need into the editor instead:", rev), msgs)
	}
	saved := out.Saved
	setFlash(c, fmt.Sprintf("Revision %d of %s (%s) restored as revision %d, a draft: publish it on this page to serve it.", rev, id, saved.Locale, saved.Revision))
	return seeOther(c, localeURL(id, saved.Locale))
}

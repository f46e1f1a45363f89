package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// APIRevision is one revision of an override, as its history lists it:
// the number, the action that made it (create, save, restore, rebase,
// keep-mine, import, discard, delete, take-builtin), who made it (a user
// name, or "token:<name>" for an API token) and when; Published is true
// for the revision served now.
type APIRevision struct {
	Revision  int       `json:"revision"`
	Action    string    `json:"action"`
	Author    string    `json:"author"`
	At        time.Time `json:"at"`
	Published bool      `json:"published"`
	// Note is why the revision was made, "" when no note was given.
	Note string `json:"note"`
	// Publication is who published the served revision, when and with
	// which note; nil for the others and when unknown.
	Publication *APIPublication `json:"publication,omitempty"`
}

// APIPublication is who made a revision serve, when, and the note given
// ("" for none).
type APIPublication struct {
	By   string    `json:"by"`
	At   time.Time `json:"at"`
	Note string    `json:"note"`
}

// APIRevisions is GET /api/v1/overrides/{id}/revisions: the module id and
// the override's stored locale, its head revision (the If-Match of the
// next change), the served revision (0: none, or deleted) and every revision, newest
// first.
type APIRevisions struct {
	ID                string        `json:"id"`
	Locale            string        `json:"locale"`
	Revision          int           `json:"revision"`
	PublishedRevision int           `json:"publishedRevision"`
	Revisions         []APIRevision `json:"revisions"`
}

// APIRevisionText is GET /api/v1/overrides/{id}/revisions/{n}: one
// revision with the whole module file it held ("" for a revision that
// removed the override) and the builtin version it was based on (0 for a
// user module).
type APIRevisionText struct {
	Revision       int       `json:"revision"`
	Action         string    `json:"action"`
	Author         string    `json:"author"`
	At             time.Time `json:"at"`
	Published      bool      `json:"published"`
	Text           string    `json:"text"`
	BasedOnVersion int       `json:"basedOnVersion"`
	// Note and Publication as in APIRevision.
	Note        string          `json:"note"`
	Publication *APIPublication `json:"publication,omitempty"`
}

// history reads the revisions of the target, newest first (none when
// there never was an override), with the head's published revision and
// the override's stored locale; an unknown module is a 404.
func (h *APIOverrides) history(c echo.Context) (id, locale string, revs []domain.Revision, published int, err error) {
	v, id, locale, err := h.target(c)
	if err != nil {
		return "", "", nil, 0, err
	}
	ctx := c.Request().Context()
	if revs, err = h.Service.Revisions(ctx, id, locale); err != nil {
		return "", "", nil, 0, err
	}
	if len(revs) == 0 {
		if !v.Exists(id) {
			return "", "", nil, 0, apiNoOverride(v, id, locale)
		}
		return id, locale, revs, 0, nil
	}
	// A deleted override (not found) serves no revision.
	head, err := h.Service.Head(ctx, id, locale)
	switch {
	case err == nil:
		published = head.PublishedRevision
	case !errors.Is(err, library.ErrNotFound):
		return "", "", nil, 0, err
	}
	return id, revs[0].Locale, revs, published, nil
}

func apiRevision(r domain.Revision, published int) APIRevision {
	a := APIRevision{Revision: r.Revision, Action: r.Action, Author: r.Author, At: r.CreatedAt.UTC(), Published: r.Revision == published, Note: r.Note}
	if a.Published && r.Published.By != "" {
		a.Publication = &APIPublication{By: r.Published.By, At: r.Published.At.UTC(), Note: r.Published.Note}
	}
	return a
}

// Revisions handles GET /api/v1/overrides/{id}/revisions[?locale=L]:
// 200 with APIRevisions, the head's revision as the ETag (no revisions
// and revision 0 when there never was an override of id in L). Errors:
// 404 not_found for an unknown module; 422 invalid_request for a
// malformed locale.
func (h *APIOverrides) Revisions(c echo.Context) error {
	id, locale, revs, published, err := h.history(c)
	if err != nil {
		return err
	}
	out := APIRevisions{ID: id, Locale: locale, PublishedRevision: published, Revisions: make([]APIRevision, len(revs))}
	if len(revs) > 0 {
		out.Revision = revs[0].Revision
	}
	for i, r := range revs {
		out.Revisions[i] = apiRevision(r, published)
	}
	setETag(c, out.Revision)
	return WriteJSON(c, http.StatusOK, out)
}

// revisionParam reads the path parameter {n}: a revision number from 1,
// else a 422 invalid_request on field "n".
func revisionParam(c echo.Context) (int, error) {
	s := c.Param("n")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > domain.MaxRevision || strings.HasPrefix(s, "+") {
		return 0, &library.Error{Code: library.CodeInvalidRequest, Field: "n", Msg: fmt.Sprintf("%q is not a revision number (1, 2, …)", s)}
	}
	return n, nil
}

// Revision handles GET /api/v1/overrides/{id}/revisions/{n}[?locale=L]:
// 200 with APIRevisionText. Errors: 404 not_found for a revision the
// override does not have (field n) or an unknown module (field id); 422
// invalid_request for a malformed n or locale.
func (h *APIOverrides) Revision(c echo.Context) error {
	n, err := revisionParam(c)
	if err != nil {
		return err
	}
	id, locale, revs, published, err := h.history(c)
	if err != nil {
		return err
	}
	for _, r := range revs {
		if r.Revision == n {
			a := apiRevision(r, published)
			return WriteJSON(c, http.StatusOK, APIRevisionText{Revision: a.Revision, Action: a.Action, Author: a.Author, At: a.At,
				Published: a.Published, Text: r.Text, BasedOnVersion: r.BasedOnVersion, Note: a.Note, Publication: a.Publication})
		}
	}
	msg := fmt.Sprintf("%s has no revisions", state.OverrideFile(id, locale))
	if len(revs) > 0 {
		msg = fmt.Sprintf("%s has no revision %d (revisions 1 to %d)", state.OverrideFile(id, locale), n, revs[0].Revision)
	}
	return &library.Error{Code: library.CodeNotFound, Module: id, Field: "n", Msg: msg}
}

// Restore handles POST /api/v1/overrides/{id}/revisions/{n}/restore
// [?locale=L] with If-Match: the override's head revision. Like the
// console's history, the Service saves revision n's text and base as a
// new draft (action restore), checked like a PUT, not served until
// published. 200 with APIOverrideSaved (stored true, status draft, the new
// revision also as the ETag); stored false when n's text equals the
// builtin text now. Errors: 404 not_found for an unknown revision or no
// override; 412 precondition_failed when the head has moved past
// If-Match or it is weak; 428
// precondition_required without If-Match; 422 invalid_request for a
// revision that removed the override (field n), one whose text no longer
// passes the checks (field text), or a bad n, If-Match or locale.
func (h *APIOverrides) Restore(c echo.Context) error {
	n, err := revisionParam(c)
	if err != nil {
		return err
	}
	v, id, locale, base, err := h.revisionTarget(c, "restore onto")
	if err != nil {
		return err
	}
	ctx, err := apiNoteContext(c)
	if err != nil {
		return err
	}
	out, err := h.Service.Restore(ctx, id, locale, n, base)
	switch {
	case errors.Is(err, library.ErrNotFound):
		if _, gerr := h.Service.Head(c.Request().Context(), id, locale); errors.Is(gerr, library.ErrNotFound) {
			return apiNoOverride(v, id, locale)
		}
		return &library.Error{Code: library.CodeNotFound, Module: id, Field: "n", Msg: fmt.Sprintf("%s has no revision %d", state.OverrideFile(id, locale), n)}
	case errors.Is(err, library.ErrInvalid):
		return &library.Error{Code: library.CodeInvalidRequest, Module: id, Field: "n", Msg: err.Error()}
	case err != nil:
		return err
	}
	switch out.Kind {
	case state.OutcomeInvalid:
		return invalidText(id, out.Errors)
	case state.OutcomeConflict:
		return h.preconditionFailed(c, id, locale, errors.New(out.Reason))
	case state.OutcomeEqualsBuiltin:
		res := APIOverrideSaved{Text: out.Module.Text, Status: OverrideStatusBuiltin, Warnings: out.Warnings, Notices: out.Notices,
			Message: fmt.Sprintf("revision %d equals the builtin %s text (version %d) now: nothing was restored; DELETE the override to return to the builtin", n, out.Builtin.Locale, out.Builtin.Version)}
		if head, err := h.Service.Head(c.Request().Context(), id, locale); err == nil {
			res.Revision, res.Status = head.Revision, headStatus(head)
		}
		setETag(c, res.Revision)
		return WriteJSON(c, http.StatusOK, res)
	case state.OutcomeUnchanged:
		h := out.Head
		setETag(c, h.Revision)
		return WriteJSON(c, http.StatusOK, APIOverrideSaved{Text: h.Text, Revision: h.Revision, Status: headStatus(*h), Warnings: out.Warnings, Notices: out.Notices,
			Message: fmt.Sprintf("nothing changed: the head, revision %d, holds revision %d's text and base already; nothing was stored", h.Revision, n)})
	}
	saved := out.Saved
	setETag(c, saved.Revision)
	return WriteJSON(c, http.StatusOK, APIOverrideSaved{Stored: true, Text: saved.Text, Revision: saved.Revision, Status: headStatus(saved),
		Warnings: out.Warnings, Notices: out.Notices,
		Message: fmt.Sprintf("revision %d restored as draft revision %d: not served until published (POST …/publish with If-Match: %d)", n, saved.Revision, saved.Revision)})
}

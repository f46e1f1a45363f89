package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/overridepage"
)

// RequestService is what change review needs of the override write path
// (*state.Overrides): the change requests, their decisions, and what a
// requested change does to what is served.
type RequestService interface {
	Head(ctx context.Context, id, locale string) (domain.Override, error)
	GetRevision(ctx context.Context, id, locale string, n int) (domain.Revision, error)
	Approve(ctx context.Context, id int64, note string) (domain.ChangeRequest, error)
	Reject(ctx context.Context, id int64, reason string) (domain.ChangeRequest, error)
	ChangeRequests(ctx context.Context, status string) ([]domain.ChangeRequest, error)
	ChangeRequest(ctx context.Context, id int64) (domain.ChangeRequest, error)
	Effect(ctx context.Context, c state.Change) (state.Effect, error)
	ServedText(id, locale string) state.ServedText
}

// Requests serves the change requests of change review: the list of
// open ones, each request's page (the served diff, the impact and the
// author's note, with approve and reject), and the decisions.
type Requests struct {
	Service RequestService
}

// requestURL is the page of change request id.
func requestURL(id int64) string {
	return "/requests/" + strconv.FormatInt(id, 10)
}

// requested is the answer to a serving change made while review is on:
// the change request r was made; on to its page.
func requested(c echo.Context, r domain.ChangeRequest) error {
	setFlash(c, fmt.Sprintf("Change request #%d made: %s of %s (%s) serves once another editor or an admin approves it.", r.ID, r.Action, r.ModuleID, r.Locale))
	return seeOther(c, requestURL(r.ID))
}

// List renders GET /requests: the open change requests, oldest first
// to review, then the last decided ones.
func (h *Requests) List(c echo.Context) error {
	all, err := h.Service.ChangeRequests(c.Request().Context(), "")
	if err != nil {
		return err
	}
	m := overridepage.Requests{Flash: flashFor(c)}
	for _, r := range all {
		row := overridepage.RequestRow{ID: r.ID, URL: requestURL(r.ID), ModuleID: r.ModuleID, Locale: r.Locale, Action: r.Action,
			Revision: r.Revision, Author: r.Author, Note: r.Note, Status: r.Status, At: r.CreatedAt.UTC().Format(timeLayout)}
		if r.Status == domain.RequestOpen {
			m.Open = append([]overridepage.RequestRow{row}, m.Open...)
		} else if len(m.Decided) < 20 {
			row.Decision = decision(r)
			m.Decided = append(m.Decided, row)
		}
	}
	return Render(c, http.StatusOK, overridepage.RequestsPage(m))
}

// decision says who decided r, when and why.
func decision(r domain.ChangeRequest) string {
	s := fmt.Sprintf("%s by %s, %s", capitalized(r.Status), r.DecidedBy, r.DecidedAt.UTC().Format(timeLayout))
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

func capitalized(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// requestID reads the :id of a request route. Errors: ErrNotFound for
// one that is not a number.
func requestID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("change request %q does not exist: %w", c.Param("id"), library.ErrNotFound)
	}
	return id, nil
}

// Show renders GET /requests/:id: the confirmation page of the change
// asked for (served text now → after, the impact on the saved
// scenarios), the author's note, and the forms that approve (not for the
// author) and reject it while it is open. Errors: ErrNotFound.
func (h *Requests) Show(c echo.Context) error {
	id, err := requestID(c)
	if err != nil {
		return err
	}
	r, err := h.Service.ChangeRequest(c.Request().Context(), id)
	if err != nil {
		return err
	}
	m, err := h.page(c, r)
	if err != nil {
		return err
	}
	m.Flash = flashFor(c)
	return Render(c, http.StatusOK, overridepage.ConfirmPage(m))
}

// page is the page of change request r for the logged-in user.
func (h *Requests) page(c echo.Context, r domain.ChangeRequest) (overridepage.Confirm, error) {
	ctx := consoleContext(c)
	m := overridepage.Confirm{
		ID: r.ModuleID, Locale: r.Locale, Verb: "approve",
		Heading: fmt.Sprintf("Change request #%d: %s %s (%s)", r.ID, r.Action, r.ModuleID, r.Locale),
		Head:    fmt.Sprintf("Asks to %s revision %d.", r.Action, r.Revision),
		Summary: "Approving makes the change serve at once, recorded with the author's note; rejecting leaves what serves as it is.",
		Button:  "Approve and serve",
		PostURL: requestURL(r.ID) + "/approve",
		BackURL: "/requests",
		Note:    noteField(),
		Request: &overridepage.Request{ID: r.ID, Author: r.Author, At: r.CreatedAt.UTC().Format(timeLayout), Note: r.Note, Status: r.Status,
			RejectURL: requestURL(r.ID) + "/reject", Reason: noteField(), ListURL: "/requests"},
	}
	me, _ := domain.ActorOf(ctx)
	user, _ := CurrentUser(c)
	switch {
	case !domain.RoleAtLeast(user.Role, domain.RoleEditor):
		m.Request.RejectURL = ""
		m.Blocked = "Editors and admins decide change requests."
		if r.Status != domain.RequestOpen {
			m.Request.Decision = decision(r)
		}
	case r.Status != domain.RequestOpen:
		m.Request.Decision, m.Request.RejectURL = decision(r), ""
		m.Blocked = fmt.Sprintf("This change request is %s: nothing is left to decide.", r.Status)
	case r.Author == me:
		m.Request.OwnRequest = true
		m.Blocked = "You asked for this change: another editor or an admin must approve it. You may reject it to withdraw it."
	}
	if head, err := h.Service.Head(ctx, r.ModuleID, r.Locale); err == nil && head.Revision != r.Revision && r.Status == domain.RequestOpen {
		m.Request.StaleMessage = fmt.Sprintf("The override moved on since this request: it is at revision %d by %s now, so approving it fails. Reject it and ask again.", head.Revision, head.Author)
	}
	change := state.Change{ID: r.ModuleID, Locale: r.Locale, Remove: true}
	switch r.Action {
	case domain.ActionKeepMine:
		served := h.Service.ServedText(r.ModuleID, r.Locale)
		m.Same, m.BeforeFrom, m.AfterFrom = true, served.From, served.From
		m.Summary += fmt.Sprintf(" Keep mine keeps the served text and bases it on builtin v%d, which ends the drift.", r.BuiltinVersion)
		return m, nil
	case domain.ActionPublish:
		rev, err := h.Service.GetRevision(ctx, r.ModuleID, r.Locale, r.Revision)
		if err != nil {
			return m, err
		}
		change = state.Change{ID: r.ModuleID, Locale: r.Locale, Text: rev.Text, Label: fmt.Sprintf("draft revision %d", r.Revision)}
	}
	eff, err := h.Service.Effect(ctx, change)
	var textErr *state.TextError
	switch {
	case errors.As(err, &textErr):
		m.Blocked = "The draft fails the checks now: it cannot be approved. Reject it."
		return m, nil
	case err != nil:
		return m, err
	}
	effectModel(&m, eff, r.Status == domain.RequestOpen)
	return m, nil
}

// Approve handles POST /requests/:id/approve with the approver's note:
// the change serves and the browser goes to the module page. The
// author's own approval answers 403 and a decided request 409, each with
// the page as it is now; a moved head 409 too.
func (h *Requests) Approve(c echo.Context) error {
	return h.decide(c, true)
}

// Reject handles POST /requests/:id/reject with the reason (required:
// 422 without, the page keeping what was typed): nothing serves
// differently. A decided request answers 409.
func (h *Requests) Reject(c echo.Context) error {
	return h.decide(c, false)
}

func (h *Requests) decide(c echo.Context, approve bool) error {
	id, err := requestID(c)
	if err != nil {
		return err
	}
	field := "note"
	if !approve {
		field = "reason"
	}
	typed := c.FormValue(field)
	text, err := domain.CleanNote(field, typed)
	if err == nil && !approve && text == "" {
		err = &library.Error{Code: library.CodeInvalidRequest, Field: "reason", Msg: "say why the change is rejected"}
	}
	var r domain.ChangeRequest
	if err == nil {
		ctx := consoleContext(c)
		if approve {
			r, err = h.Service.Approve(ctx, id, text)
		} else {
			r, err = h.Service.Reject(ctx, id, text)
		}
	}
	if err == nil {
		if approve {
			setFlash(c, fmt.Sprintf("Change request #%d approved: %s of %s (%s) is done and serves.", r.ID, r.Action, r.ModuleID, r.Locale))
			return seeOther(c, "/modules/"+r.ModuleID)
		}
		setFlash(c, fmt.Sprintf("Change request #%d rejected: nothing served changed.", r.ID))
		return seeOther(c, "/requests")
	}
	status := http.StatusConflict
	switch {
	case errors.Is(err, library.ErrNotFound) && !errors.As(err, new(*domain.Decided)):
		if _, gerr := h.Service.ChangeRequest(c.Request().Context(), id); gerr != nil {
			return gerr
		}
	case errors.Is(err, library.ErrForbidden):
		status = http.StatusForbidden
	case errors.Is(err, library.ErrInvalid):
		status = http.StatusUnprocessableEntity
	case errors.Is(err, library.ErrConflict):
	default:
		return err
	}
	cur, gerr := h.Service.ChangeRequest(c.Request().Context(), id)
	if gerr != nil {
		return gerr
	}
	m, perr := h.page(c, cur)
	if perr != nil {
		return perr
	}
	if le, ok := errors.AsType[*library.Error](err); ok && le.Field != "" {
		if approve {
			m.Note.Value, m.Note.Error = typed, le.Msg
		} else if m.Request.RejectURL != "" {
			m.Request.Reason.Value, m.Request.Reason.Error = typed, le.Msg
		}
	}
	m.Alert = "Nothing was done: " + problem(err).Text
	return Render(c, status, overridepage.ConfirmPage(m))
}

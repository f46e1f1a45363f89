package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/diffview"
	"github.com/promptdesk/promptdesk/views/scenariopage"
)

// Scenarios serves the scenarios pages: every scenario run against what
// is served now and compared with its accepted output, one scenario's
// page, accept, edit and delete. Every action goes through Service.
// Saving a preview as a scenario is Preview.SaveScenario.
type Scenarios struct {
	Service *state.Scenarios
	// Now is the clock of the page's "ran at".
	Now func() time.Time
}

// scenarioURL is the page of the scenario id.
func scenarioURL(id string) string { return "/scenarios/" + url.PathEscape(id) }

// canEdit reports whether the user may change scenarios (editor or admin).
func canEdit(c echo.Context) bool {
	u, ok := CurrentUser(c)
	return ok && domain.RoleAtLeast(u.Role, domain.RoleEditor)
}

// statusOrder puts the runs that need a look first.
var statusOrder = []state.RunStatus{state.RunFailed, state.RunChanged, state.RunNeverAccepted, state.RunUnchanged}

// List renders GET /scenarios: every scenario run now, failed and changed
// ones first, each changed one with its diff. htmx (Re-run all) gets the
// runs only.
func (h *Scenarios) List(c echo.Context) error {
	runs, err := h.Service.RunAll(c.Request().Context())
	if err != nil {
		return err
	}
	slices.SortStableFunc(runs, func(a, b state.ScenarioRun) int {
		return slices.Index(statusOrder, a.Status) - slices.Index(statusOrder, b.Status)
	})
	v := h.Service.Served.Current()
	m := scenariopage.List{
		Flash:   flashFor(c),
		CanEdit: canEdit(c),
		Library: fmt.Sprintf("%s · generation:%d", v.Library.Source, v.Library.Generation),
		RanAt:   h.Now().UTC().Format("2006-01-02 15:04:05 MST"),
	}
	for _, r := range runs {
		switch r.Status {
		case state.RunChanged:
			m.Changed++
		case state.RunFailed:
			m.Failed++
		case state.RunNeverAccepted:
			m.NeverAccepted++
		default:
			m.Unchanged++
		}
		m.Runs = append(m.Runs, runModel(r))
	}
	c.Response().Header().Add("Vary", "HX-Request")
	if isPartial(c) {
		return Render(c, http.StatusOK, scenariopage.ListBody(m))
	}
	return Render(c, http.StatusOK, scenariopage.ListPage(m))
}

// runModel is the view of one run.
func runModel(r state.ScenarioRun) scenariopage.Run {
	sc := r.Scenario
	m := scenariopage.Run{
		ID: sc.ID, Name: sc.Name, Description: sc.Description, Example: sc.Builtin,
		Status: string(r.Status), Tokens: r.Output.Tokens, Fingerprint: r.Fingerprint,
		URL: scenarioURL(sc.ID), PreviewURL: "/preview?scenario=" + url.QueryEscape(sc.ID),
		AcceptURL: scenarioURL(sc.ID) + "/accept",
	}
	if m.Name == "" {
		m.Name = sc.ID
	}
	if a := sc.Accepted; a != nil {
		m.Accepted, m.AcceptedTokens, m.AcceptedBy = true, a.Tokens, a.By
		m.AcceptedAt = a.At.UTC().Format(timeLayout)
	}
	m.Error = problem(r.Err)
	if r.Status == state.RunChanged {
		m.TextDiff, m.TextPlus, m.TextMinus = foldedDiff(r.TextDiff)
		m.ReportDiff, m.ReportPlus, m.ReportMinus = foldedDiff(r.ReportDiff)
	}
	return m
}

// foldedDiff is a line diff folded for diffview, its changed line pairs
// marked inside (linediff.Inline), with its number of inserted and
// deleted lines.
func foldedDiff(d []linediff.Line) (lines []diffview.Line, plus, minus int) {
	plus, minus = linediff.Count(d)
	folded := linediff.Fold(d, diffContext)
	inline := linediff.Inline(folded)
	for i, l := range folded {
		kind := diffview.KindEqual
		switch l.Op {
		case linediff.Insert:
			kind = diffview.KindInsert
		case linediff.Delete:
			kind = diffview.KindDelete
		case linediff.Folded:
			kind = diffview.KindFolded
		}
		var spans []diffview.Span
		for _, s := range inline[i] {
			spans = append(spans, diffview.Span{Text: s.Text, Changed: s.Changed})
		}
		lines = append(lines, diffview.Line{Kind: kind, Old: l.Old, New: l.New, Text: l.Text, Count: l.Count, Spans: spans})
	}
	return lines, plus, minus
}

// Show renders GET /scenarios/:id: its run now, the output, and the
// edit form (editors) or the request. Errors: ErrNotFound.
func (h *Scenarios) Show(c echo.Context) error {
	run, err := h.Service.Run(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	d := h.detail(c, run)
	d.Flash = flashFor(c)
	return Render(c, http.StatusOK, scenariopage.DetailPage(d))
}

// detail is the page model of a run, its form filled from the scenario.
func (h *Scenarios) detail(c echo.Context, run state.ScenarioRun) scenariopage.Detail {
	sc := run.Scenario
	d := scenariopage.Detail{
		Run:       runModel(run),
		CanEdit:   canEdit(c),
		Text:      run.Output.Text,
		Report:    run.Output.Report,
		Request:   indentJSON(sc.Request),
		DeleteURL: scenarioURL(sc.ID) + "/delete",
	}
	if a := sc.Accepted; a != nil {
		d.AcceptedText, d.AcceptedReport = a.Text, a.Report
	}
	d.Form = scenariopage.Form{Action: scenarioURL(sc.ID), Name: sc.Name, Description: sc.Description, Request: d.Request}
	return d
}

// Request handles GET /scenarios/:id/request: the scenario's request
// JSON, indented, for the preview page's script that loads it into the
// form. Errors: ErrNotFound.
func (h *Scenarios) Request(c echo.Context) error {
	sc, err := h.Service.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, []byte(indentJSON(sc.Request)))
}

// Update handles POST /scenarios/:id: name, description and request as
// typed. 422 with the errors next to the fields, the form as typed; else
// back to the scenario's page. Errors: ErrNotFound.
func (h *Scenarios) Update(c echo.Context) error {
	id := c.Param("id")
	form := scenariopage.Form{Action: scenarioURL(id), Name: c.FormValue("name"), Description: c.FormValue("description"), Request: c.FormValue("request")}
	ctx := consoleContext(c)
	saved, err := h.Service.Update(ctx, id, state.ScenarioDraft{Name: form.Name, Description: form.Description, Request: form.Request})
	var se state.ScenarioError
	switch {
	case errors.As(err, &se):
		run, err := h.Service.Run(ctx, id)
		if err != nil {
			return err
		}
		d := h.detail(c, run)
		form.Errors = fieldErrors(se)
		d.Form = form
		return Render(c, http.StatusUnprocessableEntity, scenariopage.DetailPage(d))
	case err != nil:
		return err
	}
	setFlash(c, fmt.Sprintf("Scenario %s saved.", saved.Name))
	return seeOther(c, scenarioURL(id))
}

// fieldErrors maps a ScenarioError onto the form's fields: every
// request.<field> error goes to the request, naming its field.
func fieldErrors(se state.ScenarioError) map[string]string {
	errs := map[string]string{}
	for _, f := range se {
		field, msg := f.Field, f.Msg
		if sub, ok := strings.CutPrefix(field, "request."); ok {
			field, msg = "request", sub+": "+msg
		}
		if errs[field] != "" {
			msg = errs[field] + "; " + msg
		}
		errs[field] = msg
	}
	return errs
}

// Accept handles POST /scenarios/:id/accept with the fingerprint of the
// output shown: it records that output as accepted, then goes back to the
// list (back=list) or the scenario's page. An output that changed since
// it was shown answers 409, a scenario that does not assemble or a
// missing or malformed fingerprint 422, each with its page as it is now
// and nothing accepted. Errors: ErrNotFound.
func (h *Scenarios) Accept(c echo.Context) error {
	id := c.Param("id")
	ctx := consoleContext(c)
	var run state.ScenarioRun
	var err error
	if fingerprint := c.FormValue("fingerprint"); fingerprint != "" {
		run, err = h.Service.Accept(ctx, id, fingerprint)
	} else if _, err = h.Service.Get(ctx, id); err == nil {
		// The page's accept forms all carry the output's fingerprint: the
		// console never accepts an output nobody reviewed.
		err = state.ErrBadFingerprint
	}
	refuse := func(status int, alert string) error {
		now, err := h.Service.Run(ctx, id)
		if err != nil {
			return err
		}
		d := h.detail(c, now)
		d.Alert = alert
		return Render(c, status, scenariopage.DetailPage(d))
	}
	switch {
	case errors.Is(err, state.ErrOutputMoved):
		return refuse(http.StatusConflict, "The output changed since that page was loaded (an override, a profile or the library changed): nothing was accepted. Review the output below and accept again.")
	case errors.Is(err, state.ErrNotAcceptable):
		return refuse(http.StatusUnprocessableEntity, "The scenario does not assemble, so there is no output to accept; fix its request or what it names.")
	case errors.Is(err, state.ErrBadFingerprint):
		return refuse(http.StatusUnprocessableEntity, "The accept did not say which output was reviewed (its fingerprint is missing or malformed), so nothing was accepted. Review the output below and accept it here.")
	case err != nil:
		return err
	}
	setFlash(c, fmt.Sprintf("Accepted the output of %s (%d tokens): its runs are compared with it from now on.", run.Scenario.Name, run.Output.Tokens))
	if c.FormValue("back") == "list" {
		return seeOther(c, "/scenarios")
	}
	return seeOther(c, scenarioURL(id))
}

// ConfirmDelete renders GET /scenarios/:id/delete. Errors: ErrNotFound.
func (h *Scenarios) ConfirmDelete(c echo.Context) error {
	sc, err := h.Service.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return Render(c, http.StatusOK, scenariopage.DeletePage(scenariopage.Delete{ID: sc.ID, Name: sc.Name,
		Action: scenarioURL(sc.ID) + "/delete", CancelURL: scenarioURL(sc.ID), Accepted: sc.Accepted != nil}))
}

// Delete handles POST /scenarios/:id/delete, then goes to the list; a
// scenario deleted before goes there too, saying so. Errors: ErrNotFound.
func (h *Scenarios) Delete(c echo.Context) error {
	id := c.Param("id")
	name := id
	if sc, err := h.Service.Get(c.Request().Context(), id); err == nil {
		name = sc.Name
	}
	err := h.Service.Delete(consoleContext(c), id)
	if again, err := goneAgain(c, err, "/scenarios"); again {
		return err
	}
	if err != nil {
		return err
	}
	setFlash(c, fmt.Sprintf("Scenario %s deleted.", name))
	return seeOther(c, "/scenarios")
}

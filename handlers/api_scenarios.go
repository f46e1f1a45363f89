package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/state"
)

// APIScenarios serves /api/v1/scenarios: list, create, read, replace and
// delete saved scenarios, run one against what is served now, and
// accept its output, all through Service (docs/scenarios.md). Changes
// are recorded with the actor of the token, "token:<name>".
//
// Besides the errors documented on API it answers 404 not_found (field
// id) for an unknown scenario, 409 conflict for a taken id (field id) or
// an accept whose fingerprint is no longer the output's (field
// fingerprint), and 422 invalid_request naming the field: id, name,
// description, request.<field of the request>, or for an accept of a
// scenario that does not assemble, request.
type APIScenarios struct {
	Service *state.Scenarios
}

// APIScenario is a saved scenario: its id, name, description, the
// assemble request (as saved, key order kept), whether it is one of the
// app's seeded examples, when it was last changed, and the output
// accepted last (absent until the first accept).
type APIScenario struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Request     json.RawMessage `json:"request"`
	Example     bool            `json:"example"`
	UpdatedAt   time.Time       `json:"updatedAt"`
	Accepted    *APIAccepted    `json:"accepted,omitempty"`
}

// APIOutput is what a scenario run produced, as it is compared: the
// full text, the composition report's text lines (without the library
// line) and the token count.
type APIOutput struct {
	Text   string   `json:"text"`
	Report []string `json:"report"`
	Tokens int      `json:"tokens"`
}

// APIAccepted is an accepted output with when and by whom it was
// accepted.
type APIAccepted struct {
	Text   string    `json:"text"`
	Report []string  `json:"report"`
	Tokens int       `json:"tokens"`
	At     time.Time `json:"at"`
	By     string    `json:"by"`
}

// APIScenarioRun is the answer of POST /api/v1/scenarios/{id}/run:
// Status unchanged, changed, never-accepted or failed; Changed is true
// for changed only; Output the output now (absent when failed) with its
// Fingerprint, the value to accept exactly that output; Error why a
// failed run failed; Diff and ReportDiff turn the accepted text and
// report lines into the new ones (folded around the changes; empty
// unless changed).
type APIScenarioRun struct {
	ID          string        `json:"id"`
	Status      string        `json:"status"`
	Changed     bool          `json:"changed"`
	Output      *APIOutput    `json:"output,omitempty"`
	Fingerprint string        `json:"fingerprint,omitempty"`
	Accepted    *APIAccepted  `json:"accepted,omitempty"`
	Error       *APIRunError  `json:"error,omitempty"`
	Diff        []APIDiffLine `json:"diff"`
	ReportDiff  []APIDiffLine `json:"reportDiff"`
}

// APIRunError is why a run failed, as the API's errors say it: code,
// message and field.
type APIRunError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// APIDiffLine is one line of a diff: Op equal, insert, delete, or folded
// for Count unchanged lines left out; Old and New are its 1-based line
// numbers in the accepted and the new text (0 where it is absent).
type APIDiffLine struct {
	Op    string `json:"op"`
	Text  string `json:"text"`
	Old   int    `json:"old"`
	New   int    `json:"new"`
	Count int    `json:"count"`
}

// APIScenarioBody is the body of POST /api/v1/scenarios and PUT
// /api/v1/scenarios/{id}: Name and Request are required; ID is for POST
// only (absent: derived from the name); with Accept the output as
// served now is accepted at once.
type APIScenarioBody struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Request     json.RawMessage `json:"request"`
	Accept      bool            `json:"accept"`
}

// APIAcceptBody is the optional body of POST
// /api/v1/scenarios/{id}/accept: with Fingerprint (from a run), only that
// output is accepted.
type APIAcceptBody struct {
	Fingerprint string `json:"fingerprint"`
}

// apiScenario is the APIScenario of sc.
func apiScenario(sc domain.Scenario) APIScenario {
	out := APIScenario{ID: sc.ID, Name: sc.Name, Description: sc.Description, Request: sc.Request, Example: sc.Builtin, UpdatedAt: sc.UpdatedAt.UTC()}
	if a := sc.Accepted; a != nil {
		out.Accepted = &APIAccepted{Text: a.Text, Report: a.Report, Tokens: a.Tokens, At: a.At.UTC(), By: a.By}
	}
	return out
}

// apiDiff is a diff as the API answers it, folded around the changes;
// never nil.
func apiDiff(d []linediff.Line) []APIDiffLine {
	out := []APIDiffLine{}
	for _, l := range linediff.Fold(d, diffContext) {
		out = append(out, APIDiffLine{Op: l.Op.String(), Text: l.Text, Old: l.Old, New: l.New, Count: l.Count})
	}
	return out
}

// apiRun is the APIScenarioRun of run.
func apiRun(run state.ScenarioRun) APIScenarioRun {
	out := APIScenarioRun{ID: run.Scenario.ID, Status: string(run.Status), Changed: run.Status == state.RunChanged,
		Diff: apiDiff(run.TextDiff), ReportDiff: apiDiff(run.ReportDiff)}
	if run.Status == state.RunFailed {
		out.Error = &APIRunError{Code: library.CodeInvalidRequest, Message: run.Err.Error()}
		var ae *library.Error
		if errors.As(run.Err, &ae) {
			field := ae.Field
			if field == "" && ae.Placeholder != "" && (ae.Code == library.CodeMissingVariable || ae.Code == library.CodeExtraVariable) {
				field = "variables." + ae.Placeholder
			}
			out.Error = &APIRunError{Code: ae.Code, Message: strings.TrimPrefix(ae.Error(), ae.Code+": "), Field: field}
		}
	} else {
		out.Output = &APIOutput{Text: run.Output.Text, Report: run.Output.Report, Tokens: run.Output.Tokens}
		out.Fingerprint = run.Fingerprint
	}
	if sc := apiScenario(run.Scenario); sc.Accepted != nil {
		out.Accepted = sc.Accepted
	}
	return out
}

// apiNoScenario is the 404 of an unknown scenario id.
func apiNoScenario(id string) error {
	return &library.Error{Code: library.CodeNotFound, Field: "id", Msg: fmt.Sprintf("no scenario %q", id)}
}

// scenarioErr turns the service's errors into the API's.
func scenarioErr(id string, err error) error {
	var se state.ScenarioError
	var gone *domain.AlreadyDeleted
	switch {
	case errors.As(err, &gone):
		return &library.Error{Code: library.CodeNotFound, Field: "id", Msg: gone.Error()}
	case errors.As(err, &se):
		msgs := make([]string, len(se))
		for i, f := range se {
			msgs[i] = f.Field + ": " + f.Msg
		}
		return &library.Error{Code: library.CodeInvalidRequest, Field: se[0].Field, Msg: strings.Join(msgs, "; ")}
	case errors.Is(err, library.ErrNotFound):
		return apiNoScenario(id)
	case errors.Is(err, library.ErrConflict):
		return &library.Error{Code: library.CodeConflict, Field: "id", Msg: err.Error()}
	}
	return err
}

// readScenarioBody reads a POST or PUT body: one JSON object with the
// fields of APIScenarioBody; name and request are required.
func readScenarioBody(c echo.Context) (APIScenarioBody, error) {
	var body APIScenarioBody
	data, err := readBody(c)
	if err != nil {
		return body, err
	}
	if err := decodeBody(data, &body); err != nil {
		return body, err
	}
	if len(bytes.TrimSpace(body.Request)) == 0 || string(bytes.TrimSpace(body.Request)) == "null" {
		return body, &library.Error{Code: library.CodeInvalidRequest, Field: "request", Msg: "required: the assemble request object, as POST /api/v1/assemble takes it"}
	}
	return body, nil
}

// List handles GET /api/v1/scenarios: 200 with every APIScenario, ordered
// by id.
func (h *APIScenarios) List(c echo.Context) error {
	list, err := h.Service.List(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]APIScenario, len(list))
	for i, sc := range list {
		out[i] = apiScenario(sc)
	}
	return WriteJSON(c, http.StatusOK, out)
}

// Get handles GET /api/v1/scenarios/{id}: 200 with the APIScenario.
// Errors: 404.
func (h *APIScenarios) Get(c echo.Context) error {
	sc, err := h.Service.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return scenarioErr(c.Param("id"), err)
	}
	return WriteJSON(c, http.StatusOK, apiScenario(sc))
}

// Create handles POST /api/v1/scenarios with an APIScenarioBody: 201
// with the stored APIScenario (a request without "now" gets the time of
// saving) and its URL as Location; with accept, its output is accepted
// unless it does not assemble (then it is saved without). A body without
// an id that is saved already (same name, description and request: a
// request sent again) answers 200 with that scenario and stores nothing.
// Errors: 409 for a taken id; 422 naming the field; 400, 413, 415 for the
// body.
func (h *APIScenarios) Create(c echo.Context) error {
	body, err := readScenarioBody(c)
	if err != nil {
		return err
	}
	saved, run, err := h.Service.Create(c.Request().Context(), state.ScenarioDraft{
		ID: body.ID, Name: body.Name, Description: body.Description, Request: string(body.Request),
	}, body.Accept)
	var already *state.SavedAlready
	if errors.As(err, &already) {
		c.Response().Header().Set(echo.HeaderLocation, "/api/v1/scenarios/"+saved.ID)
		return WriteJSON(c, http.StatusOK, apiScenario(saved))
	}
	if err != nil {
		return scenarioErr(body.ID, err)
	}
	if run.Status != "" && run.Status != state.RunFailed {
		saved = run.Scenario
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/scenarios/"+saved.ID)
	return WriteJSON(c, http.StatusCreated, apiScenario(saved))
}

// Put handles PUT /api/v1/scenarios/{id} with an APIScenarioBody: the
// name, description and request replace the scenario's; its accepted
// output stays (a run then shows how the new request's output differs)
// unless accept is set. 200 with the APIScenario. Errors: 404; 422 for a
// body id other than the path's, or naming the field; 400, 413, 415.
func (h *APIScenarios) Put(c echo.Context) error {
	id := c.Param("id")
	body, err := readScenarioBody(c)
	if err != nil {
		return err
	}
	if body.ID != "" && body.ID != id {
		return &library.Error{Code: library.CodeInvalidRequest, Field: "id", Msg: fmt.Sprintf("the body names scenario %q, the path %q; the id cannot change", body.ID, id)}
	}
	ctx := c.Request().Context()
	saved, err := h.Service.Update(ctx, id, state.ScenarioDraft{Name: body.Name, Description: body.Description, Request: string(body.Request)})
	if err != nil {
		return scenarioErr(id, err)
	}
	if body.Accept {
		run, err := h.Service.Accept(ctx, id, "")
		if err != nil {
			return acceptErr(id, err)
		}
		saved = run.Scenario
	}
	return WriteJSON(c, http.StatusOK, apiScenario(saved))
}

// Delete handles DELETE /api/v1/scenarios/{id}: 204. Errors: 404.
func (h *APIScenarios) Delete(c echo.Context) error {
	id := c.Param("id")
	if err := h.Service.Delete(c.Request().Context(), id); err != nil {
		return scenarioErr(id, err)
	}
	return c.NoContent(http.StatusNoContent)
}

// Run handles POST /api/v1/scenarios/{id}/run (no body): the scenario run
// against what is served now (published overrides), 200 with the
// APIScenarioRun — a request that does not assemble is status failed,
// not an error. Errors: 404.
func (h *APIScenarios) Run(c echo.Context) error {
	id := c.Param("id")
	run, err := h.Service.Run(c.Request().Context(), id)
	if err != nil {
		return scenarioErr(id, err)
	}
	return WriteJSON(c, http.StatusOK, apiRun(run))
}

// Accept handles POST /api/v1/scenarios/{id}/accept with an optional
// APIAcceptBody: the output as served now becomes the accepted one; 200
// with the APIScenario. Errors: 404; 409 conflict (field fingerprint)
// when the output is no longer the one fingerprinted; 422 (field
// request) when the scenario does not assemble, (field fingerprint) for a
// fingerprint that is not one.
func (h *APIScenarios) Accept(c echo.Context) error {
	id := c.Param("id")
	data, err := readBody(c)
	if err != nil {
		return err
	}
	var body APIAcceptBody
	if len(bytes.TrimSpace(data)) > 0 {
		if err := decodeBody(data, &body); err != nil {
			return err
		}
	}
	run, err := h.Service.Accept(c.Request().Context(), id, body.Fingerprint)
	if err != nil {
		return acceptErr(id, err)
	}
	return WriteJSON(c, http.StatusOK, apiScenario(run.Scenario))
}

// acceptErr turns an accept's errors into the API's.
func acceptErr(id string, err error) error {
	switch {
	case errors.Is(err, state.ErrOutputMoved):
		return &library.Error{Code: library.CodeConflict, Field: "fingerprint",
			Msg: err.Error() + "; run the scenario again and accept with its new fingerprint"}
	case errors.Is(err, state.ErrNotAcceptable):
		field := "request"
		if le := new(library.Error); errors.As(err, &le) && le.Field != "" {
			field += "." + le.Field
		}
		return &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: err.Error()}
	case errors.Is(err, state.ErrBadFingerprint):
		return &library.Error{Code: library.CodeInvalidRequest, Field: "fingerprint", Msg: errorText(err)}
	}
	return scenarioErr(id, err)
}

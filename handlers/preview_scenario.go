package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/previewpage"
)

// ChatMessage is one message of the preview's "copy as chat messages"
// JSON. The preview copies one system message holding the full text:
// that is what runtimes send (several chat APIs take a single system
// prompt), and it is the API's `text`, byte for byte.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatMessages is text as [{"role":"system","content":text}], with HTML
// escaping off like every API answer, so `<`, `>` and `&` stay as they
// are.
func chatMessages(text string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode([]ChatMessage{{Role: "system", Content: text}}); err != nil {
		return "", fmt.Errorf("chat messages: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// resultExtras adds to r what the page shows beside the assembly: the
// profile's token budget and by how much the text exceeds it (when
// tokens are counted), and the chat-messages JSON.
func resultExtras(v *state.View, res *assembler.Result, r *previewpage.Result) error {
	if p, ok := v.State.Profiles[res.Profile]; ok && res.Profile != "" && p.TokenBudget > 0 {
		r.Budget, r.Over = p.TokenBudget, assembler.Overrun(p, res)
	}
	var err error
	r.ChatMessages, err = chatMessages(res.Text)
	return err
}

// againstServed assembles req as served (published overrides only) and
// compares it with the assembly with drafts, res: the drafts' effect.
// An assembly error of the served state is shown, not returned; other
// errors are the server's.
func (h *Preview) againstServed(ctx context.Context, v *state.View, req *assembler.Request, res *assembler.Result, now time.Time) (*previewpage.ServedDiff, error) {
	served, err := h.Assembly.AssembleOn(ctx, v, req, state.Mode{}, now)
	if err != nil {
		if !isRequestError(err) {
			return nil, err
		}
		return &previewpage.ServedDiff{Error: problem(err)}, nil
	}
	d := &previewpage.ServedDiff{Tokens: served.Tokens, Same: served.Text == res.Text}
	if !d.Same {
		d.Diff, d.Plus, d.Minus = diffLines(served.Text, res.Text)
	}
	return d, nil
}

// SaveScenario handles POST /scenarios from the preview's "Save as
// scenario" form: the request that was previewed (with the preview's
// locale field written in) under a name and description; with accept on,
// its output as served now is accepted at once. Then it goes to the new
// scenario's page; a form posted twice goes to the one it saved. Errors
// in the form answer 422 with the preview page, its result and the form
// as typed.
func (h *Preview) SaveScenario(c echo.Context) error {
	form := previewpage.SaveForm{ID: strings.TrimSpace(c.FormValue("id")), Name: c.FormValue("name"), Description: c.FormValue("description"), Accept: c.FormValue("accept") == "on"}
	m := previewpage.Model{Request: c.FormValue("request"), Locale: strings.TrimSpace(c.FormValue("locale")), Save: &form}
	saved, run, err := h.Scenarios.Create(consoleContext(c), state.ScenarioDraft{
		ID: form.ID, Name: form.Name, Description: form.Description, Request: m.Request, Locale: m.Locale,
	}, form.Accept)
	var se state.ScenarioError
	var already *state.SavedAlready
	switch {
	case errors.As(err, &se):
		form.Errors = fieldErrors(se)
		return h.runWith(c, m, http.StatusUnprocessableEntity)
	case errors.As(err, &already):
		setFlash(c, fmt.Sprintf("Scenario %s was saved already (id %s), with this name, description and request: nothing new was saved.", saved.Name, saved.ID))
		return seeOther(c, scenarioURL(saved.ID))
	case form.ID != "" && errors.Is(err, library.ErrConflict):
		form.Errors = map[string]string{"id": fmt.Sprintf("a scenario with id %s exists already: choose another id, or leave it empty to derive one from the name", form.ID)}
		return h.runWith(c, m, http.StatusUnprocessableEntity)
	case err != nil:
		return err
	}
	msg := fmt.Sprintf("Scenario %s saved (id %s).", saved.Name, saved.ID)
	switch {
	case run.Status == state.RunFailed:
		msg += " Its output was not accepted: it does not assemble as served now. " + problem(run.Err).Plain()
	case form.Accept:
		msg += fmt.Sprintf(" Its output as served now (%d tokens) is accepted.", run.Output.Tokens)
	default:
		msg += " No output is accepted yet."
	}
	setFlash(c, msg)
	return seeOther(c, scenarioURL(saved.ID))
}

package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/overridepage"
)

// CheckRequest is the body of the editor's live check: the whole module
// file as typed.
type CheckRequest struct {
	Text string `json:"text"`
}

// CheckResponse is the live check's answer: every error of the text at
// once (Valid is false when there is one), the module checklist's
// warnings, its notices (what it could not check; warnings that name no
// line), and the variables the text declares, for completion. The
// checklist runs when every field parsed (Checklist is true then). Lists
// are empty, never null.
type CheckResponse struct {
	Valid     bool                      `json:"valid"`
	Checklist bool                      `json:"checklist"`
	Errors    []CheckItem               `json:"errors"`
	Warnings  []CheckItem               `json:"warnings"`
	Notices   []CheckItem               `json:"notices"`
	Variables []overridepage.Completion `json:"variables"`
}

// CheckItem is one error, warning or notice: Line is 1-based, 0 when it
// concerns the whole text; Field is the frontmatter field or "body" when
// known; Rule is the checklist rule's label ("rule 3") of a warning or
// notice.
type CheckItem struct {
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message"`
}

// LiveCheck handles POST /modules/:id/override/:locale/check, the
// editor's check as the text changes (JSON CheckRequest, CSRF token in
// the X-CSRF-Token header): it runs the checks of a save without storing
// anything and answers 200 with a CheckResponse. A body that is not that
// JSON answers 400, an unknown module 404 and a malformed locale 422, each
// returned as a library.Error, which the error handler writes as JSON
// (the editor asks for JSON).
func (h *Overrides) LiveCheck(c echo.Context) error {
	v := h.Served.Current()
	id := c.Param("id")
	if !v.Exists(id) {
		return &library.Error{Code: library.CodeNotFound, Field: "id", Msg: fmt.Sprintf("module %q does not exist", id)}
	}
	locale, err := library.CanonicalLocale(c.Param("locale"))
	if err != nil {
		return &library.Error{Code: library.CodeInvalidRequest, Field: "locale", Msg: library.LocaleProblem(c.Param("locale"))}
	}
	var req CheckRequest
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return &library.Error{Kind: library.ErrUnreadable, Code: library.CodeInvalidJSON, Msg: `the body must be the JSON object {"text": "<the module file>"}: ` + err.Error()}
	}
	out := h.Service.Check(id, locale, req.Text)
	resp := CheckResponse{
		Valid: out.Kind != state.OutcomeInvalid,
		// Check gives an invalid text findings, if only empty ones, when
		// the checklist ran on it.
		Checklist: out.Kind != state.OutcomeInvalid || out.Warnings != nil,
		Errors:    []CheckItem{},
		Warnings:  []CheckItem{},
		Notices:   []CheckItem{},
		Variables: declaredVariables(req.Text),
	}
	for _, e := range out.Errors {
		resp.Errors = append(resp.Errors, CheckItem{Line: e.Line, Field: e.Field, Message: e.Msg})
	}
	for _, f := range out.Warnings {
		item := CheckItem{Line: f.Line, Field: f.Field, Rule: f.RuleLabel(), Message: f.Message}
		if f.Line > 0 {
			resp.Warnings = append(resp.Warnings, item)
		} else {
			resp.Notices = append(resp.Notices, item)
		}
	}
	for _, f := range out.Notices {
		resp.Notices = append(resp.Notices, CheckItem{Line: f.Line, Field: f.Field, Rule: f.RuleLabel(), Message: f.Message})
	}
	return WriteJSON(c, http.StatusOK, resp)
}

// declaredVariables are the variables text declares, as far as its
// frontmatter parses; empty when none.
func declaredVariables(text string) []overridepage.Completion {
	out := []overridepage.Completion{}
	m, _ := library.ParseAll("", []byte(text))
	if m == nil {
		return out
	}
	for _, v := range m.Variables {
		detail := "variable"
		if v.Escape != "" {
			detail = "variable, escape " + v.Escape
		}
		out = append(out, overridepage.Completion{Name: v.Name, Detail: detail, Info: v.Description})
	}
	return out
}

// editorPage renders the editor e with what the page shows around the
// textarea: the script editor's data (completion, live check, the texts
// to diff against) and, for the page without script, the text's diff
// against the builtin.
func (h *Overrides) editorPage(c echo.Context, status int, e overridepage.Editor) error {
	v := h.Served.Current()
	a := editorAssist(v, h.Assembler, e.ID, e.Text)
	if !e.New && v.Exists(e.ID) {
		a.Check = overrideURL(e.ID, e.Locale) + "/check"
		if m, _, ok := v.Primary(h.Assembler, e.ID); ok {
			a.Layer = string(m.Layer)
		}
		if e.Builtin != "" {
			a.Against = append(a.Against, overridepage.DiffText{Key: "builtin", Label: "the " + lowerFirst(e.BuiltinSource), Text: e.Builtin})
			a.DefaultAgainst = "builtin"
			e.Diff, e.DiffAdded, e.DiffRemoved = diffLines(e.Builtin, e.Text)
		}
		if s, ok := h.Assembler.Resolve(v.Library, v.State, e.ID, e.Locale); ok {
			label := fmt.Sprintf("the served text: the builtin %s text (version %d)", s.Locale, s.Module.Version)
			if s.Override != nil {
				label = fmt.Sprintf("the served text: the published override %s, revision %d", s.Locale, s.Override.Revision)
			}
			a.Against = append(a.Against, overridepage.DiffText{Key: "served", Label: label, Text: s.Module.Text})
			if a.DefaultAgainst == "" {
				a.DefaultAgainst = "served"
			}
		}
	}
	e.Assist = a
	return Render(c, status, overridepage.EditorPage(e))
}

// editorAssist is the script editor's data for a file of module id
// holding text: completion of placeholders and fields. It has no layer, live check or text to diff against; the caller adds
// those.
func editorAssist(v *state.View, asm *assembler.Assembler, id, text string) *overridepage.Assist {
	a := &overridepage.Assist{
		ID:           id,
		Variables:    declaredVariables(text),
		Env:          envCompletions(),
		Modules:      []overridepage.Completion{},
		Keys:         fieldCompletions(library.Fields),
		VariableKeys: fieldCompletions(library.VariableFields),
		TriggerKeys:  fieldCompletions(library.TriggerFields),
		TriggerKinds: fieldCompletions(library.TriggerKinds),
		Against:      []overridepage.DiffText{},
	}
	for _, l := range library.Layers {
		a.Layers = append(a.Layers, string(l))
	}
	for _, mid := range v.IDs() {
		if mid == id {
			continue // a module including itself is a cycle
		}
		comp := overridepage.Completion{Name: mid, Detail: "module"}
		if m, _, ok := v.Primary(asm, mid); ok {
			comp.Info = m.Title + ": " + m.Description
		}
		a.Modules = append(a.Modules, comp)
	}
	return a
}

// envCompletions are the environment values with their descriptions.
func envCompletions() []overridepage.Completion {
	out := make([]overridepage.Completion, 0, len(library.EnvValues))
	for _, ev := range library.EnvValues {
		detail := "environment value"
		if ev.EnvOnly {
			detail = "environment value, env modules only"
		}
		out = append(out, overridepage.Completion{Name: ev.Name, Detail: detail, Info: ev.Description, EnvOnly: ev.EnvOnly})
	}
	return out
}

// fieldCompletions turns the format's field documentation into
// completions.
func fieldCompletions(docs []library.FieldDoc) []overridepage.Completion {
	out := make([]overridepage.Completion, 0, len(docs))
	for _, d := range docs {
		detail := ""
		switch {
		case d.Required:
			detail = "required"
		case d.TaskOnly:
			detail = "task modules"
		}
		out = append(out, overridepage.Completion{Name: d.Name, Detail: detail, Info: d.Description, TaskOnly: d.TaskOnly})
	}
	return out
}

// lowerFirst lowercases the first letter of a sentence-case label
// ("Builtin text (…)" reads "the builtin text (…)").
func lowerFirst(s string) string {
	if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
		return string(s[0]+'a'-'A') + s[1:]
	}
	return s
}

// checkLines are a check's errors and checklist warnings as the editor
// shows them under their lines; warnings name their rule.
func checkLines(out state.Outcome) []components.LineError {
	lines := editorErrors(out.Errors)
	for _, f := range out.Warnings {
		if f.Line > 0 {
			lines = append(lines, components.LineError{Line: f.Line, Msg: "[" + f.RuleLabel() + "] " + f.Message, Warning: true})
		}
	}
	return lines
}

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

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/previewpage"
)

// Preview serves the preview page: the same assembly the runtime API
// runs, on the served state.
type Preview struct {
	Assembly *state.Assembly
	// Scenarios lists and loads the saved scenarios and saves a preview
	// as one (SaveScenario).
	Scenarios *state.Scenarios
	// Now is the clock of assemblies whose request sets no "now".
	Now func() time.Time
}

// Show renders GET /preview. With ?scenario=ID (and optionally locale and
// builtinOnly=on) it also runs that scenario. Errors: ErrNotFound for an
// unknown scenario.
func (h *Preview) Show(c echo.Context) error {
	m := previewpage.Model{
		Scenario:      c.QueryParam("scenario"),
		Locale:        strings.TrimSpace(c.QueryParam("locale")),
		BuiltinOnly:   c.QueryParam("builtinOnly") == "on",
		IncludeDrafts: c.QueryParam("includeDrafts") == "on",
	}
	if m.Scenario == "" {
		return h.render(c, http.StatusOK, m)
	}
	return h.run(c, m)
}

// Run handles POST /preview: the selected scenario's request, or else the
// pasted JSON, assembled. Bad JSON and assembly errors are shown above the
// form, which keeps what was typed (422).
func (h *Preview) Run(c echo.Context) error {
	m := previewpage.Model{
		Scenario:      c.FormValue("scenario"),
		Loaded:        c.FormValue("loaded"),
		Request:       c.FormValue("request"),
		Locale:        strings.TrimSpace(c.FormValue("locale")),
		BuiltinOnly:   c.FormValue("builtinOnly") == "on",
		IncludeDrafts: c.FormValue("includeDrafts") == "on",
	}
	return h.run(c, m)
}

// run loads the scenario if one is selected, then decodes and assembles.
func (h *Preview) run(c echo.Context, m previewpage.Model) error {
	return h.runWith(c, m, http.StatusOK)
}

// runWith is run answering okStatus when the request assembles.
func (h *Preview) runWith(c echo.Context, m previewpage.Model, okStatus int) error {
	ctx := c.Request().Context()
	source := "pasted request"
	if m.Scenario != "" {
		sc, err := h.Scenarios.Get(ctx, m.Scenario)
		if err != nil {
			return err
		}
		stored := indentJSON(sc.Request)
		switch {
		case m.Loaded == sc.ID && strings.TrimSpace(m.Request) != "" && !sameJSON(m.Request, stored):
			// The scenario's text, edited in the form: run the edit, as
			// pasted JSON from now on.
			m.Scenario, m.Loaded = "", ""
			source = fmt.Sprintf("scenario %q, edited", sc.ID)
		default:
			// The select stays on the scenario, and the form holds its
			// request to edit and run again.
			m.Request, m.Loaded = stored, sc.ID
			source = fmt.Sprintf("scenario %q", sc.ID)
		}
	}
	if strings.TrimSpace(m.Request) == "" {
		m.Errors = []components.Problem{{Text: "Choose a scenario, or paste a request JSON object."}}
		return h.render(c, http.StatusUnprocessableEntity, m)
	}
	req, err := assembler.DecodeRequest([]byte(m.Request))
	if err != nil {
		if !isRequestError(err) {
			return err
		}
		m.Errors = []components.Problem{problem(err)}
		return h.render(c, http.StatusUnprocessableEntity, m)
	}
	if m.Locale != "" {
		loc, err := library.CanonicalLocale(m.Locale)
		if err != nil {
			m.Errors = []components.Problem{problem(err)}
			return h.render(c, http.StatusUnprocessableEntity, m)
		}
		req.Locale = loc
	}
	mode := state.Mode{BuiltinOnly: m.BuiltinOnly, Drafts: m.IncludeDrafts}
	now := h.Now() // one time for both sides of the drafts' diff
	out, err := h.Assembly.Assemble(ctx, req, mode, now)
	if err != nil {
		if !isRequestError(err) {
			return err
		}
		m.Errors = []components.Problem{problem(err)}
		return h.render(c, http.StatusUnprocessableEntity, m)
	}
	v, res := out.View, out.Result
	m.Result = resultModel(v, res)
	m.Result.Source = source
	m.Result.BuiltinOnly = m.BuiltinOnly
	if drafts := m.IncludeDrafts && !m.BuiltinOnly; drafts {
		m.Result.DraftsIncluded, m.Result.Drafts = true, out.Drafts
		if m.Result.Served, err = h.againstServed(ctx, v, req, res, now); err != nil {
			return err
		}
	}
	if err := resultExtras(v, res, m.Result); err != nil {
		return err
	}
	return h.render(c, okStatus, m)
}

// isRequestError reports whether an assembly error is the request's
// fault, shown above the form: a bad field, or a profile or module it
// names that does not exist. Anything else is a server error.
func isRequestError(err error) bool {
	return errors.Is(err, library.ErrInvalid) || errors.Is(err, library.ErrNotFound)
}

// render lists the scenarios and writes the page, or only its body for htmx.
func (h *Preview) render(c echo.Context, status int, m previewpage.Model) error {
	scs, err := h.Scenarios.List(c.Request().Context())
	if err != nil {
		return err
	}
	for _, sc := range scs {
		m.Scenarios = append(m.Scenarios, previewpage.Scenario{ID: sc.ID, Name: sc.Name, Description: sc.Description, Builtin: sc.Builtin})
	}
	m.CanSave = canEdit(c)
	if m.Save == nil {
		m.Save = &previewpage.SaveForm{Accept: true}
	}
	c.Response().Header().Add("Vary", "HX-Request")
	if isPartial(c) {
		return Render(c, status, previewpage.Body(m))
	}
	return Render(c, status, previewpage.Page(m))
}

// sameJSON reports whether a and b are the same JSON text but for
// spacing; texts that are not JSON are compared as they are.
func sameJSON(a, b string) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, []byte(a)) != nil || json.Compact(&cb, []byte(b)) != nil {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// indentJSON pretty-prints a stored request for the textarea.
func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// resultModel copies an assembly result into the view model.
func resultModel(v *state.View, res *assembler.Result) *previewpage.Result {
	r := &previewpage.Result{Locale: res.Locale, Profile: res.Profile, Encoding: res.Encoding, Tokens: res.Tokens, Text: res.Text}
	for _, e := range res.Report {
		pe := previewpage.Entry{Kind: e.Kind, Module: e.Module, Version: e.Version, Source: e.Source, Revision: e.Revision,
			Locale: e.Locale, Fallback: e.Fallback, Reason: e.Reason, Tokens: e.Tokens, Line: e.Line}
		if e.Module != "" && v.Exists(e.Module) {
			pe.ModuleURL = "/modules/" + e.Module
		}
		r.Report = append(r.Report, pe)
	}
	for _, s := range res.Segments {
		r.Segments = append(r.Segments, previewpage.Segment{Name: s.Layer, Modules: s.Modules, Tokens: s.Tokens, Text: s.Text})
	}
	if c := res.Skills; c != nil {
		r.Skills = &previewpage.Skills{Budget: c.Budget, Encoding: c.Encoding, Mode: c.Mode, Listed: c.Listed, NamesOnly: c.NamesOnly}
		for _, cut := range c.CutSkills {
			ps := previewpage.CutSkill{Name: cut.Name, Source: cut.Source, Reason: cut.Reason}
			if cut.Source == assembler.SkillSourceTask && v.Exists(cut.Name) {
				ps.URL = "/modules/" + cut.Name
			}
			r.Skills.Cut = append(r.Skills.Cut, ps)
		}
	}
	for _, t := range []struct{ name, text string }{
		{"Knowledge bases", res.Tables.Knowledge},
		{"Selected documents", res.Tables.Selected},
		{"Skills", res.Tables.Skills},
	} {
		if t.text != "" {
			r.Tables = append(r.Tables, previewpage.Table{Name: t.name, Markdown: t.text, Blocks: markdownBlocks(t.text)})
		}
	}
	return r
}

// markdownBlocks splits the markdown the assembler renders for tables
// (knowledge bases, selected documents, skills) into text lines and
// tables, so the page can also show them as HTML tables. Cells are one line with `\|` for a pipe and <br> for a line
// break; both are turned back into text (never HTML).
func markdownBlocks(md string) []previewpage.Block {
	var blocks []previewpage.Block
	var cur *previewpage.Block
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "|") {
			cur = nil
			if trimmed != "" {
				blocks = append(blocks, previewpage.Block{Text: strings.TrimLeft(trimmed, "# ")})
			}
			continue
		}
		cells := tableCells(trimmed)
		switch {
		case cur == nil:
			blocks = append(blocks, previewpage.Block{Header: cells})
			cur = &blocks[len(blocks)-1]
		case isRule(cells):
		default:
			cur.Rows = append(cur.Rows, cells)
		}
	}
	return blocks
}

// tableCells splits one `| a | b |` row on the pipes that are not escaped.
func tableCells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	var b strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			b.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, b.String())
			b.Reset()
		default:
			b.WriteByte(row[i])
		}
	}
	cells = append(cells, b.String())
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(strings.TrimSpace(c), "<br>", "\n")
	}
	return cells
}

func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/strictjson"
	"github.com/promptdesk/promptdesk/state"
)

// ListModulesInput is the list_modules tool's input: the filters of GET
// /api/v1/modules (layer, locale, status, q) and its paging (limit 1 to
// MaxModulesPage, 0 for every module; cursor the previous page's
// nextCursor).
type ListModulesInput struct {
	Layer  string `json:"layer,omitempty"`
	Locale string `json:"locale,omitempty"`
	Status string `json:"status,omitempty"`
	Q      string `json:"q,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListModulesOutput is a page of modules (state.ModuleSummary, as GET
// /api/v1/modules lists them) and the cursor of the next page ("" when
// none follows).
type ListModulesOutput struct {
	Modules    []state.ModuleSummary `json:"modules"`
	NextCursor string                `json:"nextCursor,omitempty"`
}

// MaxModulesPage is the largest limit of list_modules, that of GET
// /api/v1/modules.
const MaxModulesPage = 500

// GetModuleInput is the get_module tool's input, as GET
// /api/v1/modules/{id}?locale=.
type GetModuleInput struct {
	ID     string `json:"id"`
	Locale string `json:"locale,omitempty"`
}

// ExplainInput is the explain tool's input: a module id and an assemble
// request (the body of POST /api/v1/assemble).
type ExplainInput struct {
	Module  string            `json:"module"`
	Request assembler.Request `json:"request"`
}

// Explanation says why a module would or would not enter the system
// prompt for a request. Entered is true when the composition report has
// an entry of it that puts its text in the prompt (prompt, include,
// profile-prompt); Listed when a task that did not fire is listed by name
// and description among the available skills (skill-listed); Entries are
// every report entry naming the module (skill-yield when another task
// superseded it, skill-cut when the skill budget left it out), in report
// order; Layer, Triggers and RequiresAttachments are
// the module's as served in the request's locale, what decides whether a
// task enters.
type Explanation struct {
	Module              string                  `json:"module"`
	Entered             bool                    `json:"entered"`
	Listed              bool                    `json:"listed"`
	Entries             []assembler.ReportEntry `json:"entries"`
	Layer               string                  `json:"layer"`
	Triggers            []library.Trigger       `json:"triggers"`
	RequiresAttachments bool                    `json:"requiresAttachments"`
	Locale              string                  `json:"locale"`
}

// SaveDraftInput is the save_draft tool's input: the whole module file
// for module in locale, the revision it is based on (0 creates the
// override; required when one exists, as If-Match on PUT
// /api/v1/overrides/{id}) and an optional note.
type SaveDraftInput struct {
	Module       string `json:"module"`
	Locale       string `json:"locale"`
	Text         string `json:"text"`
	BaseRevision int    `json:"baseRevision,omitempty"`
	Note         string `json:"note,omitempty"`
}

// SavedDraft is save_draft's answer, the fields of PUT
// /api/v1/overrides/{id}'s: Stored is false when nothing was stored (the
// text equals the builtin, or the head revision already); Status is
// draft, published or builtin; Warnings and Notices are the module
// checklist's findings, never nil.
type SavedDraft struct {
	Stored   bool              `json:"stored"`
	Revision int               `json:"revision"`
	Status   string            `json:"status"`
	Outcome  string            `json:"outcome"`
	Warnings []library.Finding `json:"warnings"`
	Notices  []library.Finding `json:"notices"`
}

// Status values of SavedDraft.
const (
	StatusDraft     = "draft"
	StatusPublished = "published"
	StatusBuiltin   = "builtin"
)

// addTools registers the tools; their input and output schemas are
// inferred from the Go types by the SDK.
func (s *Server) addTools() error {
	errs := []error{
		addTool(s, "assemble", s.assemble),
		addTool(s, "render", s.renderTool),
		addTool(s, "list_modules", s.listModules),
		addTool(s, "get_module", s.getModule),
		addTool(s, "explain", s.explain),
	}
	if s.cfg.Overrides != nil {
		errs = append(errs, addTool(s, "save_draft", s.saveDraft))
	}
	return errors.Join(errs...)
}

// addTool registers the tool name with handler h: its input schema is
// inferred from In (as the SDK would), with the descriptions of its
// properties taken from words.yaml; its output schema is inferred by the
// SDK from Out. Errors: In has no schema.
func addTool[In, Out any](s *Server, name string, h mcp.ToolHandlerFor[In, Out]) error {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("mcpserver: tool %s: %w", name, err)
	}
	for prop, desc := range s.words.Arguments[name] {
		if p := in.Properties[prop]; p != nil {
			p.Description = desc
		}
	}
	mcp.AddTool(s.mcp, &mcp.Tool{Name: name, Description: s.words.Tools[name], InputSchema: in}, h)
	return nil
}

// assembleRaw runs the assemble request in raw (decoded strictly, as the
// API decodes its body: assembler.DecodeRequest) in the mode of the
// context's token (a staging token is served the drafts), and keeps its
// report as the session's last.
func (s *Server) assembleRaw(ctx context.Context, session *mcp.ServerSession, raw []byte) (*assembler.Result, error) {
	req, err := assembler.DecodeRequest(raw)
	if err != nil {
		return nil, err
	}
	out, err := s.cfg.Assembly.Assemble(ctx, req, state.Mode{Channel: tokenFrom(ctx).Channel()}, s.cfg.Now())
	if err != nil {
		return nil, err
	}
	s.keepReport(session, out.Report)
	return out.Result, nil
}

// assemble is the assemble tool: POST /api/v1/assemble.
func (s *Server) assemble(ctx context.Context, req *mcp.CallToolRequest, _ assembler.Request) (*mcp.CallToolResult, *assembler.Result, error) {
	res, err := s.assembleRaw(ctx, req.Session, argumentsOf(req))
	return nil, res, err
}

// renderTool is the render tool: POST /api/v1/render.
func (s *Server) renderTool(ctx context.Context, req *mcp.CallToolRequest, _ assembler.RenderRequest) (*mcp.CallToolResult, *assembler.Rendered, error) {
	var r assembler.RenderRequest
	if err := strictjson.Decode(argumentsOf(req), &r); err != nil {
		return nil, nil, err
	}
	out, err := s.render(ctx, &r)
	return nil, out, err
}

// listModules is the list_modules tool: GET /api/v1/modules.
func (s *Server) listModules(_ context.Context, _ *mcp.CallToolRequest, in ListModulesInput) (*mcp.CallToolResult, ListModulesOutput, error) {
	f := state.ModuleFilter{Layer: in.Layer, Status: in.Status, Q: strings.TrimSpace(in.Q)}
	if err := f.Check(); err != nil {
		return nil, ListModulesOutput{}, err
	}
	if in.Locale != "" {
		loc, err := library.CanonicalLocale(in.Locale)
		if err != nil {
			return nil, ListModulesOutput{}, &library.Error{Code: library.CodeInvalidRequest, Field: "locale", Msg: library.LocaleProblem(in.Locale)}
		}
		f.Locale = loc
	}
	if in.Limit < 0 || in.Limit > MaxModulesPage {
		return nil, ListModulesOutput{}, &library.Error{Code: library.CodeInvalidRequest, Field: "limit", Msg: fmt.Sprintf("%d is not a whole number from 1 to %d", in.Limit, MaxModulesPage)}
	}
	after, err := state.ParseModuleCursor(in.Cursor, "cursor")
	if err != nil {
		return nil, ListModulesOutput{}, err
	}
	page, more := s.cfg.Served.Current().ModulePage(s.cfg.Assembler, f, after, in.Limit)
	out := ListModulesOutput{Modules: page}
	if more {
		out.NextCursor = state.ModuleCursor(page[len(page)-1].ID)
	}
	return nil, out, nil
}

// getModule is the get_module tool: GET /api/v1/modules/{id}.
func (s *Server) getModule(_ context.Context, _ *mcp.CallToolRequest, in GetModuleInput) (*mcp.CallToolResult, state.ModuleDetail, error) {
	locale := in.Locale
	if locale != "" {
		loc, err := library.CanonicalLocale(locale)
		if err != nil {
			return nil, state.ModuleDetail{}, &library.Error{Code: library.CodeInvalidRequest, Field: "locale", Msg: library.LocaleProblem(locale)}
		}
		locale = loc
	}
	d, err := s.cfg.Served.Current().ModuleDetail(s.cfg.Assembler, in.ID, locale)
	return nil, d, err
}

// entering are the report kinds that put a module's text in the prompt.
var entering = []string{assembler.KindPrompt, assembler.KindInclude, assembler.KindProfilePrompt}

// explain is the explain tool: the request assembled as assemble does,
// and the composition report's entries of the module.
func (s *Server) explain(ctx context.Context, req *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, Explanation, error) {
	var raw struct {
		Module  string          `json:"module"`
		Request json.RawMessage `json:"request"`
	}
	if err := json.Unmarshal(argumentsOf(req), &raw); err != nil {
		return nil, Explanation{}, err
	}
	res, err := s.assembleRaw(ctx, req.Session, raw.Request)
	if err != nil {
		return nil, Explanation{}, err
	}
	d, err := s.cfg.Served.Current().ModuleDetail(s.cfg.Assembler, in.Module, res.Locale)
	if err != nil {
		return nil, Explanation{}, err
	}
	out := Explanation{Module: in.Module, Entries: []assembler.ReportEntry{}, Layer: d.Layer, Triggers: d.Triggers,
		RequiresAttachments: d.RequiresAttachments, Locale: d.Locale}
	for _, e := range res.Report {
		if e.Module != in.Module {
			continue
		}
		out.Entries = append(out.Entries, e)
		out.Entered = out.Entered || slices.Contains(entering, e.Kind)
		out.Listed = out.Listed || e.Kind == assembler.KindSkillListed
	}
	return nil, out, nil
}

// saveDraft is the save_draft tool: PUT /api/v1/overrides/{id} with
// If-Match baseRevision, through the one write path (state.Overrides.Save),
// recorded as the token's actor with the note. It never publishes.
func (s *Server) saveDraft(ctx context.Context, _ *mcp.CallToolRequest, in SaveDraftInput) (*mcp.CallToolResult, SavedDraft, error) {
	loc, err := library.CanonicalLocale(in.Locale)
	if err != nil {
		return nil, SavedDraft{}, &library.Error{Code: library.CodeInvalidRequest, Field: "locale", Msg: library.LocaleProblem(in.Locale)}
	}
	note, err := domain.CleanNote("note", in.Note)
	if err != nil {
		return nil, SavedDraft{}, err
	}
	ctx = domain.WithNote(ctx, note)
	if in.BaseRevision == 0 {
		head, err := s.cfg.Overrides.Head(ctx, in.Module, loc)
		switch {
		case err == nil:
			return nil, SavedDraft{}, &library.Error{Code: library.CodePreconditionRequired, Module: in.Module, Field: "baseRevision",
				Msg: fmt.Sprintf("override %s (%s) exists at revision %d: send baseRevision with the revision your text is based on", in.Module, head.Locale, head.Revision)}
		case !errors.Is(err, library.ErrNotFound):
			return nil, SavedDraft{}, err
		}
	}
	out, err := s.cfg.Overrides.Save(ctx, state.Edit{ID: in.Module, Locale: loc, Text: in.Text, Revision: in.BaseRevision})
	if err != nil {
		return nil, SavedDraft{}, err
	}
	res := SavedDraft{Outcome: string(out.Kind), Warnings: nonNil(out.Warnings), Notices: nonNil(out.Notices)}
	switch out.Kind {
	case state.OutcomeInvalid:
		msgs := make([]string, len(out.Errors))
		for i, le := range out.Errors {
			msgs[i] = le.Msg
			if le.Line > 0 {
				msgs[i] = fmt.Sprintf("line %d: %s", le.Line, le.Msg)
			}
		}
		return nil, SavedDraft{}, &library.Error{Code: library.CodeInvalidRequest, Module: in.Module, Field: "text", Msg: strings.Join(msgs, "; ")}
	case state.OutcomeConflict:
		return nil, SavedDraft{}, &library.Error{Code: library.CodePreconditionFailed, Module: in.Module, Field: "baseRevision", Msg: out.Reason}
	case state.OutcomeEqualsBuiltin:
		res.Status = StatusBuiltin
		if out.Head != nil {
			res.Revision, res.Status = out.Head.Revision, headStatus(*out.Head)
		}
	case state.OutcomeUnchanged:
		res.Revision, res.Status = out.Head.Revision, headStatus(*out.Head)
	default:
		res.Stored, res.Revision, res.Status = true, out.Saved.Revision, headStatus(out.Saved)
	}
	return nil, res, nil
}

// headStatus is draft or published, as the override row o is.
func headStatus(o domain.Override) string {
	if o.Draft {
		return StatusDraft
	}
	return StatusPublished
}

// nonNil is fs, or an empty list for nil.
func nonNil(fs []library.Finding) []library.Finding {
	if fs == nil {
		return []library.Finding{}
	}
	return fs
}

// argumentsOf is the tool call's arguments as sent ({} when none).
func argumentsOf(req *mcp.CallToolRequest) []byte {
	if len(req.Params.Arguments) == 0 {
		return []byte("{}")
	}
	return req.Params.Arguments
}

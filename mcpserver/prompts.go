package mcpserver

import (
	"context"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// LocaleArgument is the prompt argument choosing the locale, besides the
// module's own variables (a module declaring a variable of that name
// keeps it as its variable, and renders in the fallback locale).
const LocaleArgument = "locale"

// syncPrompts registers the prompt of each module of ids as the runtime
// is served it now, and removes those no longer served; nil is every
// module (the first registration, a reset of the change feed). The SDK
// sends notifications/prompts/list_changed after a change (debounced).
func (s *Server) syncPrompts(ids []string) {
	v := s.cfg.Served.Current().Published()
	s.mu.Lock()
	defer s.mu.Unlock()
	if ids == nil {
		ids = v.IDs()
		gone := maps.Clone(s.prompts)
		for _, id := range ids {
			delete(gone, id)
		}
		ids = append(slices.Sorted(maps.Keys(gone)), ids...)
	}
	for _, id := range ids {
		m, _, ok := v.Primary(s.cfg.Assembler, id)
		if !ok {
			if s.prompts[id] {
				s.mcp.RemovePrompts(id)
				delete(s.prompts, id)
			}
			continue
		}
		s.mcp.AddPrompt(s.prompt(m), s.getPrompt(id))
		s.prompts[id] = true
	}
}

// prompt is the prompt of module m: named by its id, titled and described
// as the module, its declared variables required arguments described by
// their description, then the optional locale.
func (s *Server) prompt(m *library.Module) *mcp.Prompt {
	p := &mcp.Prompt{Name: m.ID, Title: m.Title, Description: m.Description}
	hasLocale := false
	for _, v := range m.Variables {
		p.Arguments = append(p.Arguments, &mcp.PromptArgument{Name: v.Name, Description: v.Description, Required: true})
		hasLocale = hasLocale || v.Name == LocaleArgument
	}
	if !hasLocale {
		p.Arguments = append(p.Arguments, &mcp.PromptArgument{Name: LocaleArgument, Description: s.words.Locale})
	}
	return p
}

// getPrompt is the prompts/get handler of module id: the module rendered
// as POST /api/v1/render renders it (state.Assembly.Render, the locale
// checked as the API checks it), its text one user message. Errors are
// JSON-RPC invalid params naming what is wrong: a missing argument by its
// placeholder (missing_variable), an unknown one (extra_variable), a bad
// locale.
func (s *Server) getPrompt(id string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		m, _, ok := s.cfg.Served.Current().Published().Primary(s.cfg.Assembler, id)
		if !ok {
			return nil, rpcError(&library.Error{Code: library.CodeNotFound, Module: id, Field: "name", Msg: "no builtin or user module has this id"})
		}
		r := &assembler.RenderRequest{Module: id, Variables: map[string]string{}}
		for k, v := range req.Params.Arguments {
			if _, declared := m.Variable(k); k == LocaleArgument && !declared {
				r.Locale = v
				continue
			}
			r.Variables[k] = v
		}
		out, err := s.render(ctx, r)
		if err != nil {
			return nil, rpcError(err)
		}
		res := &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: out.Text}}}}
		res.Description = m.Description
		return res, nil
	}
}

// render is the render of the API (its locale check, then
// state.Assembly.Render in the channel of the context's token: a staging
// token is rendered what assemble serves it), with the report's warnings
// in Report.
func (s *Server) render(ctx context.Context, r *assembler.RenderRequest) (*assembler.Rendered, error) {
	if r.Locale != "" {
		loc, err := library.CanonicalLocale(r.Locale)
		if err != nil {
			return nil, &library.Error{Code: library.CodeInvalidRequest, Field: "locale", Msg: library.LocaleProblem(r.Locale)}
		}
		r.Locale = loc
	}
	out, report, err := s.cfg.Assembly.Render(ctx, r, tokenFrom(ctx).Channel(), s.cfg.Now())
	if err != nil {
		return nil, err
	}
	out.Report = report
	return out, nil
}

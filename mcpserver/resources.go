package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// Resource URIs: a module file as served in a locale
// (promptdesk://modules/<id>?locale=<locale>, no locale for the fallback
// locale) and the session's last composition report.
const (
	ModuleURITemplate = "promptdesk://modules/{id}{?locale}"
	modulePrefix      = "promptdesk://modules/"
	ReportURI         = "promptdesk://report/last"
)

// ModuleURI is the resource URI of module id in locale ("": the fallback
// locale).
func ModuleURI(id, locale string) string {
	u := modulePrefix + url.PathEscape(id)
	if locale != "" {
		u += "?locale=" + url.QueryEscape(locale)
	}
	return u
}

// addResources registers the module file template and the report.
func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "module", URITemplate: ModuleURITemplate, MIMEType: "text/markdown",
		Description: s.words.Resources["module"]}, s.readModule)
	s.mcp.AddResource(&mcp.Resource{Name: "composition-report", URI: ReportURI, MIMEType: "application/json",
		Description: s.words.Resources["report"]}, s.readReport)
}

// readModule reads a module file: the whole text served for the locale
// through the override chain (builtin file or the override's text, byte
// for byte as export writes it). Errors: not found (resource not found)
// for an unknown id or locale; invalid params for a bad URI or locale.
func (s *Server) readModule(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	u, err := url.Parse(req.Params.URI)
	if err != nil || !strings.HasPrefix(req.Params.URI, modulePrefix) {
		return nil, rpcError(&library.Error{Code: library.CodeInvalidRequest, Field: "uri", Msg: fmt.Sprintf("%q is not a module URI (%s)", req.Params.URI, ModuleURITemplate)})
	}
	id := strings.TrimPrefix(u.Path, "/")
	locale := u.Query().Get("locale")
	if locale != "" {
		if locale, err = library.CanonicalLocale(locale); err != nil {
			return nil, rpcError(&library.Error{Code: library.CodeInvalidRequest, Field: "locale", Msg: library.LocaleProblem(u.Query().Get("locale"))})
		}
	} else {
		locale = s.cfg.Assembler.FallbackLocale()
	}
	v := s.cfg.Served.Current().Published()
	served, ok := s.cfg.Assembler.Resolve(v.Library, v.State, id, locale)
	if !v.Exists(id) || !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: served.Module.Text}}}, nil
}

// readReport reads the session's last composition report, as the
// assemble answer's "report" (an empty list before the first assemble).
func (s *Server) readReport(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	s.mu.Lock()
	report := s.reports[req.Session]
	s.mu.Unlock()
	if report == nil {
		report = []assembler.ReportEntry{}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // prompt text is not HTML, as in the API
	if err := enc.Encode(report); err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ReportURI, MIMEType: "application/json", Text: b.String()}}}, nil
}

// keepReport keeps report as session's last, and forgets the reports of
// sessions that have ended.
func (s *Server) keepReport(session *mcp.ServerSession, report []assembler.ReportEntry) {
	live := map[*mcp.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		live[ss] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for ss := range s.reports {
		if !live[ss] {
			delete(s.reports, ss)
		}
	}
	s.reports[session] = report
}

// Package mcpserver serves promptdesk over the Model Context Protocol
// (the official Go SDK): every module as a prompt, the runtime API's
// operations as tools, module files and the last composition report as
// resources, and change notifications from the served state's change
// feed. It calls the same services as the runtime API (state.Assembly,
// state.View's listings, state.Overrides), so an MCP client gets what
// the API answers; the web package mounts its streamable HTTP handler
// behind the API's bearer tokens, and `promptdesk mcp` runs it on stdio.
package mcpserver

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// TokenAuthenticator checks an API token secret (*state.Tokens) and
// records its use by method and path.
type TokenAuthenticator interface {
	Authenticate(ctx context.Context, secret, method, path string) (domain.Token, error)
}

// Config is what a Server is built from; every field is required except
// Overrides (nil: no save_draft), Now (time.Now), Logger (slog.Default)
// and PageSize (DefaultPageSize).
type Config struct {
	Served    *state.Served
	Assembler *assembler.Assembler
	Assembly  *state.Assembly
	Overrides *state.Overrides
	// Tokens authenticates the token of the stdio transport on every
	// request (HTTP requests are authenticated by the web server).
	Tokens TokenAuthenticator
	Now    func() time.Time
	Logger *slog.Logger
	// PageSize is the most prompts one prompts/list answer holds.
	PageSize int
	// Version is the implementation version the server announces.
	Version string
}

// DefaultPageSize is the prompts/list page when Config.PageSize is 0.
const DefaultPageSize = 100

// Name is the implementation name the server announces.
const Name = "promptdesk"

//go:embed words.yaml
var wordsYAML []byte

// words are the texts of words.yaml.
type words struct {
	Instructions string            `yaml:"instructions"`
	Locale       string            `yaml:"locale"`
	Tools        map[string]string `yaml:"tools"`
	Resources    map[string]string `yaml:"resources"`
	// Arguments describe each tool's input properties.
	Arguments map[string]map[string]string `yaml:"arguments"`
}

// Server is one MCP server: an mcp.Server with the prompts of the served
// modules kept current by Run, the tools and the resources. Its sessions
// (HTTP and stdio alike) share it; each keeps its last composition
// report.
type Server struct {
	cfg   Config
	words words
	mcp   *mcp.Server

	mu sync.Mutex
	// prompts is the module id of every prompt registered.
	prompts map[string]bool
	// reports is the last assemble's report of each session.
	reports map[*mcp.ServerSession][]assembler.ReportEntry
	// stdio is the token secret of the stdio transport ("" for HTTP).
	stdio string
	// gen is the served generation the prompts were first registered at.
	gen int64
}

// New builds the Server and registers a prompt for every module served
// now. Errors: a missing Config field, or words.yaml unreadable.
func New(cfg Config) (*Server, error) {
	switch {
	case cfg.Served == nil, cfg.Assembler == nil, cfg.Assembly == nil:
		return nil, errors.New("mcpserver: Config.Served, Assembler and Assembly are required")
	case cfg.Tokens == nil:
		return nil, errors.New("mcpserver: Config.Tokens is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = DefaultPageSize
	}
	s := &Server{cfg: cfg, prompts: map[string]bool{}, reports: map[*mcp.ServerSession][]assembler.ReportEntry{}}
	if err := yaml.Unmarshal(wordsYAML, &s.words); err != nil {
		return nil, fmt.Errorf("mcpserver: words.yaml: %w", err)
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Version: cfg.Version}, &mcp.ServerOptions{
		Instructions:     s.words.Instructions,
		Logger:           cfg.Logger,
		PageSize:         cfg.PageSize,
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error {
			return nil
		},
		Capabilities: &mcp.ServerCapabilities{
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
		},
	})
	s.mcp.AddReceivingMiddleware(s.authorize)
	if err := s.addTools(); err != nil {
		return nil, err
	}
	s.addResources()
	s.gen = cfg.Served.Current().ServedGeneration
	s.syncPrompts(nil)
	return s, nil
}

// MCP returns the mcp.Server, for transports.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// What each method needs: a token holding one of the scopes listed.
// Methods not listed (initialize, ping, notifications, subscriptions)
// need only a token that may connect (ConnectScopes).
var methodScopes = map[string][]string{
	"prompts/list":             {domain.ScopeAssemble, domain.ScopeRead},
	"prompts/get":              {domain.ScopeAssemble},
	"resources/list":           {domain.ScopeAssemble, domain.ScopeRead},
	"resources/templates/list": {domain.ScopeAssemble, domain.ScopeRead},
	"resources/read":           {domain.ScopeAssemble, domain.ScopeRead},
	"tools/list":               {domain.ScopeAssemble, domain.ScopeRead},
}

// ConnectScopes are the scopes of which a token needs one to connect:
// those of the runtime API's commands, tools and change feed.
var ConnectScopes = []string{domain.ScopeAssemble, domain.ScopeRead}

// toolScopes is the scope each tool needs, that of its API route.
var toolScopes = map[string]string{
	"assemble":     domain.ScopeAssemble,
	"render":       domain.ScopeAssemble,
	"explain":      domain.ScopeAssemble,
	"list_modules": domain.ScopeRead,
	"get_module":   domain.ScopeRead,
	"save_draft":   domain.ScopeWrite,
}

// tokenKey is the context key of the request's domain.Token.
type tokenKey struct{}

// tokenFrom returns the token authorize put in ctx.
func tokenFrom(ctx context.Context) domain.Token {
	tok, _ := ctx.Value(tokenKey{}).(domain.Token)
	return tok
}

// authorize is the receiving middleware of every request: it finds the
// request's token (HTTP: the one the web server authenticated, carried
// in the SDK's TokenInfo; stdio: the configured secret, authenticated
// again so that a revoked token stops at once), checks the scope the
// method or tool needs, puts the token and its actor in the context, and
// leaves out of tools/list the tools the token may not call. A refusal
// is a JSON-RPC error naming the scope.
func (s *Server) authorize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" || method == "ping" || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		tok, err := s.token(ctx, method, req)
		if err != nil {
			return nil, err
		}
		need := methodScopes[method]
		if method == "tools/call" {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && toolScopes[p.Name] != "" {
				need = []string{toolScopes[p.Name]}
			}
		}
		if need == nil {
			need = ConnectScopes
		}
		if !slices.ContainsFunc(need, tok.Has) {
			return nil, &jsonrpc.Error{Code: CodeForbidden, Message: fmt.Sprintf(
				"forbidden: the API token %q (scopes: %v) lacks the scope %q that %s needs", tok.Name, tok.Scopes, need[0], what(method, req))}
		}
		ctx = domain.WithActor(context.WithValue(ctx, tokenKey{}, tok), domain.TokenActor(tok.Name))
		res, err := next(ctx, method, req)
		if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
			list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return !tok.Has(toolScopes[t.Name]) })
		}
		return res, err
	}
}

// what names a request in a refusal: the method, or the tool called.
func what(method string, req mcp.Request) string {
	if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
		return "the tool " + p.Name
	}
	return method
}

// CodeForbidden is the JSON-RPC error code of a request the token's
// scopes do not allow; CodeUnauthorized of one without a valid token
// (stdio: the configured token is revoked or unknown).
const (
	CodeForbidden    = -32003
	CodeUnauthorized = -32001
)

// token returns the token of req: HTTP's from the SDK's TokenInfo, else
// the stdio secret's.
func (s *Server) token(ctx context.Context, method string, req mcp.Request) (domain.Token, error) {
	if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
		if tok, ok := ex.TokenInfo.Extra[tokenInfoKey].(domain.Token); ok {
			return tok, nil
		}
	}
	s.mu.Lock()
	secret := s.stdio
	s.mu.Unlock()
	if secret == "" {
		return domain.Token{}, &jsonrpc.Error{Code: CodeUnauthorized, Message: "unauthorized: no API token"}
	}
	tok, err := s.cfg.Tokens.Authenticate(ctx, secret, "MCP", method)
	switch {
	case errors.Is(err, domain.ErrTokenRevoked):
		return tok, &jsonrpc.Error{Code: CodeUnauthorized, Message: "unauthorized: the API token has been revoked"}
	case errors.Is(err, library.ErrNotFound):
		return tok, &jsonrpc.Error{Code: CodeUnauthorized, Message: "unauthorized: the API token is not valid"}
	case err != nil:
		return tok, rpcError(err)
	}
	return tok, nil
}

// rpcError is err as a JSON-RPC error: a *library.Error of the request
// (invalid, not found) is invalid params with its code, module,
// placeholder or field and message (library.Error's text); anything else
// is an internal error with its text.
func rpcError(err error) error {
	var le *library.Error
	if errors.As(err, &le) && (errors.Is(le.KindOf(), library.ErrInvalid) || errors.Is(le.KindOf(), library.ErrNotFound)) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: le.Error()}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

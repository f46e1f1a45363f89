package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// tokenInfoKey is the key of the domain.Token in the SDK's TokenInfo.Extra.
const tokenInfoKey = "promptdesk.token"

// SessionTimeout is how long an HTTP session may stay without a request
// before it is closed (a client then starts a new one).
const SessionTimeout = time.Hour

// WithToken returns ctx carrying tok, the token the web server
// authenticated for an HTTP request, which HTTPHandler hands to the SDK.
func WithToken(ctx context.Context, tok domain.Token) context.Context {
	return context.WithValue(ctx, tokenKey{}, tok)
}

// HTTPHandler is the streamable HTTP transport (one mcp.Server, sessions
// by Mcp-Session-Id) for requests whose context carries their token
// (WithToken): the token becomes the SDK's TokenInfo, so every request of
// a session must come with the token that opened it, and each method
// checks its scope (authorize). A request without one is 401.
func (s *Server) HTTPHandler() http.Handler {
	// The SDK's DNS-rebinding guard refuses a loopback connection whose
	// Host is not a loopback name, which is every request a TLS proxy on
	// the same host forwards; it is not needed here, since every request
	// needs a bearer token, which a rebinding page cannot send.
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.cfg.Logger, SessionTimeout: SessionTimeout, DisableLocalhostProtection: true})
	verify := func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		tok, ok := r.Context().Value(tokenKey{}).(domain.Token)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: tok.Scopes, UserID: strconv.FormatInt(tok.ID, 10), Extra: map[string]any{tokenInfoKey: tok}}, nil
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// ServeStdio runs one session on t (the process's stdin and stdout)
// for the API token secret, until the client closes it or ctx ends. The
// token is checked first, and again on every request (a revoked token is
// refused from then on). Errors: the token is unknown, revoked or holds
// neither ConnectScopes, or the transport's.
func (s *Server) ServeStdio(ctx context.Context, t mcp.Transport, secret string) error {
	tok, err := s.cfg.Tokens.Authenticate(ctx, secret, "MCP", "connect")
	switch {
	case errors.Is(err, domain.ErrTokenRevoked):
		return fmt.Errorf("the API token has been revoked: %w", library.ErrUnauthorized)
	case errors.Is(err, library.ErrNotFound):
		return fmt.Errorf("the API token is not valid: %w", library.ErrUnauthorized)
	case err != nil:
		return err
	case !slices.ContainsFunc(ConnectScopes, tok.Has):
		return fmt.Errorf("the API token %q (scopes: %v) holds neither %v, one of which MCP needs: %w", tok.Name, tok.Scopes, ConnectScopes, library.ErrForbidden)
	}
	s.mu.Lock()
	s.stdio = secret
	s.mu.Unlock()
	return s.mcp.Run(ctx, t)
}

// Run follows the change feed of what the runtime is served until ctx
// ends: each override or library module that changed has its prompt
// registered again (the SDK then sends notifications/prompts/list_changed)
// and its module resources announced as updated to the sessions
// subscribed to them (notifications/resources/updated: the URI with and
// without the change's locale); a library reload, or a feed reset, syncs
// every prompt.
func (s *Server) Run(ctx context.Context) {
	gen := s.gen
	for ctx.Err() == nil {
		changes, next, reset := s.cfg.Served.ChangesSince(ctx, gen, time.Minute)
		gen = next
		if reset {
			s.syncPrompts(nil)
			continue
		}
		var ids []string
		all := false
		for _, c := range changes {
			if c.Subject != state.ChangeOverride && c.Subject != state.ChangeLibrary {
				continue
			}
			if c.ID == "" {
				all = true
				continue
			}
			if !slices.Contains(ids, c.ID) {
				ids = append(ids, c.ID)
			}
			for _, uri := range []string{ModuleURI(c.ID, c.Locale), ModuleURI(c.ID, "")} {
				if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
					s.cfg.Logger.Warn("mcp: resource update notification failed", "uri", uri, "err", err)
				}
			}
		}
		switch {
		case all:
			s.syncPrompts(nil)
		case len(ids) > 0:
			s.syncPrompts(ids)
		}
	}
}

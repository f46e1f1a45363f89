package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// TokenAuthenticator checks an API token secret (*state.Tokens, from
// memory) and
// records its use by the request method and path.
type TokenAuthenticator interface {
	Authenticate(ctx context.Context, secret, method, path string) (domain.Token, error)
}

// tokenKey is the echo.Context key of the authenticated domain.Token.
const tokenKey = "promptdesk.apiToken"

// TokenActor is domain.TokenActor, the actor of the token called name.
func TokenActor(name string) string { return domain.TokenActor(name) }

// RequireToken is the authentication middleware of every /api/v1 route:
// the request must carry "Authorization: Bearer <token>" for an active
// token holding at least one of scopes. Without a token, or with an
// unknown or revoked one, it fails with 401 unauthorized and a
// "WWW-Authenticate: Bearer" header; with a token lacking the scope, 403
// forbidden naming the scope needed. On success the handler's request
// context carries the actor TokenActor(name) (domain.WithActor).
func RequireToken(auth TokenAuthenticator, scopes ...string) echo.MiddlewareFunc {
	if len(scopes) == 0 {
		panic("handlers.RequireToken: no scope")
	}
	need := strings.Join(scopes, `" or "`)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			unauthorized := func(msg string) error {
				c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="promptdesk"`)
				return &library.Error{Code: library.CodeUnauthorized, Field: "Authorization", Msg: msg}
			}
			h := c.Request().Header.Get(echo.HeaderAuthorization)
			if h == "" {
				return unauthorized(fmt.Sprintf(`this route needs an API token with scope "%s": send Authorization: Bearer <token> (create one with: promptdesk token add --scope %s NAME)`, need, scopes[0]))
			}
			scheme, secret, _ := strings.Cut(strings.TrimSpace(h), " ")
			secret = strings.TrimSpace(secret)
			if !strings.EqualFold(scheme, "Bearer") || secret == "" {
				return unauthorized("the Authorization header must be: Bearer <token>")
			}
			tok, err := auth.Authenticate(c.Request().Context(), secret, c.Request().Method, c.Request().URL.Path)
			switch {
			case errors.Is(err, domain.ErrTokenRevoked):
				return unauthorized("the API token has been revoked")
			case errors.Is(err, library.ErrNotFound):
				return unauthorized("the API token is not valid")
			case err != nil:
				return err
			}
			ok := false
			for _, s := range scopes {
				ok = ok || tok.Has(s)
			}
			if !ok {
				return &library.Error{Code: library.CodeForbidden, Field: "Authorization",
					Msg: fmt.Sprintf(`the API token %q (scopes: %s) lacks the scope "%s" that %s %s needs`,
						tok.Name, strings.Join(tok.Scopes, ", "), need, c.Request().Method, c.Path())}
			}
			c.Set(tokenKey, tok)
			c.SetRequest(c.Request().WithContext(domain.WithActor(c.Request().Context(), TokenActor(tok.Name))))
			return next(c)
		}
	}
}

// APIToken returns the token RequireToken accepted for this request.
func APIToken(c echo.Context) (domain.Token, bool) {
	tok, ok := c.Get(tokenKey).(domain.Token)
	return tok, ok
}

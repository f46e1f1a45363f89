package handlers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/views/tokenpage"
)

// TokenService is what the tokens page needs (*state.Tokens, which the
// API checks tokens with, so that a revoked token is refused at once).
type TokenService interface {
	List(ctx context.Context) ([]domain.Token, error)
	Create(ctx context.Context, name string, scopes []string) (domain.Token, string, error)
	Revoke(ctx context.Context, name string) (domain.Token, error)
}

// Tokens is the admins' API tokens page: list, create (the secret shown
// once), revoke. Creating and revoking are audited with the logged-in
// admin as the actor.
type Tokens struct {
	Tokens TokenService
}

// tokenTime is how the tokens page shows a time.
const tokenTime = "2006-01-02 15:04 UTC"

// List handles GET /tokens.
func (h *Tokens) List(c echo.Context) error {
	return h.render(c, http.StatusOK, tokenpage.Model{Flash: flashFor(c)})
}

func (h *Tokens) render(c echo.Context, status int, m tokenpage.Model) error {
	list, err := h.Tokens.List(c.Request().Context())
	if err != nil {
		return err
	}
	for _, t := range list {
		r := tokenpage.Row{Name: t.Name, Prefix: t.Prefix, Scopes: strings.Join(t.Scopes, ", "),
			Created: t.CreatedAt.UTC().Format(tokenTime), LastUsed: "never"}
		if t.LastUsedAt != nil {
			r.LastUsed = t.LastUsedAt.UTC().Format(tokenTime)
		}
		if t.RevokedAt != nil {
			r.Revoked = t.RevokedAt.UTC().Format(tokenTime)
		}
		m.Tokens = append(m.Tokens, r)
	}
	m.Scopes = slices.Concat(domain.Scopes, domain.Flags)
	return Render(c, status, tokenpage.Page(m))
}

// Create handles POST /tokens (name, scope…): the page then shows the new
// token's secret, once. A taken name answers 409, a name breaking
// library.NameProblem or no scope 422, with the form kept and the error
// next to its field.
func (h *Tokens) Create(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	f := tokenpage.Form{Name: strings.TrimSpace(form.Get("name")), Scopes: form["scope"]}
	if p := library.NameProblem(f.Name); p != "" {
		f.NameError = "Name: " + p + "."
	}
	if len(f.Scopes) == 0 {
		f.ScopeError = "Choose at least one scope."
	}
	if f.NameError != "" || f.ScopeError != "" {
		return h.render(c, http.StatusUnprocessableEntity, tokenpage.Model{Form: f})
	}
	tok, secret, err := h.Tokens.Create(c.Request().Context(), f.Name, f.Scopes)
	switch {
	case errors.Is(err, library.ErrConflict):
		f.NameError = "A token called " + f.Name + " exists already (revoked tokens keep their names)."
		return h.render(c, http.StatusConflict, tokenpage.Model{Form: f})
	case errors.Is(err, library.ErrInvalid):
		f.ScopeError = errorText(err)
		return h.render(c, http.StatusUnprocessableEntity, tokenpage.Model{Form: f})
	case err != nil:
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return h.render(c, http.StatusOK, tokenpage.Model{Created: &tokenpage.Created{Name: tok.Name, Secret: secret}})
}

// Revoke handles POST /tokens/revoke (name): from then on the API answers
// 401 to the token. Revoking it again changes nothing and says so in the
// tokens page's flash.
func (h *Tokens) Revoke(c echo.Context) error {
	_, err := h.Tokens.Revoke(c.Request().Context(), c.FormValue("name"))
	if again := (*domain.AlreadyRevoked)(nil); errors.As(err, &again) {
		setFlash(c, again.Error()+"; nothing changed.")
		return seeOther(c, "/tokens")
	} else if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/tokens")
}

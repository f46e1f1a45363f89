package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/promptdesk/promptdesk/domain"
)

// tokenAdd creates an API token and prints it once, with a curl hint.
func (a *app) tokenAdd(ctx context.Context) error {
	base, err := a.consoleURL(a.cli.Token.Add.URL)
	if err != nil {
		return err
	}
	st, closeStore, err := a.openStore(ctx, a.logger())
	if err != nil {
		return err
	}
	defer closeStore()
	tok, secret, err := st.CreateToken(domain.WithActor(ctx, cliActor), a.cli.Token.Add.Name, a.cli.Token.Add.Scope)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "API token %s (scopes: %s), shown only this once:\n%s\n", tok.Name, strings.Join(tok.Scopes, ","), secret)
	path, ok := tryPath(tok)
	if !ok {
		fmt.Fprintln(a.stdout, "It changes overrides (PUT, publish, DELETE under /api/v1/overrides); it reads nothing, so there is no GET to try it with.")
		return nil
	}
	hint := "Try it (a console on another address: --url)"
	if a.cli.Token.Add.URL != "" {
		hint = "Try it"
	}
	fmt.Fprintf(a.stdout, "%s: curl -H \"Authorization: Bearer %s\" %s%s\n", hint, secret, base, path)
	return nil
}

// tryPath is a GET route tok's scopes allow, for the printed curl hint;
// false for a token that can only write (every GET needs another scope).
func tryPath(tok domain.Token) (string, bool) {
	switch {
	case tok.Has(domain.ScopeRead):
		return "/api/v1/modules", true
	case tok.Has(domain.ScopeAssemble):
		return "/api/v1/commands", true
	case tok.Has(domain.ScopeAdmin):
		return "/api/v1/webhooks", true
	}
	return "", false
}

// tokenList prints every API token, revoked ones included.
func (a *app) tokenList(ctx context.Context) error {
	st, closeStore, err := a.openStore(ctx, a.logger())
	if err != nil {
		return err
	}
	defer closeStore()
	list, err := st.ListTokens(ctx)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "no API tokens; create one with: promptdesk token add --scope assemble NAME")
		return nil
	}
	when := func(t *time.Time, none string) string {
		if t == nil {
			return none
		}
		return t.UTC().Format(time.RFC3339)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tPREFIX\tSCOPES\tCREATED\tLAST USED\tREVOKED")
	for _, t := range list {
		fmt.Fprintf(w, "%s\t%s…\t%s\t%s\t%s\t%s\n", t.Name, t.Prefix, strings.Join(t.Scopes, ","),
			t.CreatedAt.UTC().Format(time.RFC3339), when(t.LastUsedAt, "never"), when(t.RevokedAt, "-"))
	}
	return w.Flush()
}

// tokenRevoke revokes an API token by name.
func (a *app) tokenRevoke(ctx context.Context) error {
	st, closeStore, err := a.openStore(ctx, a.logger())
	if err != nil {
		return err
	}
	defer closeStore()
	tok, err := st.RevokeToken(domain.WithActor(ctx, cliActor), a.cli.Token.Revoke.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "API token %s (%s…) revoked\n", tok.Name, tok.Prefix)
	return nil
}

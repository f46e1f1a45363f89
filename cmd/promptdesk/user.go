package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/state"
)

// userAdd prints a one-time setup link for a new user, issued by
// state.Accounts as the users page issues it.
func (a *app) userAdd(ctx context.Context) error {
	st, closeStore, err := a.openStore(ctx, a.logger())
	if err != nil {
		return err
	}
	defer closeStore()
	c := a.cli.User.Add
	base, err := a.consoleURL(c.URL)
	if err != nil {
		return err
	}
	accounts := &state.Accounts{Store: st}
	secret, err := accounts.Invite(domain.WithActor(ctx, cliActor), c.Name, c.Role)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Setup link for %s (%s), valid for %s and usable once:\n%s\n",
		strings.TrimSpace(c.Name), c.Role, domain.SetupTTL, handlers.SetupURL(base, secret))
	return nil
}

// consoleURL is the base URL printed links point at: raw when given
// (--url, PROMPTDESK_URL), else http://<serve --addr as PROMPTDESK_ADDR
// sets it>. Subcommands other than serve do not parse serve's flags.
// Errors: raw is not an http(s) URL with a host, or has a query or
// fragment.
func (a *app) consoleURL(raw string) (string, error) {
	if raw == "" {
		addr := a.cli.Serve.Addr
		if addr == "" {
			addr = "127.0.0.1:8080"
		}
		return "http://" + addr, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("--url %q: want the console's base URL, http(s)://host[:port][/path], without user, query or fragment", raw)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

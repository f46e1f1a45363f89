package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/store"
)

// userAdd prints a one-time setup link for a new user.
func (a *app) userAdd(ctx context.Context) error {
	st, closeStore, err := a.openStore(ctx, a.logger())
	if err != nil {
		return err
	}
	defer closeStore()
	c := a.cli.User.Add
	secret, err := st.CreateSetupToken(store.WithActor(ctx, cliActor), c.Name, c.Role)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Setup link for %s (%s), valid for %s and usable once:\n%s\n",
		strings.TrimSpace(c.Name), c.Role, store.SetupTTL, handlers.SetupURL(a.consoleURL(c.URL), secret))
	return nil
}

// consoleURL is the base URL printed links point at: url when given
// (--url, PROMPTDESK_URL), else http://<serve --addr as PROMPTDESK_ADDR
// sets it>. Subcommands other than serve do not parse serve's flags.
func (a *app) consoleURL(url string) string {
	if url != "" {
		return strings.TrimSuffix(url, "/")
	}
	addr := a.cli.Serve.Addr
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	return "http://" + addr
}

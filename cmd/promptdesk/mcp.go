package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/promptdesk/promptdesk/library/lint"
	"github.com/promptdesk/promptdesk/mcpserver"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/web"
)

// mcpStdio serves MCP on stdin and stdout for one local client (Claude
// Desktop, an editor): the same server as serve's /mcp, on the same
// database and library settings, for the API token of --token or
// PROMPTDESK_TOKEN (its scopes decide what the client may do, as over
// HTTP). It follows the changes other processes make (publishes reach
// the client as notifications) until the client closes stdin or the
// process is interrupted. The log goes to stderr; stdout is the protocol.
func (a *app) mcpStdio(ctx context.Context) error {
	secret := a.cli.MCP.Token
	if secret == "" {
		return errors.New("mcp needs an API token: set PROMPTDESK_TOKEN or --token (create one with: promptdesk token add --scope assemble,read NAME; add write for save_draft)")
	}
	log := a.logger()
	asm, err := a.assembler(true, nil)
	if err != nil {
		return err
	}
	lib, err := a.library(log)
	if err != nil {
		return err
	}
	if err := fallbackLabels(lib.Current().Snapshot, asm.FallbackLocale()); err != nil {
		return err
	}
	st, closeStore, err := a.openStore(ctx, log)
	if err != nil {
		return err
	}
	defer closeStore()
	served, err := state.Open(ctx, lib, st, log)
	if err != nil {
		return err
	}
	tokens, err := state.OpenTokens(ctx, st, log, served.Unreachable)
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(mcpserver.Config{
		Served:    served,
		Assembler: asm,
		Assembly:  &state.Assembly{Served: served, Assembler: asm, Revisions: st},
		Overrides: &state.Overrides{Store: st, Served: served, Assembler: asm, Log: log, Checklist: lint.Lint},
		Tokens:    tokens,
		Logger:    log,
	})
	if err != nil {
		return err
	}
	follow, stop := context.WithCancel(ctx)
	var loops sync.WaitGroup
	defer func() {
		stop()
		loops.Wait()
		tokens.Flush(context.WithoutCancel(ctx))
	}()
	loops.Go(func() { web.FollowChanges(follow, st, served, tokens, web.DefaultRefresh, log, nil) })
	loops.Go(func() { srv.Run(follow) })
	loops.Go(func() {
		if err := lib.Run(follow); err != nil {
			log.Error("library folder: not watched; restart to see changes", "err", err)
		}
	})
	if err := srv.ServeStdio(ctx, &mcp.StdioTransport{}, secret); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

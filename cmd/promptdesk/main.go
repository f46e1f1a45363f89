// Command promptdesk runs the promptdesk console and runtime API (serve),
// migrates its database (migrate), assembles a request from the shell
// (assemble), moves overrides in and out as module files (export,
// import), converts other systems' prompt files into modules (import
// --from skills|maibot|weknora|jinja-index|claude-code, docs/importers.md), lints
// module files (lint, docs/lint.md), manages API tokens (token add, list,
// revoke) and users (user add), prints its effective configuration
// (config), checks saved scenarios against what
// is served (scenarios check, accept), serves MCP on stdio for a
// local assistant (mcp), and keeps the porting ledger of borrowed prompt
// catalogues (ledger list, decide, sync, export). See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // IANA zones for requests, also in distroless images
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if code := exitStatus(err); code != 0 {
		fmt.Fprintln(os.Stderr, "promptdesk:", err)
		os.Exit(code)
	}
}

// exitError is an error that asks for a particular exit status (lint's 2
// for warnings only); every other error exits 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func (e *exitError) Unwrap() error { return e.err }

// exitStatus is the process exit status for run's error: 0 for none or
// help printed, the code of an exitError, else 1.
func exitStatus(err error) int {
	var ee *exitError
	switch {
	case err == nil || errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ee):
		return ee.code
	}
	return 1
}

// run parses args and runs one subcommand until ctx is cancelled.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cli, kctx, command, err := parse(args, stdout, stderr)
	if err != nil {
		return err
	}
	a := &app{cli: cli, stdout: stdout, stderr: stderr}
	switch command {
	case "serve":
		return a.serve(ctx)
	case "config":
		return a.printConfig(kctx)
	case "migrate":
		return a.migrate(ctx)
	case "assemble":
		return a.assemble(ctx)
	case "export":
		return a.export(ctx)
	case "import":
		return a.importModules(ctx)
	case "lint":
		return a.lint()
	case "user add":
		return a.userAdd(ctx)
	case "token add":
		return a.tokenAdd(ctx)
	case "token list":
		return a.tokenList(ctx)
	case "token revoke":
		return a.tokenRevoke(ctx)
	case "mcp":
		return a.mcpStdio(ctx)
	case "scenarios check":
		return a.scenariosCheck(ctx)
	case "scenarios accept":
		return a.scenariosAccept(ctx)
	case "ledger list":
		return a.ledgerList(ctx)
	case "ledger decide":
		return a.ledgerDecide(ctx)
	case "ledger sync":
		return a.ledgerSync(ctx)
	case "ledger export":
		return a.ledgerExport(ctx)
	}
	return fmt.Errorf("unknown command %q", command)
}

package web

import (
	"context"
	"log/slog"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
)

// LoadState reads the operator state (overrides and profiles) once, built
// exactly as the server's in-memory overlay builds it, for one-shot
// assembly such as the CLI's `assemble`. Overrides that no longer
// parse are logged and left out. Errors are the store's.
func LoadState(ctx context.Context, st *store.Store, lib *library.Snapshot, log *slog.Logger) (*assembler.State, error) {
	o := handlers.NewOverlay(reload.Fixed(lib), st, log)
	if err := o.Rebuild(ctx); err != nil {
		return nil, err
	}
	return o.Current().State, nil
}

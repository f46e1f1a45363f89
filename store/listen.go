package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The listener's reconnect backoff (capped low: once the database is back,
// changes must reach this process within a second), and how long it waits for a
// notification before checking that its connection is still alive (a
// dead peer is not always noticed by a blocked read).
const (
	listenMinBackoff = 100 * time.Millisecond
	listenMaxBackoff = 500 * time.Millisecond
	listenIdleCheck  = time.Minute
	listenPingWait   = 10 * time.Second
	// listenConnectWait bounds one connection attempt when the URL sets no
	// connect_timeout: while the database host drops packets (rather than
	// refusing), an attempt would otherwise hang for the system's TCP
	// timeout, minutes after the database is back.
	listenConnectWait = 2 * time.Second
)

// Listen announces every change committed by any promptdesk process on this
// database, so that every process serves it within a second: it holds a
// dedicated connection (not one of the pool's) running LISTEN on
// ChangesChannel and calls onChange with each notification's Change, in
// order, on Listen's goroutine; a slow onChange delays the next call, so it
// should only hand the news on.
//
// The zero Change means "reload everything": after each successful
// LISTEN, the first included, onChange is called once with it, since
// changes made while no connection was listening (before Listen started,
// or while it reconnected) may have been missed; a payload that is not a
// Change is handed on as the zero Change too (and reported to onError).
// When the connection is lost Listen reconnects with a backoff (100 ms
// doubling up to 500 ms), calling onError (when not nil) with each failure;
// it never gives up.
//
// Listen returns nil when ctx is cancelled, and an error only when it
// cannot run at all (called on the Store handed to WithTx's function).
func (s *Store) Listen(ctx context.Context, onChange func(Change), onError func(error)) error {
	if s.pool == nil {
		return errors.New("store: listen: not available inside a transaction")
	}
	cfg := s.pool.Config().ConnConfig.Copy()
	name := "promptdesk listen"
	if app := cfg.RuntimeParams["application_name"]; app != "" {
		name = app + " (listen)"
	}
	cfg.RuntimeParams["application_name"] = name
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = listenConnectWait
	}

	backoff := listenMinBackoff
	for {
		err := s.listenOnce(ctx, cfg, onChange, onError, func() { backoff = listenMinBackoff })
		if ctx.Err() != nil {
			return nil
		}
		if onError != nil {
			onError(fmt.Errorf("store: listen: %w (retrying in %s)", err, backoff))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, listenMaxBackoff)
	}
}

// listenOnce connects, LISTENs, calls listened and onChange(Change{}),
// then hands on notifications until the connection fails or ctx ends; it
// always returns an error (ctx's when cancelled).
func (s *Store) listenOnce(ctx context.Context, cfg *pgx.ConnConfig, onChange func(Change), onError func(error), listened func()) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ChangesChannel}.Sanitize()); err != nil {
		return err
	}
	listened()
	onChange(Change{})
	for {
		waitCtx, cancel := context.WithTimeout(ctx, listenIdleCheck)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			var ch Change
			if err := json.Unmarshal([]byte(n.Payload), &ch); err != nil {
				ch = Change{}
				if onError != nil {
					onError(fmt.Errorf("store: listen: payload %q: %w (reloading everything)", n.Payload, err))
				}
			}
			onChange(ch)
		case ctx.Err() != nil:
			return ctx.Err()
		case waitCtx.Err() != nil && !conn.IsClosed():
			// Quiet for a while: make sure the server is still there.
			pingCtx, cancel := context.WithTimeout(ctx, listenPingWait)
			err := conn.Ping(pingCtx)
			cancel()
			if err != nil {
				return fmt.Errorf("connection check: %w", err)
			}
		default:
			return err
		}
	}
}

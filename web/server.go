// Package web is promptdesk's HTTP server (console and runtime API): configuration, the
// middleware stack, the single route table and the one error handler that
// maps domain errors to statuses and renders a page or JSON.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library/lint"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/mcpserver"
	"github.com/promptdesk/promptdesk/metrics"
	"github.com/promptdesk/promptdesk/sealed"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/webhook"
)

// Config is what the server is built from. Every field is required except
// Logger (default slog.Default()), Now (default time.Now) and Refresh
// (default DefaultRefresh).
type Config struct {
	// Addr is the listen address, e.g. "127.0.0.1:8080"; port 0 picks a
	// free port (tests).
	Addr   string
	Logger *slog.Logger
	Store  *store.Store
	// Library is the library that serves: reload.Fixed for the embedded
	// one, reload.New for a library folder, which Start watches
	// (docs/library-folder.md).
	Library   *reload.Library
	Assembler *assembler.Assembler
	// Now is the clock of previews whose request sets no "now".
	Now func() time.Time
	// SecureCookies marks the session and CSRF cookies Secure: set it
	// when the console is reached over HTTPS (a TLS proxy in front).
	SecureCookies bool
	// Refresh is the period of the full reload of the operator state and
	// the API tokens that catches changes whose notification was missed.
	Refresh time.Duration
	// Metrics, when set, records every request (method, route template,
	// status, duration) and reads the served state, the token cache and
	// the database pool at each scrape (metrics.Metrics.Watch).
	Metrics *metrics.Metrics
	// MetricsAddr, when set, is the listen address of a second server
	// answering GET /metrics (Prometheus) from Metrics, which it needs;
	// "" serves no metrics. Port 0 picks a free port (tests).
	MetricsAddr string
	// Timeouts of the HTTP server (http.Server's fields of the same
	// names); zero takes the Default ones.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// DatabaseTimeout bounds the work of one request, its database calls
	// above all: a database that accepts connections but never answers
	// (a frozen server) makes the request fail as unavailable (503) after
	// it instead of hanging; zero takes DefaultDatabaseTimeout. The change
	// feed's long poll is not bounded by it.
	DatabaseTimeout time.Duration
	// Webhooks is how webhook deliveries are attempted; zero fields take
	// webhook.DefaultPolicy's.
	Webhooks webhook.Policy
	// SecretKeys seal the webhook secrets stored; New seals again the
	// ones stored in plain text or under a previous key. Nil: no endpoint
	// can be added, and New fails when some exist.
	SecretKeys *sealed.Keyring
	// ChangeReview turns change review on (state.Overrides.Review): a
	// serving change waits for another editor's approval.
	ChangeReview bool
	// MCPPageSize is the most prompts one MCP prompts/list answer holds;
	// zero takes mcpserver.DefaultPageSize.
	MCPPageSize int
}

// DefaultRefresh is Config.Refresh when unset.
const DefaultRefresh = 30 * time.Second

// Default server timeouts: a client has DefaultReadTimeout to send a
// request, headers and body (so a client trickling its body is cut off),
// the server DefaultWriteTimeout to answer it, and an idle keep-alive
// connection is closed after DefaultIdleTimeout.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 10 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
)

// DefaultDatabaseTimeout is Config.DatabaseTimeout when unset.
const DefaultDatabaseTimeout = 10 * time.Second

// sessionCleanup is the period of deleting expired console sessions.
const sessionCleanup = 30 * time.Minute

// Server is the console and API server. Create it with New, then Start;
// Close shuts it down.
type Server struct {
	cfg       Config
	log       *slog.Logger
	echo      *echo.Echo
	handler   http.Handler // echo, with HEAD served as GET
	served    *state.Served
	overrides *state.Overrides
	profiles  *state.Profiles
	scenarios *state.Scenarios
	ledger    *state.Ledger
	assembly  *state.Assembly
	tokens    *state.Tokens
	accounts  *state.Accounts
	webhooks  *webhook.Webhooks
	mcp       *mcpserver.Server
	http      *http.Server
	metrics   *http.Server // nil without Config.MetricsAddr

	sessionManager *scs.SessionManager
	auth           *handlers.Auth

	mu              sync.Mutex
	listener        net.Listener
	metricsListener net.Listener
	stop            context.CancelFunc // ends the refresh loop and the listener
	loops           sync.WaitGroup
	// closing is closed by Close, ending the change feed's waits.
	closing     chan struct{}
	closingOnce sync.Once
}

// New builds the server: it loads the operator state into the in-memory
// overlay and seeds the example scenarios (assembler.Examples) when the
// scenarios table is empty (state.Scenarios.Seed). Errors: a missing Config
// field, or the store's.
func New(ctx context.Context, cfg Config) (*Server, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("web: Config.Store is required")
	case cfg.Library == nil:
		return nil, errors.New("web: Config.Library is required")
	case cfg.Assembler == nil:
		return nil, errors.New("web: Config.Assembler is required")
	case cfg.MetricsAddr != "" && cfg.Metrics == nil:
		return nil, errors.New("web: Config.MetricsAddr needs Config.Metrics")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout}, {&cfg.ReadTimeout, DefaultReadTimeout}, {&cfg.WriteTimeout, DefaultWriteTimeout}, {&cfg.IdleTimeout, DefaultIdleTimeout}, {&cfg.DatabaseTimeout, DefaultDatabaseTimeout}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	s := &Server{cfg: cfg, log: cfg.Logger, closing: make(chan struct{})}
	served, err := state.Open(ctx, cfg.Library, cfg.Store, cfg.Logger)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.served = served
	if s.tokens, err = state.OpenTokens(ctx, cfg.Store, cfg.Logger, served.Unreachable); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.webhooks = webhook.New(cfg.Store, cfg.SecretKeys, cfg.Logger, cfg.Webhooks)
	n, err := s.webhooks.Reseal(ctx)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	if n > 0 {
		s.log.Info("webhook secrets encrypted under the current key", "endpoints", n, "key", cfg.SecretKeys.ID())
	}
	s.overrides = &state.Overrides{Store: cfg.Store, Served: served, Assembler: cfg.Assembler, Log: cfg.Logger, Outbox: s.webhooks, Checklist: lint.Lint,
		Review: cfg.ChangeReview}
	s.profiles = &state.Profiles{Store: cfg.Store, Served: served}
	s.assembly = &state.Assembly{Served: served, Assembler: cfg.Assembler, Revisions: cfg.Store, Requests: cfg.Store}
	s.scenarios = &state.Scenarios{Store: cfg.Store, Served: served, Assembler: cfg.Assembler, Now: cfg.Now}
	s.ledger = &state.Ledger{Store: cfg.Store, Exists: func(id string) bool { return served.Current().Exists(id) }}
	// Under a lock: processes starting together on an empty database
	// seed once.
	if err := cfg.Store.WithLock(ctx, "seed", func() error { return s.scenarios.Seed(domain.WithActor(ctx, "system")) }); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	// Expired sessions are deleted by startRefresh.
	s.sessionManager = handlers.NewSessions(cfg.Store.Sessions(), cfg.SecureCookies)
	// A session that cannot be loaded or saved (the database is
	// unreachable) gets the error page of every other failure, not scs's
	// plain-text 500.
	s.sessionManager.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		s.handleError(err, s.echo.NewContext(r, w))
	}
	if s.mcp, err = mcpserver.New(mcpserver.Config{Served: served, Assembler: cfg.Assembler, Assembly: s.assembly, Overrides: s.overrides,
		Tokens: s.tokens, Now: cfg.Now, Logger: cfg.Logger, PageSize: cfg.MCPPageSize}); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.accounts = &state.Accounts{Store: cfg.Store}
	s.auth = &handlers.Auth{Accounts: s.accounts, Sessions: s.sessionManager, Log: cfg.Logger}
	s.echo = s.newEcho()
	s.handler = &headAsGet{next: s.echo}
	if cfg.Metrics != nil {
		cfg.Metrics.Watch(s.metricsState, cfg.Store.Pool().Stat, time.Now)
	}
	return s, nil
}

// metricsState is what metrics.Metrics reads of the served state at
// each scrape. Drifted counts the published overrides the drift list
// shows.
func (s *Server) metricsState() metrics.State {
	v := s.served.Current()
	m := metrics.State{
		Generation:        v.ServedGeneration,
		LibraryGeneration: v.Library.Generation,
		Overrides:         v.State.Overrides.Len(),
		Drafts:            v.Drafts.Len(),
		Broken:            v.Broken.Len(),
		LastNotification:  s.served.LastNotification(),
		TokensLoadedAt:    s.tokens.LoadedAt(),
	}
	for key, r := range v.Rows.All() {
		if v.Drift(key.ID, r.Locale).Drifted() {
			m.Drifted++
		}
	}
	if since, stale := s.served.StaleSince(); stale {
		m.StaleSince = since
	}
	return m
}

// Handler returns the server's http.Handler, for httptest.
func (s *Server) Handler() http.Handler { return s.handler }

// Start listens on Config.Addr and serves in the background until Close.
// It also keeps the in-memory state current with the other processes on
// the same database: it listens for their change notifications
// (store.Listen) and reads the override or profile each names (its own
// writes it has applied already, and skips), and reads everything again
// every Config.Refresh; and it
// watches a library folder (Config.Library's Run), rebuilding after each
// reload. It delivers webhooks and watches for drift (package webhook).
// Errors:
// the address cannot be listened on, or Start was called twice.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listener != nil {
		return errors.New("web: server already started")
	}
	if s.cfg.Addr == "" {
		return errors.New("web: Config.Addr is empty")
	}
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("web: listen: %w", err)
	}
	if s.cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", s.cfg.MetricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("web: metrics: listen: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET "+metrics.Path, s.cfg.Metrics.Handler())
		s.metricsListener, s.metrics = mln, s.httpServer(mux)
		go s.serve(s.metrics, mln, "metrics server stopped")
		s.log.Info("serving metrics", "url", "http://"+mln.Addr().String()+metrics.Path)
	}
	s.listener = ln
	s.http = s.httpServer(s.handler)
	go s.serve(s.http, apiErrorListener{ln}, "http server stopped")
	s.startRefresh()
	s.log.Info("listening", "url", s.url())
	return nil
}

// httpServer is an http.Server for h with the configured timeouts.
func (s *Server) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// serve runs srv on ln until it is shut down, logging msg if it stops
// otherwise.
func (s *Server) serve(srv *http.Server, ln net.Listener, msg string) {
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Error(msg, "err", err)
	}
}

// startRefresh starts the overlay's refresh loop, the change listener and
// the library folder's watcher that feed it; Close stops them. s.mu is
// held.
func (s *Server) startRefresh() {
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.loops.Go(func() {
		FollowChanges(ctx, s.cfg.Store, s.served, s.tokens, s.cfg.Refresh, s.log, func(ch store.Change) {
			if s.cfg.Metrics != nil {
				s.cfg.Metrics.Notified(ch.At, time.Now())
			}
		})
	})
	s.loops.Go(func() { s.mcp.Run(ctx) })
	s.loops.Go(func() { s.webhooks.Run(ctx) })
	s.loops.Go(func() { s.webhooks.WatchDrift(ctx, s.served) })
	s.loops.Go(func() {
		tick := time.NewTicker(sessionCleanup)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if _, err := s.cfg.Store.DeleteExpiredSessions(ctx); err != nil && ctx.Err() == nil {
					s.log.Warn("deleting expired sessions failed", "err", err)
				}
			}
		}
	})
	s.loops.Go(func() {
		if err := s.cfg.Library.Run(ctx); err != nil {
			s.log.Error("library folder: not watched; restart to see changes", "err", err)
		}
	})
}

// FollowChanges keeps served and tokens current with the database until
// ctx ends, as every process serving from memory must (the server, and
// `promptdesk mcp`): it listens for the change notifications of every
// process (store.Listen) and reads the override or profile each names
// (its own writes it has applied already, and skips), reloads the tokens
// when one is created or revoked, and reads everything again every
// refresh. notified (may be nil) is told each notification.
func FollowChanges(ctx context.Context, st *store.Store, served *state.Served, tokens *state.Tokens, refresh time.Duration, log *slog.Logger, notified func(store.Change)) {
	var loops sync.WaitGroup
	defer loops.Wait()
	loops.Go(func() { served.Run(ctx, refresh) })
	loops.Go(func() { tokens.Run(ctx, refresh) })
	onChange := func(ch store.Change) {
		if ch == (store.Change{}) {
			log.Debug("listening for changes; reloading in case some were missed")
			served.Changed()
			tokens.Changed()
			return
		}
		log.Debug("change notified", "subject", ch.Subject, "id", ch.ID, "locale", ch.Locale, "revision", ch.Revision)
		served.Notified()
		if notified != nil {
			notified(ch)
		}
		switch {
		case ch.Subject == domain.SubjectToken:
			tokens.Changed()
		case ch.Origin != "" && ch.Origin == served.Origin():
			// A write of this process, which it serves already.
		case ch.Subject == domain.SubjectOverride:
			served.ChangedOverride(ch.ID, ch.Locale)
		case ch.Subject == domain.SubjectProfile:
			served.ChangedProfile(ch.ID)
		default:
			served.Changed()
		}
	}
	onError := func(err error) {
		if ctx.Err() != nil {
			return
		}
		served.Unreachable(err)
		log.Warn("change notifications interrupted", "err", err)
	}
	if err := st.Listen(ctx, onChange, onError); err != nil {
		log.Error("change notifications unavailable; relying on the periodic refresh", "err", err)
	}
}

// Addr is the address the server listens on ("127.0.0.1:43127"), or ""
// before Start.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listener == nil {
		return ""
	}
	return s.listener.Addr().String()
}

// URL is the server's base URL ("http://127.0.0.1:43127"), or "" before
// Start.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url()
}

// MetricsURL is the URL of the metrics ("http://127.0.0.1:9464/metrics"),
// or "" before Start or without Config.MetricsAddr.
func (s *Server) MetricsURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.metricsListener == nil {
		return ""
	}
	return "http://" + s.metricsListener.Addr().String() + metrics.Path
}

func (s *Server) url() string {
	if s.listener == nil {
		return ""
	}
	return "http://" + s.listener.Addr().String()
}

// loopsStopWait bounds how long Close waits for the background loops
// once they are told to stop.
const loopsStopWait = 5 * time.Second

// Close stops accepting requests and waits for the ones in flight until
// ctx ends (graceful shutdown); requests still running then are cut off
// (their connections closed; logged, not an error). Then it stops the
// loops of Start: refresh, token loading and use recording, change
// listener, session cleanup, library folder watcher, webhook delivery
// and drift watching. It does not close
// the Store. Errors: the loops did not stop within 5 s.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	srv, metricsSrv, stop := s.http, s.metrics, s.stop
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	s.closingOnce.Do(func() { close(s.closing) })
	if err := srv.Shutdown(ctx); err != nil {
		s.log.Warn("shutdown: requests still running at the deadline were cut off")
		_ = srv.Close()
	}
	if metricsSrv != nil {
		_ = metricsSrv.Close() // a scrape is short; its answer may be lost
	}
	stop()
	flush, cancel := context.WithTimeout(context.Background(), time.Second)
	s.tokens.Flush(flush)
	cancel()
	loopsDone := make(chan struct{})
	go func() { s.loops.Wait(); close(loopsDone) }()
	select {
	case <-loopsDone:
		return nil
	case <-time.After(loopsStopWait):
		return fmt.Errorf("web: shutdown: the background loops did not stop within %s", loopsStopWait)
	}
}

// FirstSetupLink returns a one-time link (valid domain.SetupTTL) to create
// the first admin when there are no users yet and no such link is pending
// (state.Accounts.FirstAdminLink: once per database, whichever processes
// start together). When a first-admin link is pending already link is ""
// and pending describes it; both are zero when there are users. Call it
// after Start: the link is on the server's URL.
func (s *Server) FirstSetupLink(ctx context.Context) (link string, pending *domain.SetupLinkInfo, err error) {
	secret, pending, err := s.accounts.FirstAdminLink(ctx)
	if secret != "" {
		link = handlers.SetupURL(s.URL(), secret)
	}
	return link, pending, err
}

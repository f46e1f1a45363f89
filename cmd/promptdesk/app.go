package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/logthrottle"
	"github.com/promptdesk/promptdesk/metrics"
	"github.com/promptdesk/promptdesk/migrations"
	"github.com/promptdesk/promptdesk/sealed"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/pgcluster"
	"github.com/promptdesk/promptdesk/web"
	"github.com/promptdesk/promptdesk/webhook"
)

// app wires the parts in the order config → logger → Postgres →
// migrations → store → library → assembler → web.
type app struct {
	cli            *CLI
	stdout, stderr io.Writer
}

// logThrottle is how often at most one warning or error message is
// logged: a database outage fails every request alike.
const logThrottle = 10 * time.Second

func (a *app) logger() *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(a.cli.LogLevel))
	return slog.New(logthrottle.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}), logThrottle))
}

// database returns the URL to use: DATABASE_URL, or a private cluster
// under the data folder that stop shuts down again.
func (a *app) database(ctx context.Context, log *slog.Logger) (dbURL string, stop func(), err error) {
	if a.cli.DatabaseURL != "" {
		log.Info("postgres: using DATABASE_URL", "url", redacted(a.cli.DatabaseURL))
		return a.cli.DatabaseURL, func() {}, nil
	}
	cluster, err := pgcluster.Start(ctx, a.cli.DataDir, log)
	if err != nil {
		return "", nil, err
	}
	return cluster.URL("promptdesk"), func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cluster.Stop(stopCtx); err != nil {
			log.Error("postgres: stop", "err", err)
		}
	}, nil
}

// parts loads the library (embedded or --library, strictly: a broken
// file is an error) and builds the assembler from the settings; the
// one-shot commands that assemble need both.
func (a *app) parts(countTokens bool) (*library.Snapshot, *assembler.Assembler, error) {
	asm, err := a.assembler(countTokens, nil)
	if err != nil {
		return nil, nil, err
	}
	var snap *library.Snapshot
	if a.cli.Library != "" {
		snap, err = library.LoadDir(a.cli.Library)
	} else {
		snap, err = library.Builtin()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("library:\n%w", err)
	}
	if err := fallbackLabels(snap, asm.FallbackLocale()); err != nil {
		return nil, nil, err
	}
	return snap, asm, nil
}

// fallbackLabels checks that the library has labels for the fallback
// locale, which the assembler uses for every locale without labels. A
// library folder has the embedded labels of en-US and zh-CN unless it has
// its own, and the reloader never drops a label file without embedded
// labels to fall back on, so a locale that passes here keeps its labels
// while the server runs.
func fallbackLabels(snap *library.Snapshot, fallback string) error {
	if _, ok := snap.Labels(fallback); ok {
		return nil
	}
	return fmt.Errorf("--fallback-locale %s: the library has no labels for it (it has labels for %s); add labels/%s.yaml to the library folder, or choose one of those",
		fallback, strings.Join(snap.LabelLocales(), ", "), fallback)
}

// assembler builds the assembler from the settings; m (may be nil)
// records each assembly's timing.
func (a *app) assembler(countTokens bool, m *metrics.Metrics) (*assembler.Assembler, error) {
	loc, err := assembler.LoadZone(a.cli.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("--time-zone %w", err)
	}
	if a.cli.SkillBudget < 0 {
		return nil, fmt.Errorf("--skill-budget %d: the budget of the available skills is a number of tokens, 0 or more (0 is the default, %d)", a.cli.SkillBudget, assembler.DefaultSkillBudget)
	}
	cfg := assembler.Config{FallbackLocale: a.cli.FallbackLocale, TimeZone: loc, CountTokens: countTokens, SkillBudget: a.cli.SkillBudget}
	if m != nil {
		cfg.Observe = func(t assembler.Timing) { m.Assembly(t.Assemble, t.Tokens) }
	}
	return assembler.New(cfg), nil
}

// library is what serve serves: the embedded library, or the --library
// folder, which the server watches and reloads; a broken file there
// is logged and listed (console banner, /readyz) while the rest serves.
func (a *app) library(log *slog.Logger) (*reload.Library, error) {
	if a.cli.Library != "" {
		lib, err := reload.New(a.cli.Library, log)
		if err != nil {
			return nil, fmt.Errorf("library: %w", err)
		}
		return lib, nil
	}
	snap, err := library.Builtin()
	if err != nil {
		return nil, fmt.Errorf("library:\n%w", err)
	}
	return reload.Fixed(snap), nil
}

// openStore starts or reaches Postgres, migrates and opens the store.
func (a *app) openStore(ctx context.Context, log *slog.Logger) (*store.Store, func(), error) {
	dbURL, stopDB, err := a.database(ctx, log)
	if err != nil {
		return nil, nil, err
	}
	if err := migrations.Up(ctx, dbURL); err != nil {
		stopDB()
		return nil, nil, fmt.Errorf("migrate: %w", err)
	}
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		stopDB()
		return nil, nil, err
	}
	return st, func() { st.Close(); stopDB() }, nil
}

// openedStore is what openStore returned, passed from the goroutine that
// starts Postgres while the library loads.
type openedStore struct {
	st    *store.Store
	close func()
	err   error
}

func (a *app) serve(ctx context.Context) error {
	log := a.logger()
	cfg := a.cli.Serve
	var m *metrics.Metrics
	if cfg.MetricsAddr != "" {
		m = metrics.New()
	}
	asm, err := a.assembler(true, m)
	if err != nil {
		return err
	}
	// A library folder takes a while to load (seconds at 10,000
	// modules), so Postgres starts meanwhile; the embedded library loads
	// in milliseconds and is checked before anything starts.
	opened := make(chan openedStore, 1)
	startStore := func() {
		st, closeStore, err := a.openStore(ctx, log)
		opened <- openedStore{st, closeStore, err}
	}
	folder := a.cli.Library != ""
	if folder {
		go startStore()
	}
	lib, err := a.library(log)
	if err == nil {
		err = fallbackLabels(lib.Current().Snapshot, asm.FallbackLocale())
	}
	if err != nil {
		if folder {
			if o := <-opened; o.err == nil {
				o.close()
			}
		}
		return err
	}
	// While Postgres starts: the first request should not load the
	// tokenizer's vocabulary.
	go asm.Warm(lib.Current().Snapshot)
	if !folder {
		go startStore()
	}
	o := <-opened
	if o.err != nil {
		return o.err
	}
	defer o.close()
	st := o.st
	keys, err := a.secretKeys(log)
	if err != nil {
		return err
	}
	srv, err := web.New(ctx, web.Config{SecretKeys: keys, Addr: cfg.Addr, Logger: log, Store: st, Library: lib, Assembler: asm, Now: time.Now,
		SecureCookies: cfg.SecureCookies, Refresh: cfg.Refresh, Metrics: m, MetricsAddr: cfg.MetricsAddr,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout, ReadTimeout: cfg.ReadTimeout, WriteTimeout: cfg.WriteTimeout, IdleTimeout: cfg.IdleTimeout,
		DatabaseTimeout: cfg.DatabaseTimeout, Webhooks: webhook.Policy{PrivateNetworks: cfg.WebhookPrivate}})
	if errors.Is(err, webhook.ErrNoKey) {
		return fmt.Errorf("%w; start serve with the key they were encrypted with in PROMPTDESK_SECRET_KEY (docs/operating.md, \"The secret key\")", err)
	}
	var unknown *sealed.UnknownKeyError
	if errors.As(err, &unknown) {
		return fmt.Errorf("%w; give key %s in PROMPTDESK_SECRET_KEY or PROMPTDESK_PREVIOUS_SECRET_KEYS (docs/operating.md, \"The secret key\")", err, unknown.ID)
	}
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	cur := lib.Current()
	fmt.Fprintf(a.stdout, "promptdesk console: %s/ (library: %s, %s)\n", srv.URL(), cur.Snapshot.Source, count("count.modules", len(cur.Snapshot.IDs())))
	if u := srv.MetricsURL(); u != "" {
		fmt.Fprintf(a.stdout, "promptdesk metrics: %s\n", u)
	}
	if n := len(cur.Broken); n > 0 {
		fmt.Fprintln(a.stdout, brokenHeadline(n))
		for _, b := range cur.Broken {
			fmt.Fprintf(a.stdout, "  %s\n", b.Error())
		}
	}
	link, pending, err := srv.FirstSetupLink(ctx)
	switch {
	case err != nil:
		return err
	case link != "":
		fmt.Fprintf(a.stdout, "No users yet. Create the first admin within an hour with this one-time link:\n%s\n", link)
	case pending != nil:
		fmt.Fprintf(a.stdout, "No users yet. A one-time link for the first admin was printed by the serve process started at %s (valid until %s); if it is lost, print another with: promptdesk user add --role admin NAME\n",
			pending.CreatedAt.Local().Format(time.DateTime), pending.ExpiresAt.Local().Format(time.DateTime))
	}
	<-ctx.Done()
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout)
	shutdown, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	return srv.Close(shutdown)
}

func (a *app) migrate(ctx context.Context) error {
	log := a.logger()
	dbURL, stopDB, err := a.database(ctx, log)
	if err != nil {
		return err
	}
	defer stopDB()
	if err := migrations.Up(ctx, dbURL); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	fmt.Fprintln(a.stdout, "migrations applied")
	return nil
}

func (a *app) assemble(ctx context.Context) error {
	data, err := os.ReadFile(a.cli.Assemble.Request)
	if err != nil {
		return err
	}
	req, err := assembler.DecodeRequest(unwrapScenario(data))
	if err != nil {
		return fmt.Errorf("%s: %w", a.cli.Assemble.Request, err)
	}
	snap, asm, err := a.parts(true)
	if err != nil {
		return err
	}
	// Builtin only keeps profiles and pins, as in the API and the
	// preview; only those need the database then.
	mode := state.Mode{BuiltinOnly: a.cli.Assemble.BuiltinOnly}
	assembly := &state.Assembly{Assembler: asm}
	src := state.Nothing
	if !mode.BuiltinOnly || req.Profile != "" || len(req.Revisions) > 0 {
		st, closeStore, err := a.openStore(ctx, a.logger())
		if err != nil {
			return err
		}
		defer closeStore()
		src, assembly.Revisions = st, st
	}
	if assembly.Served, err = state.Load(ctx, src, snap, a.logger()); err != nil {
		return err
	}
	out, err := assembly.Assemble(ctx, req, mode, time.Now())
	if err != nil {
		return err
	}
	res := out.Result
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false) // prompt text is not HTML: never escape it
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// unwrapScenario returns the "request" of a saved-scenario file
// ({"name", "description", "request"}, as in assembler/examples), or data
// itself when it is a bare request.
func unwrapScenario(data []byte) []byte {
	var sc struct {
		Request json.RawMessage `json:"request"`
	}
	if json.Unmarshal(data, &sc) == nil && len(sc.Request) > 0 && sc.Request[0] == '{' {
		return sc.Request
	}
	return data
}

// brokenHeadline is serve's line above the library folder's n broken
// files.
func brokenHeadline(n int) string {
	return fmt.Sprintf("Library folder: %s broken, listed in the log, on the console and at /readyz; the rest serves:", count("count.files", n))
}

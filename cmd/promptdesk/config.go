package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/alecthomas/kong"
)

// CLI is every flag and environment variable promptdesk reads.
type CLI struct {
	DatabaseURL    string `name:"database-url" env:"DATABASE_URL" secret:"password" help:"Postgres connection URL; when empty a private cluster is started under --data-dir."`
	DataDir        string `name:"data-dir" env:"PROMPTDESK_DATA_DIR" default:"./.promptdesk" help:"Folder of the private Postgres cluster."`
	Library        string `name:"library" env:"PROMPTDESK_LIBRARY_DIR" help:"Load the library from this folder (modules/<locale>/*.md, labels/<locale>.yaml) instead of the embedded one."`
	FallbackLocale string `name:"fallback-locale" env:"PROMPTDESK_FALLBACK_LOCALE" default:"en-US" help:"Locale served when the requested one has no text for a module (override or builtin)."`
	TimeZone       string `name:"time-zone" env:"PROMPTDESK_TIME_ZONE" default:"UTC" help:"Server time zone used when neither request nor profile names one."`
	SkillBudget    int    `name:"skill-budget" env:"PROMPTDESK_SKILL_BUDGET" default:"8000" help:"Tokens the list of available skills (the skills-available segment) may take when the request's profile sets no skill budget; past it the skills most relevant to the request are listed and the rest left out (docs/skills.md)."`
	LogLevel       string `name:"log-level" env:"PROMPTDESK_LOG_LEVEL" default:"info" enum:"debug,info,warn,error" help:"Log level."`

	Serve    ServeFlags `cmd:"" help:"Run the console and the runtime API."`
	Config   ServeFlags `cmd:"" help:"Print the effective configuration of serve (the same flags and environment variables) and of the other commands' environment variables: each value, masked when secret, and where it came from (flag, env, default)."`
	Migrate  struct{}   `cmd:"" help:"Apply the database migrations and exit."`
	Assemble struct {
		Request     string `name:"request" required:"" type:"existingfile" help:"Assemble request JSON file (the body POST /api/v1/assemble takes)."`
		BuiltinOnly bool   `name:"builtin-only" help:"Leave the stored overrides out (profiles still apply): no database needed unless the request names a profile or pins revisions."`
	} `cmd:"" help:"Assemble a request and print the result as JSON."`
	Export struct {
		Out   string `name:"out" required:"" placeholder:"DIR" help:"Folder to write the overrides to, in the library layout modules/<locale>/<layer>-<name>.md."`
		Force bool   `name:"force" help:"Overwrite module files that already exist in --out."`
	} `cmd:"" help:"Write every override as a module file in the library layout."`
	Import struct {
		From        string `name:"from" required:"" placeholder:"FORMAT" help:"Format of SRC: promptdesk (the library layout, as export writes it), skills (Agent Skills <name>/SKILL.md), maibot (prompts/<locale>/*.prompt + .meta.toml), weknora (config/prompt_templates/*.yaml), jinja-index (index.json + Jinja .md templates), claude-code (the claude-code-system-prompts catalogue: system-prompts/*.md fragments with an <!-- --> header). See docs/importers.md."`
		Out         string `name:"out" placeholder:"DIR" help:"Write the converted modules to DIR/modules/<locale>/<layer>-<name>.md (not for promptdesk)."`
		Into        string `name:"into" placeholder:"db" help:"Save the modules as draft overrides or user modules in Postgres (the default for promptdesk)."`
		Force       bool   `name:"force" help:"With --out: overwrite module files that exist already."`
		WithBuiltin bool   `name:"with-builtin" help:"With --out: also write the embedded builtin library (modules whose id was not imported, label files) into DIR, so that DIR assembles whole system prompts as a --library folder."`
		Layer       string `name:"layer" help:"Layer of the converted modules; default task for skills, agent for agent prompts, else aux."`
		Locale      string `name:"locale" help:"Locale of sources that name none (skills, jinja-index, WeKnora content); default: detected from the text's script."`
		Hidden      bool   `name:"hidden" help:"Also read hidden folders (.claude/skills, …; never .git); by default they are listed as skipped and not read."`
		MaiBot      string `name:"maibot-locale" placeholder:"LOCALE" help:"maibot: MaiBot's default locale, whose prompt MaiBot inserts where the includer's locale has none; default zh-CN (MaiBot's own default)."`
		Src         string `arg:"" name:"src" type:"existingdir" help:"Folder to read."`
	} `cmd:"" help:"Import prompt files (promptdesk module files or another system's) and report what became of each source file. Exit status: 0 all came in, 1 something was not imported (or the import could not run), 2 all came in but the source breaks rules of its own format (findings)."`
	Lint struct {
		Dir     string `arg:"" optional:"" name:"dir" help:"Library folder to lint: DIR/modules/<locale>/*.md and DIR/labels/<locale>.yaml."`
		Builtin bool   `name:"builtin" help:"Lint the library embedded in the binary instead of DIR."`
		Format  string `name:"format" default:"text" enum:"text,json" help:"Output: text (one finding per line, then a summary) or json (findings and counts)."`
	} `cmd:"" help:"Check module files: format errors and the module checklist (docs/lint.md). Exit status: 0 clean (notices allowed), 1 format errors or lint could not run, 2 checklist warnings only."`
	User struct {
		Add struct {
			Role string `name:"role" required:"" enum:"viewer,editor,admin" help:"Role of the user: viewer (browse, preview), editor (+ overrides, profiles, scenarios), admin (+ users, tokens)."`
			URL  string `name:"url" env:"PROMPTDESK_URL" help:"Base URL of the console in the printed link; default http://<serve --addr>."`
			Name string `arg:"" name:"name" help:"Name the user logs in with."`
		} `cmd:"" help:"Print a one-time setup link (valid 1 hour) with which the user sets their password."`
	} `cmd:"" help:"Manage console users."`
	Token struct {
		Add struct {
			Scope []string `name:"scope" required:"" sep:"," placeholder:"SCOPE[,SCOPE]" help:"What the token may do: assemble (runtimes: assemble, render, commands, tools), read (modules, overrides), write (change overrides), admin (webhooks); add the flag staging for a runtime of the staging channel, served the pending drafts on top of what is published."`
			URL   string   `name:"url" env:"PROMPTDESK_URL" help:"Base URL of the console in the printed curl example; default http://<serve --addr>."`
			Name  string   `arg:"" name:"name" help:"Name of the token (unique), e.g. the runtime that uses it."`
		} `cmd:"" help:"Create an API token and print it (once)."`
		List   struct{} `cmd:"" help:"List the API tokens: name, prefix, scopes, created, last used, revoked."`
		Revoke struct {
			Name string `arg:"" name:"name" help:"Name of the token to revoke."`
		} `cmd:"" help:"Revoke an API token: the API refuses it from then on."`
	} `cmd:"" help:"Manage the API tokens of /api/v1 (Authorization: Bearer)."`
	MCP struct {
		Token string `name:"token" env:"PROMPTDESK_TOKEN" secret:"" help:"API token the MCP client acts with (its scopes decide what it may do: assemble, read, write for save_draft); set it in the environment rather than on the command line."`
	} `cmd:"" help:"Serve MCP (Model Context Protocol) on stdin and stdout for a local assistant: every module as a prompt, the runtime API's operations as tools (docs/mcp.md)."`
	Scenarios struct {
		Check  struct{} `cmd:"" help:"Run every saved scenario against what is served (the library, or --library, with the published overrides and profiles from the database) and print how each output differs from the one accepted. Exit status: 0 all unchanged, 1 an output changed or a scenario does not assemble (or the check could not run), 2 nothing changed but some scenarios have no accepted output yet (or none is saved)."`
		Accept struct {
			IDs []string `arg:"" optional:"" name:"id" help:"Scenarios whose output to accept; all when none is named."`
		} `cmd:"" help:"Accept the output of the named scenarios (all when none is named) as served now; unchanged ones are left as they are. Exit status 1 when one does not assemble or does not exist."`
	} `cmd:"" help:"Check saved scenarios against what is served, for a CI pipeline guarding a library change, and accept their new outputs (docs/scenarios.md)."`
	Ledger struct {
		List struct {
			LedgerFilterFlags
		} `cmd:"" help:"List the entries of a catalogue in the porting ledger: entry, kind, upstream version, decision, module, flags, who decided and when, reason."`
		Decide struct {
			Catalogue string `name:"catalogue" default:"claude-code" help:"Source name of the catalogue."`
			Decision  string `name:"decision" required:"" enum:"port,merge,do-not-port" help:"port (the entry became a module), merge (it went into an existing module) or do-not-port."`
			Module    string `name:"module" placeholder:"ID" help:"Module id the entry became (port) or went into (merge); it must exist."`
			Reason    string `name:"reason" help:"Why: required for do-not-port (e.g. it describes a tool we do not have), a note otherwise."`
			Entry     string `arg:"" name:"entry" help:"Upstream name of the entry."`
		} `cmd:"" help:"Record a decision on an entry, taken on its upstream text now (this clears its upstream-drifted or second-look flag)."`
		Sync struct {
			From      string `name:"from" required:"" placeholder:"FORMAT" help:"Format of SRC: claude-code (Claude Code's catalogue of prompt fragments, as import --from claude-code reads it) or json (SRC/catalogue.json: {\"source\", \"entries\": [{\"name\", \"kind\", \"version\", \"text\"}]})."`
			Catalogue string `name:"catalogue" help:"Source name to file the entries under; default: the one SRC names."`
			Src       string `arg:"" name:"src" type:"existingdir" help:"Folder of the catalogue."`
		} `cmd:"" help:"Bring the ledger up to a catalogue: prints the new, changed and removed entries, and those upstream-drifted (ported or merged, upstream text changed since the decision) or up for a second look (not ported, changed since)."`
		Export struct {
			LedgerFilterFlags
			Out string `name:"out" placeholder:"FILE" help:"Write the Markdown to FILE instead of standard output."`
		} `cmd:"" help:"Write the entries of a catalogue as a Markdown table (the console's export)."`
	} `cmd:"" help:"The porting ledger of borrowed prompt catalogues: what became of each upstream entry (port, merge, do not port) and why (docs/importers.md)."`
}

// LedgerFilterFlags select ledger entries for ledger list and export.
type LedgerFilterFlags struct {
	Catalogue string `name:"catalogue" default:"claude-code" help:"Source name of the catalogue."`
	Decision  string `name:"decision" help:"Only entries with this decision: port, merge, do-not-port or undecided."`
	Kind      string `name:"kind" help:"Only entries of this upstream kind."`
	Flag      string `name:"flag" help:"Only entries with this flag: undecided, upstream-drifted, second-look or removed."`
	Q         string `name:"q" help:"Only entries whose name, kind, module or reason holds this text (ignoring case)."`
}

// ServeFlags are serve's flags; config takes the same ones, to print
// what serve would run with.
type ServeFlags struct {
	Addr              string        `name:"addr" env:"PROMPTDESK_ADDR" default:"127.0.0.1:8080" help:"Address the console and API listen on."`
	SecureCookies     bool          `name:"secure-cookies" env:"PROMPTDESK_SECURE_COOKIES" help:"Mark session cookies Secure (set when users reach the console over HTTPS, e.g. behind a TLS proxy); login throttling then takes the client address from X-Forwarded-For set by a private-network proxy."`
	MetricsAddr       string        `name:"metrics-addr" env:"PROMPTDESK_METRICS_ADDR" help:"Address of a separate listener serving Prometheus metrics at /metrics, e.g. 127.0.0.1:9464; off when empty (the default)."`
	ReadHeaderTimeout time.Duration `name:"read-header-timeout" env:"PROMPTDESK_READ_HEADER_TIMEOUT" default:"10s" help:"Time a client has to send a request's headers."`
	ReadTimeout       time.Duration `name:"read-timeout" env:"PROMPTDESK_READ_TIMEOUT" default:"10s" help:"Time a client has to send a whole request, headers and body; a slower client is cut off."`
	WriteTimeout      time.Duration `name:"write-timeout" env:"PROMPTDESK_WRITE_TIMEOUT" default:"30s" help:"Time from the end of a request's headers to the end of its answer."`
	DatabaseTimeout   time.Duration `name:"database-timeout" env:"PROMPTDESK_DATABASE_TIMEOUT" default:"10s" help:"Time one request may take, its database calls above all: a database that stops answering fails the request with 503 after it (the change feed's wait is not bounded by it)."`
	IdleTimeout       time.Duration `name:"idle-timeout" env:"PROMPTDESK_IDLE_TIMEOUT" default:"2m" help:"Idle keep-alive connections are closed after this long."`
	ShutdownTimeout   time.Duration `name:"shutdown-timeout" env:"PROMPTDESK_SHUTDOWN_TIMEOUT" default:"10s" help:"On SIGTERM or SIGINT: time the requests in flight have to finish before they are cut off."`
	WebhookPrivate    bool          `name:"webhook-private-networks" env:"PROMPTDESK_WEBHOOK_PRIVATE_NETWORKS" help:"Let webhook endpoints be on loopback, private-network and link-local addresses (localhost, 10.x, 192.168.x, 169.254.x, fd00::/8 …). Off by default: an admin's URL must not reach the database or a cloud's metadata service."`
	SecretKey         string        `name:"secret-key" env:"PROMPTDESK_SECRET_KEY" secret:"" help:"Key that webhook secrets are stored encrypted with: 32 random bytes in base64 (openssl rand -base64 32); set it in the environment rather than on the command line. Without it, a private cluster keeps its own key in --data-dir/secret.key; with DATABASE_URL, webhook endpoints cannot be added, and serve refuses to start when some exist (docs/operating.md)."`
	PreviousKeys      []string      `name:"previous-secret-keys" env:"PROMPTDESK_PREVIOUS_SECRET_KEYS" sep:"," secret:"" help:"Earlier values of --secret-key, comma-separated, while a key is rotated: secrets are read with any of them and stored again under --secret-key when serve starts."`
	ChangeReview      bool          `name:"change-review" env:"PROMPTDESK_CHANGE_REVIEW" help:"Change review: a publish, delete, take builtin or keep mine becomes a change request that serves once another editor or an admin approves it. Off by default."`
	Refresh           time.Duration `name:"refresh" env:"PROMPTDESK_REFRESH" default:"30s" help:"Period of the full reload of overrides, profiles and API tokens from the database (changes are announced at once; this catches any missed)."`
}

// errHelp means help was printed and there is nothing to run.
var errHelp = errors.New("help printed")

// parse reads flags and the environment into a CLI and returns the
// parse (for config) and the command name ("serve", "config", "migrate",
// "assemble", "export", "import", "lint", "token add", "token list",
// "token revoke", "mcp", "scenarios check", "scenarios accept", "ledger
// list", "ledger decide", "ledger sync", "ledger export").
// Usage errors name the flag.
func parse(args []string, stdout, stderr io.Writer) (*CLI, *kong.Context, string, error) {
	var cli CLI
	exited := false
	parser, err := kong.New(&cli,
		kong.Name("promptdesk"),
		kong.Description("A layered prompt library with operator overrides, drift review and an assembler."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(int) { exited = true }),
	)
	if err != nil {
		return nil, nil, "", err
	}
	kctx, err := parser.Parse(args)
	if exited {
		return nil, nil, "", errHelp
	}
	if err != nil {
		return nil, nil, "", err
	}
	// Command() is the path with its arguments ("import <dir>", "token add
	// <name>"): keep the command words.
	var words []string
	for _, w := range strings.Fields(kctx.Command()) {
		if !strings.HasPrefix(w, "<") {
			words = append(words, w)
		}
	}
	return &cli, kctx, strings.Join(words, " "), nil
}

// secretMask replaces a password in what config prints and serve logs.
const secretMask = "xxxxx"

// passwordParam is a password in a keyword/value connection string
// (password=s3cret, password='s3 cret') or a URL query (password=s3cret).
var passwordParam = regexp.MustCompile(`(?i)(\bpassword=)('(?:[^'\\]|\\.)*'|[^\s&]*)`)

// redacted returns a database connection string with its password
// masked, for logs and config: the URL's user password and a password
// parameter (in the query or a keyword/value string).
func redacted(databaseURL string) string {
	s := databaseURL
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), secretMask)
		}
		s = u.String()
	}
	return passwordParam.ReplaceAllString(s, "${1}"+secretMask)
}

// setting is one line of config's output.
type setting struct {
	flag, env, value, from string
}

// printConfig prints every flag and environment variable serve reads (the
// global ones and serve's, as config was given them), then the other
// commands' environment variables: name, variable, value (secrets
// masked) and where the value came from: flag, env or default.
func (a *app) printConfig(kctx *kong.Context) error {
	var rows []setting
	seen := map[string]bool{}
	given := map[*kong.Flag]bool{}
	for _, p := range kctx.Path {
		if p.Flag != nil {
			given[p.Flag] = true
		}
	}
	for _, f := range kctx.Flags() {
		if f.Name == "help" {
			continue
		}
		value := fmt.Sprint(kctx.FlagValue(f))
		from := "default"
		if given[f] {
			from = "flag"
		} else if env, ok := envOf(f); ok {
			from = "env " + env
		}
		rows = append(rows, setting{flag: "--" + f.Name, env: strings.Join(f.Envs, ","), value: shown(f, value), from: from})
		seen[f.Name] = true
	}
	// Environment variables of other commands (e.g. PROMPTDESK_URL of
	// user add and token add).
	users := map[string][]string{}
	flags := map[string]*kong.Flag{}
	var order []string
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if len(f.Envs) == 0 || seen[f.Name] {
				continue
			}
			if flags[f.Name] == nil {
				order = append(order, f.Name)
				flags[f.Name] = f
			}
			users[f.Name] = append(users[f.Name], n.Path())
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(kctx.Model.Node)
	for _, name := range order {
		f := flags[name]
		value, from := f.Default, "default"
		if env, ok := envOf(f); ok {
			value, from = os.Getenv(env), "env "+env
		}
		rows = append(rows, setting{flag: "--" + name + " (" + strings.Join(users[name], ", ") + ")", env: strings.Join(f.Envs, ","), value: shown(f, value), from: from})
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SETTING\tENVIRONMENT\tVALUE\tFROM")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.flag, r.env, r.value, r.from)
	}
	return w.Flush()
}

// envOf returns the first of f's environment variables that is set, as
// kong reads them.
func envOf(f *kong.Flag) (string, bool) {
	for _, env := range f.Envs {
		if _, ok := os.LookupEnv(env); ok {
			return env, true
		}
	}
	return "", false
}

// shown is how config prints a flag's value: "" as (empty), secrets
// masked: the password in a connection string (tag secret:"password"),
// else the whole value.
func shown(f *kong.Flag, value string) string {
	switch {
	case value == "" || value == "[]":
		return "(empty)"
	case f.Tag.Get("secret") == "password":
		return redacted(value)
	case f.Tag.Has("secret"):
		return secretMask
	}
	return value
}

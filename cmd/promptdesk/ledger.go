package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/importer"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/state/ledger"
)

// catalogueReader reads a borrowed prompt catalogue from the folder src:
// the source name it files under (e.g. claude-code) and its entries.
// Errors name the file at fault.
type catalogueReader func(src string) (source string, fragments []ledger.Fragment, err error)

// catalogueReaders are the formats ledger sync --from takes. A new
// catalogue format is one reader here.
var catalogueReaders = map[string]catalogueReader{
	"json":        readJSONCatalogue,
	"claude-code": readClaudeCodeCatalogue,
}

// readClaudeCodeCatalogue reads Claude Code's catalogue of prompt
// fragments (importer.ReadClaudeCodeCatalogue): every fragment is an
// entry, whether or not import --from claude-code can convert it.
func readClaudeCodeCatalogue(src string) (string, []ledger.Fragment, error) {
	source, entries, err := importer.ReadClaudeCodeCatalogue(src)
	if err != nil {
		return "", nil, err
	}
	frags := make([]ledger.Fragment, len(entries))
	for i, e := range entries {
		frags[i] = ledger.Fragment{Name: e.Name, Kind: e.Kind, Version: e.Version, Text: e.Text}
	}
	return source, frags, nil
}

// jsonCatalogueFile is the file the json format reads in its folder.
const jsonCatalogueFile = "catalogue.json"

// readJSONCatalogue reads src/catalogue.json: {"source": NAME,
// "entries": [{"name","kind","version","text"}]}, the format any
// catalogue can be written in. Errors name the file, and the entry for
// a bad one.
func readJSONCatalogue(src string) (string, []ledger.Fragment, error) {
	path := filepath.Join(src, jsonCatalogueFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	var doc struct {
		Source  string `json:"source"`
		Entries []struct {
			Name    string `json:"name"`
			Kind    string `json:"kind"`
			Version string `json:"version"`
			Text    string `json:"text"`
		} `json:"entries"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	frags := make([]ledger.Fragment, len(doc.Entries))
	for i, e := range doc.Entries {
		frags[i] = ledger.Fragment{Name: e.Name, Kind: e.Kind, Version: e.Version, Text: e.Text}
	}
	return doc.Source, frags, nil
}

// ledgerService opens the store and returns the porting ledger over it;
// with modules, the library (embedded or --library) and the stored user
// modules tell which module ids exist.
func (a *app) ledgerService(ctx context.Context, modules bool) (*state.Ledger, func(), error) {
	log := a.logger()
	st, closeStore, err := a.openStore(ctx, log)
	if err != nil {
		return nil, nil, err
	}
	l := &state.Ledger{Store: st}
	if modules {
		snap, err := a.snapshot()
		if err == nil {
			var served *state.Served
			if served, err = state.Load(ctx, st, snap, log); err == nil {
				l.Exists = func(id string) bool { return served.Current().Exists(id) }
			}
		}
		if err != nil {
			closeStore()
			return nil, nil, err
		}
	}
	return l, closeStore, nil
}

// snapshot loads the library strictly: --library, or the embedded one.
func (a *app) snapshot() (*library.Snapshot, error) {
	var snap *library.Snapshot
	var err error
	if a.cli.Library != "" {
		snap, err = library.LoadDir(a.cli.Library)
	} else {
		snap, err = library.Builtin()
	}
	if err != nil {
		return nil, fmt.Errorf("library:\n%w", err)
	}
	return snap, nil
}

// ledgerFilter is the filter given by list's and export's flags.
func ledgerFilter(f LedgerFilterFlags) ledger.Filter {
	return ledger.Filter{Decision: f.Decision, Kind: f.Kind, Flag: ledger.Flag(f.Flag), Q: f.Q}
}

// ledgerList prints the entries the filter selects, one a line: entry,
// kind, upstream version, decision, module, flags, decided by and when,
// reason.
func (a *app) ledgerList(ctx context.Context) error {
	l, closeStore, err := a.ledgerService(ctx, false)
	if err != nil {
		return err
	}
	defer closeStore()
	flags := a.cli.Ledger.List
	list, err := l.List(ctx, flags.Catalogue, ledgerFilter(flags.LedgerFilterFlags))
	if err != nil {
		return err
	}
	entries := list.Entries
	if len(entries) == 0 {
		fmt.Fprintf(a.stdout, "%s: no entry matches (promptdesk ledger sync --from FORMAT SRC fills the ledger)\n", flags.Catalogue)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ENTRY\tKIND\tVERSION\tDECISION\tMODULE\tFLAGS\tDECIDED\tREASON")
	for _, e := range entries {
		decision, decided := ledger.Undecided, ""
		if e.Decision != domain.DecisionUndecided {
			decision, decided = e.Decision, e.DecidedBy+" "+e.DecidedAt.UTC().Format(ledger.DateLayout)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, dash(e.Kind), dash(e.Version), decision, dash(e.ModuleID),
			dash(flagList(e)), dash(decided), e.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	c := ledger.Count(entries)
	fmt.Fprintf(a.stdout, "%d entries: %d ported, %d merged, %d not ported, %d undecided; %d upstream-drifted, %d for a second look\n",
		c.Total, c.Port, c.Merge, c.DoNotPort, c.Undecided, c.Drifted, c.SecondLook)
	return nil
}

// flagList is e's flags but undecided, comma-separated.
func flagList(e domain.LedgerEntry) string {
	var out []string
	for _, f := range ledger.FlagsOf(e) {
		if f != ledger.FlagUndecided {
			out = append(out, string(f))
		}
	}
	return strings.Join(out, ",")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ledgerDecide records a decision on one entry, taken on its upstream
// text now.
func (a *app) ledgerDecide(ctx context.Context) error {
	l, closeStore, err := a.ledgerService(ctx, true)
	if err != nil {
		return err
	}
	defer closeStore()
	f := a.cli.Ledger.Decide
	e, err := l.Decide(domain.WithActor(ctx, cliActor), ledger.Decision{Catalogue: f.Catalogue, Name: f.Entry, Decision: f.Decision, ModuleID: f.Module, Reason: f.Reason})
	if errors.Is(err, library.ErrNotFound) {
		return fmt.Errorf("ledger decide: %w (promptdesk ledger list --catalogue %s lists the entries)", err, f.Catalogue)
	}
	if err != nil {
		return fmt.Errorf("ledger decide: %w", err)
	}
	what := e.Decision
	if e.ModuleID != "" {
		what += " → " + e.ModuleID
	}
	fmt.Fprintf(a.stdout, "%s %s: %s, on upstream %s\n", e.Catalogue, e.Name, what, dash(e.DecidedVersion))
	return nil
}

// ledgerSync reads a catalogue and brings the ledger up to it, printing
// the counts and one line per new, changed, removed, upstream-drifted and
// second-look entry.
func (a *app) ledgerSync(ctx context.Context) error {
	f := a.cli.Ledger.Sync
	read, ok := catalogueReaders[f.From]
	if !ok {
		return fmt.Errorf("--from %s: not a catalogue format (%s)", f.From, strings.Join(slices.Sorted(maps.Keys(catalogueReaders)), ", "))
	}
	source, frags, err := read(f.Src)
	if err != nil {
		return fmt.Errorf("ledger sync: %w", err)
	}
	catalogue := f.Catalogue
	if catalogue == "" {
		catalogue = source
	}
	if catalogue == "" {
		return fmt.Errorf("ledger sync: %s names no source: give --catalogue NAME", f.Src)
	}
	l, closeStore, err := a.ledgerService(ctx, false)
	if err != nil {
		return err
	}
	defer closeStore()
	p, err := l.Sync(domain.WithActor(ctx, cliActor), catalogue, frags)
	if err != nil {
		return fmt.Errorf("ledger sync %s: %w", f.Src, err)
	}
	printPlan(a.stdout, p, len(frags))
	return nil
}

// printPlan writes a sync's counts, then one line per entry of each list.
func printPlan(w io.Writer, p ledger.Plan, total int) {
	fmt.Fprintf(w, "%s: %d entries: %d new, %d changed, %d removed, %d unchanged; %d upstream-drifted, %d for a second look\n",
		p.Catalogue, total, len(p.New), len(p.Changed), len(p.Removed), p.Unchanged, len(p.Drifted), len(p.SecondLook))
	for _, list := range []struct {
		label string
		names []string
	}{{"new", p.New}, {"changed", p.Changed}, {"removed", p.Removed}, {string(ledger.FlagDrifted), p.Drifted}, {string(ledger.FlagSecondLook), p.SecondLook}} {
		for _, n := range list.names {
			fmt.Fprintf(w, "%-17s %s\n", list.label, n)
		}
	}
}

// ledgerExport writes the entries the filter selects as Markdown, to
// --out or standard output.
func (a *app) ledgerExport(ctx context.Context) error {
	l, closeStore, err := a.ledgerService(ctx, false)
	if err != nil {
		return err
	}
	defer closeStore()
	f := a.cli.Ledger.Export
	md, err := l.Export(ctx, f.Catalogue, ledgerFilter(f.LedgerFilterFlags))
	if err != nil {
		return err
	}
	if f.Out == "" {
		_, err = io.WriteString(a.stdout, md)
		return err
	}
	if err := os.WriteFile(f.Out, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "ledger of %s written to %s\n", f.Catalogue, f.Out)
	return nil
}

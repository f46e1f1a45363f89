package state

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state/ledger"
)

// LedgerStore is what the porting ledger needs from the store.
type LedgerStore interface {
	ListLedgerCatalogues(ctx context.Context) ([]string, error)
	ListLedger(ctx context.Context, catalogue string) ([]domain.LedgerEntry, error)
	GetLedgerEntry(ctx context.Context, catalogue, name string) (domain.LedgerEntry, error)
	SyncLedger(ctx context.Context, catalogue string, upserts []domain.LedgerUpstream, removed []string, summary string) error
	DecideLedger(ctx context.Context, catalogue, name, decision, moduleID, reason, hash string) (domain.LedgerEntry, error)
}

// Ledger is the one path of the porting ledger for the console, the API
// and the CLI: sync a borrowed catalogue, list and export its entries,
// decide on one (the rules are package ledger's). Who decided is the
// actor of the context.
type Ledger struct {
	Store LedgerStore
	// Exists reports whether a module id exists (builtin or user
	// module): a port or merge must name one.
	Exists func(id string) bool
}

// Catalogues returns the catalogues the ledger holds, sorted.
func (l *Ledger) Catalogues(ctx context.Context) ([]string, error) {
	return l.Store.ListLedgerCatalogues(ctx)
}

// List returns the entries of catalogue that f selects, by name,
// without texts, with the catalogue's size and kinds. Errors: a
// *library.Error naming the field of a bad filter value or catalogue.
func (l *Ledger) List(ctx context.Context, catalogue string, f ledger.Filter) (ledger.Listing, error) {
	if err := ledger.CheckCatalogue(catalogue); err != nil {
		return ledger.Listing{}, err
	}
	if err := f.Check(); err != nil {
		return ledger.Listing{}, err
	}
	all, err := l.Store.ListLedger(ctx, catalogue)
	if err != nil {
		return ledger.Listing{}, err
	}
	return ledger.Listing{Entries: ledger.Select(all, f), Total: len(all), Kinds: ledger.Kinds(all)}, nil
}

// Entry returns the entry name of catalogue with its texts. Errors:
// library.ErrNotFound.
func (l *Ledger) Entry(ctx context.Context, catalogue, name string) (domain.LedgerEntry, error) {
	if err := storableName(catalogue, name); err != nil {
		return domain.LedgerEntry{}, err
	}
	return l.Store.GetLedgerEntry(ctx, catalogue, name)
}

// storableName refuses as not found a name no sync can have stored (a
// NUL, invalid UTF-8), which the database would refuse to look up.
func storableName(catalogue, name string) error {
	if strings.ContainsRune(name, 0) || !utf8.ValidString(name) {
		return fmt.Errorf("ledger entry %q of %s does not exist: %w", name, catalogue, library.ErrNotFound)
	}
	return nil
}

// Export returns the entries of catalogue that f selects as a Markdown
// document (ledger.Markdown). Errors: as List.
func (l *Ledger) Export(ctx context.Context, catalogue string, f ledger.Filter) (string, error) {
	list, err := l.List(ctx, catalogue, f)
	if err != nil {
		return "", err
	}
	return ledger.Markdown(catalogue, list.Entries), nil
}

// Sync compares the fragments of catalogue with the ledger and stores
// what upstream has now (ledger.Compare): it returns the plan, with the
// new, changed and removed entries and those upstream-drifted or up
// for a second look after it. Errors: a *library.Error naming a bad
// fragment or catalogue; the store's.
func (l *Ledger) Sync(ctx context.Context, catalogue string, fragments []ledger.Fragment) (ledger.Plan, error) {
	if err := ledger.CheckCatalogue(catalogue); err != nil {
		return ledger.Plan{Catalogue: catalogue}, err
	}
	held, err := l.Store.ListLedger(ctx, catalogue)
	if err != nil {
		return ledger.Plan{Catalogue: catalogue}, err
	}
	p, err := ledger.Compare(catalogue, held, fragments)
	if err != nil {
		return p, err
	}
	summary := fmt.Sprintf("%d entries: %d new, %d changed, %d removed, %d unchanged; %d upstream-drifted, %d for a second look",
		len(fragments), len(p.New), len(p.Changed), len(p.Removed), p.Unchanged, len(p.Drifted), len(p.SecondLook))
	if err := l.Store.SyncLedger(ctx, catalogue, p.Upserts, p.Removed, summary); err != nil {
		return p, err
	}
	return p, nil
}

// Decide records d (ledger.Check's rules; a port or merge names a module
// that exists) on the upstream text the entry has now, which clears
// its flags. Errors: a *library.Error naming the field at fault;
// library.ErrNotFound for an unknown entry; library.ErrConflict when
// d.Hash is set and upstream moved since.
func (l *Ledger) Decide(ctx context.Context, d ledger.Decision) (domain.LedgerEntry, error) {
	if err := ledger.CheckCatalogue(d.Catalogue); err != nil {
		return domain.LedgerEntry{}, err
	}
	d, err := ledger.Check(d)
	if err != nil {
		return domain.LedgerEntry{}, err
	}
	if err := storableName(d.Catalogue, d.Name); err != nil {
		return domain.LedgerEntry{}, err
	}
	if d.ModuleID != "" && (l.Exists == nil || !l.Exists(d.ModuleID)) {
		return domain.LedgerEntry{}, &library.Error{Code: library.CodeInvalidRequest, Field: "module",
			Msg: fmt.Sprintf("no module %q: name a builtin or user module that exists (port it first, then record the decision)", d.ModuleID)}
	}
	return l.Store.DecideLedger(ctx, d.Catalogue, d.Name, d.Decision, d.ModuleID, d.Reason, d.Hash)
}

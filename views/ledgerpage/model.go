// Package ledgerpage shows the porting ledger: the entries of a borrowed
// prompt catalogue with what was decided about each, and one entry with
// its upstream text, how it moved since the decision, and the decision
// form.
package ledgerpage

import "github.com/promptdesk/promptdesk/views/diffview"

// Model is the ledger page of one catalogue.
type Model struct {
	Catalogue  string
	Catalogues []string
	Filter     Filter
	// Decisions, Kinds and Flags are the filter's choices.
	Decisions, Kinds, Flags []string
	Rows                    []Row
	// Total counts the entries of the catalogue; Matched those the
	// filter selects, of which Rows is one page.
	Total, Matched int
	// Summary counts the selected entries by decision and flag.
	Summary string
	// ExportURL downloads the selected entries as Markdown.
	ExportURL string
	// PrevURL and NextURL are the neighbouring pages ("" for none);
	// PageInfo says which entries this page shows.
	PrevURL, NextURL, PageInfo string
	Flash                      string
}

// Filter is what the filter form holds.
type Filter struct {
	Decision, Kind, Flag, Q string
}

// Row is one ledger entry.
type Row struct {
	Name, URL, Kind, Version string
	// Decision is "undecided" while nobody decided.
	Decision, ModuleID, ModuleURL, Reason string
	// Decided is who decided and when; "" while undecided.
	Decided string
	Flags   []string
}

// Entry is the page of one ledger entry.
type Entry struct {
	Row
	Catalogue string
	BackURL   string
	// Text is the upstream text now; Removed when the last sync no
	// longer found the entry.
	Text    string
	Removed bool
	// Moved is set when upstream moved since the decision: Diff is the
	// upstream text decided on → now, Plus and Minus its line counts.
	Moved          bool
	DecidedVersion string
	Diff           []diffview.Line
	Plus, Minus    int
	Form           Form
	Flash          string
	// Alert says why a decision was refused (with the fields marked).
	Alert string
}

// Form is the decision form, as typed.
type Form struct {
	Action                     string
	Decision, ModuleID, Reason string
	// Hash is the upstream text's hash the page showed: the decision is
	// refused if upstream moved since.
	Hash string
	// Errors are by field: decision, module, reason.
	Errors    map[string]string
	Decisions []string
}

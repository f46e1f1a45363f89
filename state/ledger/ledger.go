// Package ledger holds the rules of the porting ledger, apart from any
// storage or transport: a borrowed prompt catalogue (Fragment, any
// source) compared with what the ledger holds (new, changed, removed),
// the flags an entry raises (upstream-drifted, second look), what a
// decision must name, the listing's filter and the Markdown export. It
// is its own package so that the console, the API and the CLI share one
// copy of the rules, and so that they are tested without a database.
package ledger

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// Fragment is one entry of a catalogue as a reader of its source gives
// it: upstream name (unique in the catalogue), kind, version ("" when
// absent) and text, exactly as upstream wrote them.
type Fragment struct {
	Name, Kind, Version, Text string
}

// Flag is a reason to look at an entry again.
type Flag string

// The flags of a ledger entry.
const (
	// FlagUndecided: nobody decided yet.
	FlagUndecided Flag = "undecided"
	// FlagDrifted: ported or merged, and the upstream text moved since the
	// decision: the module may need the change too.
	FlagDrifted Flag = "upstream-drifted"
	// FlagSecondLook: not ported, and the upstream text changed since:
	// the reason may no longer hold.
	FlagSecondLook Flag = "second-look"
	// FlagRemoved: the last sync did not find the entry upstream.
	FlagRemoved Flag = "removed"
)

// Flags are the flags in display order.
var Flags = []Flag{FlagUndecided, FlagDrifted, FlagSecondLook, FlagRemoved}

// moved reports whether e's upstream text is not the one decided on.
func moved(e domain.LedgerEntry) bool {
	return e.Decision != domain.DecisionUndecided && e.Hash != e.DecidedHash
}

// Drifted reports whether e is upstream-drifted: ported or merged, its
// upstream text changed since the decision.
func Drifted(e domain.LedgerEntry) bool {
	return (e.Decision == domain.DecisionPort || e.Decision == domain.DecisionMerge) && moved(e)
}

// SecondLook reports whether e, not ported, changed upstream since.
func SecondLook(e domain.LedgerEntry) bool {
	return e.Decision == domain.DecisionDoNotPort && moved(e)
}

// FlagsOf returns e's flags in display order. Deciding again clears
// upstream-drifted and second look: the decision then records the text
// it was taken on.
func FlagsOf(e domain.LedgerEntry) []Flag {
	var out []Flag
	if e.Decision == domain.DecisionUndecided {
		out = append(out, FlagUndecided)
	}
	if Drifted(e) {
		out = append(out, FlagDrifted)
	}
	if SecondLook(e) {
		out = append(out, FlagSecondLook)
	}
	if e.Removed {
		out = append(out, FlagRemoved)
	}
	return out
}

// catalogueName is the shape of a catalogue's source name.
var catalogueName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// CheckCatalogue checks a catalogue's source name: lower-case letters,
// digits, '.', '_' and '-', starting with a letter or digit, at most 63
// characters. Errors: a *library.Error on field "catalogue".
func CheckCatalogue(name string) error {
	if !catalogueName.MatchString(name) {
		return &library.Error{Code: library.CodeInvalidRequest, Field: "catalogue",
			Msg: fmt.Sprintf("%q is not a catalogue name: lower-case letters, digits, '.', '_' and '-', at most 63 (e.g. claude-code)", name)}
	}
	return nil
}

// Decision is a decision asked for on the entry Name of Catalogue.
type Decision struct {
	Catalogue, Name string
	Decision        string // one of domain.Decisions
	ModuleID        string
	Reason          string
	// Hash, when set, is the upstream text's hash the decider saw: the
	// decision is refused (a conflict) when upstream has moved since.
	Hash string
}

// Check applies the rules of a decision and returns it cleaned: the
// decision is one of domain.Decisions; port and merge name a module
// (checked to exist by the caller) and take an optional note; do not
// port names no module and needs a reason. The reason follows
// domain.CleanNote. Errors: a *library.Error naming the field
// ("decision", "module" or "reason").
func Check(d Decision) (Decision, error) {
	d.ModuleID = strings.TrimSpace(d.ModuleID)
	if !slices.Contains(domain.Decisions, d.Decision) {
		return d, &library.Error{Code: library.CodeInvalidRequest, Field: "decision",
			Msg: fmt.Sprintf("%q is not a decision: %s", d.Decision, strings.Join(domain.Decisions, ", "))}
	}
	reason, err := domain.CleanNote("reason", d.Reason)
	if err != nil {
		return d, err
	}
	d.Reason = reason
	switch {
	case d.Decision == domain.DecisionDoNotPort && d.ModuleID != "":
		return d, &library.Error{Code: library.CodeInvalidRequest, Field: "module",
			Msg: "an entry that is not ported names no module; leave it empty, or decide port or merge"}
	case d.Decision == domain.DecisionDoNotPort && d.Reason == "":
		return d, &library.Error{Code: library.CodeInvalidRequest, Field: "reason",
			Msg: "say why the entry is not ported (e.g. it describes a tool we do not have)"}
	case d.Decision != domain.DecisionDoNotPort && d.ModuleID == "":
		return d, &library.Error{Code: library.CodeInvalidRequest, Field: "module",
			Msg: fmt.Sprintf("%s names the module id the entry became or went into", d.Decision)}
	}
	return d, nil
}

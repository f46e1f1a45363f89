package ledger

import (
	"fmt"
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// Undecided is the filter value of the entries nobody decided yet.
const Undecided = "undecided"

// Filter selects ledger entries; an empty field matches anything.
type Filter struct {
	// Decision is one of domain.Decisions or Undecided.
	Decision string
	Kind     string // exact upstream kind
	Flag     Flag
	// Q matches, ignoring case, a part of the entry's name, kind, module
	// id or reason.
	Q string
}

// Check refuses a filter value that can match nothing by mistake.
// Errors: a *library.Error naming the field ("decision" or "flag").
func (f Filter) Check() error {
	if f.Decision != "" && f.Decision != Undecided && !slices.Contains(domain.Decisions, f.Decision) {
		return &library.Error{Code: library.CodeInvalidRequest, Field: "decision",
			Msg: fmt.Sprintf("%q is not a decision: %s or %s", f.Decision, strings.Join(domain.Decisions, ", "), Undecided)}
	}
	if f.Flag != "" && !slices.Contains(Flags, f.Flag) {
		names := make([]string, len(Flags))
		for i, fl := range Flags {
			names[i] = string(fl)
		}
		return &library.Error{Code: library.CodeInvalidRequest, Field: "flag",
			Msg: fmt.Sprintf("%q is not a flag: %s", f.Flag, strings.Join(names, ", "))}
	}
	return nil
}

// Match reports whether f selects e.
func (f Filter) Match(e domain.LedgerEntry) bool {
	switch {
	case f.Decision == Undecided && e.Decision != domain.DecisionUndecided,
		f.Decision != "" && f.Decision != Undecided && e.Decision != f.Decision,
		f.Kind != "" && e.Kind != f.Kind,
		f.Flag != "" && !slices.Contains(FlagsOf(e), f.Flag):
		return false
	}
	if q := strings.ToLower(strings.TrimSpace(f.Q)); q != "" {
		for _, s := range []string{e.Name, e.Kind, e.ModuleID, e.Reason} {
			if strings.Contains(strings.ToLower(s), q) {
				return true
			}
		}
		return false
	}
	return true
}

// Select returns the entries f selects, in their order.
func Select(entries []domain.LedgerEntry, f Filter) []domain.LedgerEntry {
	var out []domain.LedgerEntry
	for _, e := range entries {
		if f.Match(e) {
			out = append(out, e)
		}
	}
	return out
}

// Listing is a catalogue's entries that a filter selected, with what a
// listing page shows around them.
type Listing struct {
	Entries []domain.LedgerEntry
	// Total counts the catalogue's entries, selected or not.
	Total int
	// Kinds are the kinds of all its entries (Kinds), for the filter.
	Kinds []string
}

// Kinds returns the distinct kinds of entries, sorted ("" left out).
func Kinds(entries []domain.LedgerEntry) []string {
	var out []string
	for _, e := range entries {
		if e.Kind != "" {
			out = append(out, e.Kind)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Counts are how many entries have each decision and flag.
type Counts struct {
	Total                             int
	Port, Merge, DoNotPort, Undecided int
	Drifted, SecondLook, Removed      int
}

// Count counts entries by decision and flag.
func Count(entries []domain.LedgerEntry) Counts {
	c := Counts{Total: len(entries)}
	for _, e := range entries {
		switch e.Decision {
		case domain.DecisionPort:
			c.Port++
		case domain.DecisionMerge:
			c.Merge++
		case domain.DecisionDoNotPort:
			c.DoNotPort++
		default:
			c.Undecided++
		}
		if Drifted(e) {
			c.Drifted++
		}
		if SecondLook(e) {
			c.SecondLook++
		}
		if e.Removed {
			c.Removed++
		}
	}
	return c
}

// DateLayout is how the export and the listings show when a decision
// was taken.
const DateLayout = "2006-01-02 15:04 UTC"

// Markdown is the ledger of catalogue as a Markdown document: a heading,
// the counts, and one table row per entry (entry, kind, upstream
// version, decision, module, reason, who and when, flags), in the order
// given. Cells are escaped so that no text breaks the table.
func Markdown(catalogue string, entries []domain.LedgerEntry) string {
	var b strings.Builder
	c := Count(entries)
	fmt.Fprintf(&b, "# Porting ledger: %s\n\n", cell(catalogue))
	fmt.Fprintf(&b, "%d entries: %d ported, %d merged, %d not ported, %d undecided; %d upstream-drifted, %d for a second look, %d removed upstream.\n\n",
		c.Total, c.Port, c.Merge, c.DoNotPort, c.Undecided, c.Drifted, c.SecondLook, c.Removed)
	b.WriteString("| Entry | Kind | Upstream version | Decision | Module | Reason | Decided | Flags |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, e := range entries {
		decision, decided, module := Undecided, "", ""
		if e.Decision != domain.DecisionUndecided {
			decision = e.Decision
			decided = e.DecidedBy + ", " + e.DecidedAt.UTC().Format(DateLayout)
		}
		if e.ModuleID != "" {
			module = "`" + strings.ReplaceAll(e.ModuleID, "`", "'") + "`"
		}
		flags := make([]string, 0, 4)
		for _, f := range FlagsOf(e) {
			if f != FlagUndecided {
				flags = append(flags, string(f))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(e.Name), cell(e.Kind), cell(e.Version), decision,
			module, cell(e.Reason), cell(decided), strings.Join(flags, ", "))
	}
	return b.String()
}

// cell is s as a Markdown table cell: one line, pipes escaped, and
// the characters Markdown would read as formatting escaped.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\|`*_[]<>#", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

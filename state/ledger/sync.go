package ledger

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// Plan is what a sync of a catalogue finds against the ledger, and
// what it writes. Names are sorted (byte order).
type Plan struct {
	Catalogue string
	// New are entries the ledger did not hold, or held as removed.
	New []string
	// Changed are entries whose upstream text differs from the one the
	// ledger held.
	Changed []string
	// Removed are entries the ledger held that the catalogue no longer has.
	Removed []string
	// Unchanged counts the entries whose upstream text is as it was (a
	// new version or kind alone is written, not counted as changed).
	Unchanged int
	// Drifted and SecondLook are the entries flagged so after the sync
	// (FlagDrifted, FlagSecondLook), whether this sync or an earlier one
	// moved them.
	Drifted, SecondLook []string
	// Upserts are the entries to write: new, changed, back from removed,
	// or with a new kind or version.
	Upserts []domain.LedgerUpstream
}

// Compare compares the catalogue's fragments with the ledger's entries
// of that catalogue (as listed: hashes, no texts needed) and returns the
// plan of the sync. Errors: a *library.Error naming the fragment for an
// empty or repeated name or text that is not valid UTF-8 or holds a NUL.
func Compare(catalogue string, held []domain.LedgerEntry, fragments []Fragment) (Plan, error) {
	p := Plan{Catalogue: catalogue}
	if err := CheckCatalogue(catalogue); err != nil {
		return p, err
	}
	byName := make(map[string]domain.LedgerEntry, len(held))
	for _, e := range held {
		byName[e.Name] = e
	}
	seen := make(map[string]bool, len(fragments))
	after := make([]domain.LedgerEntry, 0, len(held)+len(fragments))
	for i, f := range fragments {
		if err := checkFragment(i, f, seen); err != nil {
			return p, err
		}
		hash := domain.TextHash(f.Text)
		e, ok := byName[f.Name]
		switch {
		case !ok || e.Removed:
			p.New = append(p.New, f.Name)
		case e.Hash != hash:
			p.Changed = append(p.Changed, f.Name)
		default:
			p.Unchanged++
			if e.Kind == f.Kind && e.Version == f.Version {
				after = append(after, e)
				continue
			}
		}
		p.Upserts = append(p.Upserts, domain.LedgerUpstream{Name: f.Name, Kind: f.Kind, Version: f.Version, Text: f.Text})
		e.Name, e.Kind, e.Version, e.Hash, e.Removed = f.Name, f.Kind, f.Version, hash, false
		after = append(after, e)
	}
	for _, e := range held {
		if !seen[e.Name] {
			if !e.Removed {
				p.Removed = append(p.Removed, e.Name)
			}
			e.Removed = true
			after = append(after, e)
		}
	}
	for _, e := range after {
		if Drifted(e) {
			p.Drifted = append(p.Drifted, e.Name)
		}
		if SecondLook(e) {
			p.SecondLook = append(p.SecondLook, e.Name)
		}
	}
	for _, names := range [][]string{p.New, p.Changed, p.Removed, p.Drifted, p.SecondLook} {
		slices.Sort(names)
	}
	return p, nil
}

// checkFragment checks fragment i and records its name in seen.
func checkFragment(i int, f Fragment, seen map[string]bool) error {
	where := fmt.Sprintf("entry %d", i+1)
	if f.Name != "" {
		where = fmt.Sprintf("entry %d (%s)", i+1, f.Name)
	}
	bad := func(field, msg string) error {
		return &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: where + ": " + msg}
	}
	switch {
	case strings.TrimSpace(f.Name) == "":
		return bad("name", "has no name")
	case seen[f.Name]:
		return bad("name", "the name is taken by an earlier entry: names are unique in a catalogue")
	}
	for _, fv := range [][2]string{{"name", f.Name}, {"kind", f.Kind}, {"version", f.Version}, {"text", f.Text}} {
		if err := storable(fv[1]); err != "" {
			return bad(fv[0], err)
		}
	}
	seen[f.Name] = true
	return nil
}

// storable says what keeps s from being stored as text ("" when
// nothing does).
func storable(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "not valid UTF-8"
	case strings.ContainsRune(s, 0):
		return "holds a NUL character (U+0000), which cannot be stored"
	}
	return ""
}

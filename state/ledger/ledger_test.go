package ledger_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state/ledger"
)

// held is a ledger entry as listed, for fragment f decided on text
// decidedText (undecided when decision is "").
func held(f ledger.Fragment, decision, module, decidedText string) domain.LedgerEntry {
	e := domain.LedgerEntry{Catalogue: "claude-code", Name: f.Name, Kind: f.Kind, Version: f.Version, Hash: domain.TextHash(f.Text)}
	if decision != "" {
		e.Decision, e.ModuleID, e.DecidedHash, e.DecidedBy, e.DecidedAt = decision, module, domain.TextHash(decidedText), "ada", time.Unix(0, 0)
		if decision == domain.DecisionDoNotPort {
			e.Reason = "we have no such tool"
		}
	}
	return e
}

// applied is the ledger after plan p was written over entries.
func applied(entries []domain.LedgerEntry, p ledger.Plan) []domain.LedgerEntry {
	byName := map[string]domain.LedgerEntry{}
	for _, e := range entries {
		byName[e.Name] = e
	}
	for _, u := range p.Upserts {
		e := byName[u.Name]
		e.Catalogue, e.Name, e.Kind, e.Version, e.Hash, e.Removed = p.Catalogue, u.Name, u.Kind, u.Version, domain.TextHash(u.Text), false
		byName[u.Name] = e
	}
	for _, n := range p.Removed {
		e := byName[n]
		e.Removed = true
		byName[n] = e
	}
	var out []domain.LedgerEntry
	for _, e := range byName {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b domain.LedgerEntry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// A sync of a newer catalogue finds the new, changed and removed
// entries; upstream-drifted are exactly the ported or merged entries
// whose text changed, second look exactly the changed do-not-port ones;
// an undecided changed entry is only changed.
func TestCompareNewChangedRemovedDriftSecondLook(t *testing.T) {
	v1 := []ledger.Fragment{
		{Name: "tool-bash", Kind: "tool-description", Version: "2.0.1", Text: "Run a shell command."},
		{Name: "tool-read", Kind: "tool-description", Version: "2.0.1", Text: "Read a file."},
		{Name: "mode-plan", Kind: "system-prompt", Version: "2.0.1", Text: "Plan before acting."},
		{Name: "tool-notebook", Kind: "tool-description", Version: "2.0.1", Text: "Edit a notebook."},
		{Name: "tool-web", Kind: "tool-description", Version: "2.0.1", Text: "Fetch a page."},
		{Name: "style-terse", Kind: "output-style", Version: "2.0.1", Text: "Be terse."},
		{Name: "agent-old", Kind: "agent-prompt", Version: "2.0.1", Text: "An old agent."},
	}
	first, err := ledger.Compare("claude-code", nil, v1)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.New) != len(v1) || len(first.Changed)+len(first.Removed)+first.Unchanged != 0 || len(first.Upserts) != len(v1) {
		t.Fatalf("first sync: %+v; want every entry new and written", first)
	}

	entries := []domain.LedgerEntry{
		held(v1[0], domain.DecisionPort, "tool.bash", v1[0].Text),
		held(v1[1], domain.DecisionMerge, "base.behavior", v1[1].Text),
		held(v1[2], domain.DecisionPort, "task.plan", v1[2].Text),
		held(v1[3], domain.DecisionDoNotPort, "", v1[3].Text),
		held(v1[4], domain.DecisionDoNotPort, "", v1[4].Text),
		held(v1[5], "", "", ""),
		held(v1[6], domain.DecisionPort, "agent.old", v1[6].Text),
	}
	v2 := []ledger.Fragment{
		{Name: "tool-bash", Kind: "tool-description", Version: "2.0.2", Text: "Run a shell command; quote paths."}, // ported, changed
		{Name: "tool-read", Kind: "tool-description", Version: "2.0.2", Text: "Read a file or an image."},          // merged, changed
		{Name: "mode-plan", Kind: "system-prompt", Version: "2.0.2", Text: "Plan before acting."},                  // ported, version only
		{Name: "tool-notebook", Kind: "tool-description", Version: "2.0.2", Text: "Edit a Jupyter notebook."},      // not ported, changed
		{Name: "tool-web", Kind: "tool-description", Version: "2.0.1", Text: "Fetch a page."},                      // not ported, same
		{Name: "style-terse", Kind: "output-style", Version: "2.0.2", Text: "Be very terse."},                      // undecided, changed
		{Name: "tool-todo", Kind: "tool-description", Version: "2.0.2", Text: "Keep a todo list."},                 // new
	}
	p, err := ledger.Compare("claude-code", entries, v2)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	check("new", p.New, []string{"tool-todo"})
	check("changed", p.Changed, []string{"style-terse", "tool-bash", "tool-notebook", "tool-read"})
	check("removed", p.Removed, []string{"agent-old"})
	check("upstream-drifted", p.Drifted, []string{"tool-bash", "tool-read"})
	check("second look", p.SecondLook, []string{"tool-notebook"})
	if p.Unchanged != 2 {
		t.Errorf("unchanged = %d, want 2 (tool-web, mode-plan at a new version)", p.Unchanged)
	}
	var written []string
	for _, u := range p.Upserts {
		written = append(written, u.Name)
	}
	slices.Sort(written)
	check("written", written, []string{"mode-plan", "style-terse", "tool-bash", "tool-notebook", "tool-read", "tool-todo"})

	// Syncing the same catalogue again finds nothing new and keeps the flags.
	after := applied(entries, p)
	again, err := ledger.Compare("claude-code", after, v2)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.New)+len(again.Changed)+len(again.Removed)+len(again.Upserts) != 0 || again.Unchanged != len(v2) {
		t.Errorf("the same catalogue again: %+v; want all unchanged, nothing written", again)
	}
	check("drifted after the same sync", again.Drifted, []string{"tool-bash", "tool-read"})

	// The flags as the listing shows them; deciding again clears them.
	flags := map[string][]ledger.Flag{}
	for _, e := range after {
		flags[e.Name] = ledger.FlagsOf(e)
	}
	want := map[string][]ledger.Flag{
		"tool-bash": {ledger.FlagDrifted}, "tool-read": {ledger.FlagDrifted}, "mode-plan": nil,
		"tool-notebook": {ledger.FlagSecondLook}, "tool-web": nil, "style-terse": {ledger.FlagUndecided},
		"tool-todo": {ledger.FlagUndecided}, "agent-old": {ledger.FlagRemoved},
	}
	for name, w := range want {
		if !slices.Equal(flags[name], w) {
			t.Errorf("flags of %s = %q, want %q", name, flags[name], w)
		}
	}
	redecided := after[slices.IndexFunc(after, func(e domain.LedgerEntry) bool { return e.Name == "tool-bash" })]
	redecided.DecidedHash = redecided.Hash
	if f := ledger.FlagsOf(redecided); len(f) != 0 {
		t.Errorf("flags after deciding again on the text now: %q, want none", f)
	}
}

// An entry that comes back after being removed counts as new; one
// already marked removed is not removed again.
func TestCompareRemovedAndBack(t *testing.T) {
	f := ledger.Fragment{Name: "tool-x", Text: "x"}
	gone := held(f, "", "", "")
	gone.Removed = true
	p, err := ledger.Compare("cc", []domain.LedgerEntry{gone}, nil)
	if err != nil || len(p.Removed) != 0 {
		t.Errorf("removed again: %+v, %v; want nothing removed", p.Removed, err)
	}
	p, err = ledger.Compare("cc", []domain.LedgerEntry{gone}, []ledger.Fragment{f})
	if err != nil || !slices.Equal(p.New, []string{"tool-x"}) || len(p.Upserts) != 1 {
		t.Errorf("back: %+v, %v; want it new and written", p, err)
	}
}

// A catalogue with a nameless, repeated or unstorable entry is refused,
// naming the entry and the field.
func TestCompareRefusesBadCatalogues(t *testing.T) {
	for _, c := range []struct {
		catalogue string
		frags     []ledger.Fragment
		field     string
		msg       string
	}{
		{"claude-code", []ledger.Fragment{{Name: " "}}, "name", "entry 1 (" + " " + "): has no name"},
		{"claude-code", []ledger.Fragment{{Name: "a"}, {Name: "a"}}, "name", "entry 2 (a): the name is taken"},
		{"claude-code", []ledger.Fragment{{Name: "a", Text: "nul\x00"}}, "text", "entry 1 (a): holds a NUL"},
		{"claude-code", []ledger.Fragment{{Name: "a", Version: "\xff"}}, "version", "entry 1 (a): not valid UTF-8"},
		{"Claude Code", nil, "catalogue", `"Claude Code" is not a catalogue name`},
	} {
		_, err := ledger.Compare(c.catalogue, nil, c.frags)
		var le *library.Error
		if !errors.As(err, &le) || le.Field != c.field || !strings.Contains(le.Msg, c.msg) || !errors.Is(err, library.ErrInvalid) {
			t.Errorf("%q %+v: %v; want field %s with %q", c.catalogue, c.frags, err, c.field, c.msg)
		}
	}
}

// A decision names a module for port and merge, a reason (and no
// module) for do not port; the reason follows the note's rule.
func TestCheckDecision(t *testing.T) {
	for _, c := range []struct {
		d     ledger.Decision
		field string
	}{
		{ledger.Decision{Decision: "port", ModuleID: " tool.bash "}, ""},
		{ledger.Decision{Decision: "merge", ModuleID: "base.behavior", Reason: "the same advice"}, ""},
		{ledger.Decision{Decision: "do-not-port", Reason: "we have no notebook tool"}, ""},
		{ledger.Decision{Decision: "ported", ModuleID: "tool.bash"}, "decision"},
		{ledger.Decision{Decision: "port"}, "module"},
		{ledger.Decision{Decision: "merge", ModuleID: "  "}, "module"},
		{ledger.Decision{Decision: "do-not-port", Reason: " \n "}, "reason"},
		{ledger.Decision{Decision: "do-not-port", Reason: "no", ModuleID: "tool.bash"}, "module"},
		{ledger.Decision{Decision: "do-not-port", Reason: strings.Repeat("x", domain.MaxNoteLength+1)}, "reason"},
		{ledger.Decision{Decision: "port", ModuleID: "tool.bash", Reason: "bell\a"}, "reason"},
	} {
		got, err := ledger.Check(c.d)
		var le *library.Error
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%+v: %v, want accepted", c.d, err)
		case c.field == "" && got.ModuleID != strings.TrimSpace(c.d.ModuleID):
			t.Errorf("%+v: module %q, want it trimmed", c.d, got.ModuleID)
		case c.field != "" && (!errors.As(err, &le) || le.Field != c.field):
			t.Errorf("%+v: %v, want an error on field %s", c.d, err, c.field)
		}
	}
}

// The filter selects by decision (undecided too), kind, flag and a part
// of the name, kind, module or reason, ignoring case; bad values are
// refused naming their field.
func TestFilter(t *testing.T) {
	entries := []domain.LedgerEntry{
		held(ledger.Fragment{Name: "tool-bash", Kind: "tool-description", Text: "new"}, domain.DecisionPort, "tool.bash", "old"),
		held(ledger.Fragment{Name: "tool-web", Kind: "tool-description", Text: "t"}, domain.DecisionDoNotPort, "", "t"),
		held(ledger.Fragment{Name: "style-terse", Kind: "output-style", Text: "t"}, "", "", ""),
	}
	names := func(f ledger.Filter) []string {
		var out []string
		for _, e := range ledger.Select(entries, f) {
			out = append(out, e.Name)
		}
		return out
	}
	for _, c := range []struct {
		f    ledger.Filter
		want []string
	}{
		{ledger.Filter{}, []string{"tool-bash", "tool-web", "style-terse"}},
		{ledger.Filter{Decision: "port"}, []string{"tool-bash"}},
		{ledger.Filter{Decision: ledger.Undecided}, []string{"style-terse"}},
		{ledger.Filter{Kind: "tool-description"}, []string{"tool-bash", "tool-web"}},
		{ledger.Filter{Flag: ledger.FlagDrifted}, []string{"tool-bash"}},
		{ledger.Filter{Flag: ledger.FlagSecondLook}, nil},
		{ledger.Filter{Q: "NO SUCH TOOL"}, []string{"tool-web"}},
		{ledger.Filter{Q: "TOOL.BASH"}, []string{"tool-bash"}},
		{ledger.Filter{Kind: "tool-description", Decision: "do-not-port", Q: "web"}, []string{"tool-web"}},
	} {
		if got := names(c.f); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
	for _, f := range []ledger.Filter{{Decision: "maybe"}, {Flag: "drifted"}} {
		if err := f.Check(); !errors.Is(err, library.ErrInvalid) {
			t.Errorf("%+v: %v, want refused", f, err)
		}
	}
	if got := ledger.Kinds(entries); !slices.Equal(got, []string{"output-style", "tool-description"}) {
		t.Errorf("kinds %q", got)
	}
}

// The Markdown export is one table row per entry with every column,
// cells escaped so that a pipe or a line break in a reason keeps the
// table whole.
func TestMarkdown(t *testing.T) {
	port := held(ledger.Fragment{Name: "tool-bash", Kind: "tool-description", Version: "2.0.2", Text: "new"}, domain.DecisionPort, "tool.bash", "old")
	skip := held(ledger.Fragment{Name: "tool|web", Kind: "tool-description", Text: "t"}, domain.DecisionDoNotPort, "", "t")
	skip.Reason = "no web tool |\nhere"
	undecided := held(ledger.Fragment{Name: "style_terse", Kind: "output-style", Text: "t"}, "", "", "")
	md := ledger.Markdown("claude-code", []domain.LedgerEntry{port, skip, undecided})
	want := "# Porting ledger: claude-code\n\n" +
		"3 entries: 1 ported, 0 merged, 1 not ported, 1 undecided; 1 upstream-drifted, 0 for a second look, 0 removed upstream.\n\n" +
		"| Entry | Kind | Upstream version | Decision | Module | Reason | Decided | Flags |\n" +
		"| --- | --- | --- | --- | --- | --- | --- | --- |\n" +
		"| tool-bash | tool-description | 2.0.2 | port | `tool.bash` |  | ada, 1970-01-01 00:00 UTC | upstream-drifted |\n" +
		"| tool\\|web | tool-description |  | do-not-port |  | no web tool \\| here | ada, 1970-01-01 00:00 UTC |  |\n" +
		"| style\\_terse | output-style |  | undecided |  |  |  |  |\n"
	if md != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", md, want)
	}
}

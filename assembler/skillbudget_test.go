package assembler_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/assembler/tokens"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// budgetLib is a library of n task modules with descriptions of about 40
// tokens each, made from a fixed word list (the same every run), plus
// task.minutes, which fires on "minutes", and task.notes, which fires on
// it too with a lower priority (so it yields and is listed).
func budgetLib(t testing.TB, n int) *library.Snapshot {
	mods := withCore(
		mod{id: "task.minutes", front: "priority: 10\ntriggers:\n- kind: intent\n  keywords: minutes\n", body: "MINUTES"},
		mod{id: "task.notes", front: "triggers:\n- kind: intent\n  keywords: minutes\n", body: "NOTES"},
	)
	for i := range n {
		mods = append(mods, mod{id: fmt.Sprintf("task.gen-%04d", i),
			desc: genDescription(i), front: "triggers:\n- kind: command\n  command: /gen" + fmt.Sprint(i) + "\n",
			body: "GEN"})
	}
	return newLib(t, mods...)
}

var genWords = strings.Fields(`archive audit backup budget calendar chart contract customer dashboard
deploy diagram email expense forecast glossary hiring incident inventory invoice ledger
migration newsletter onboarding payroll pipeline policy pricing quote receipt release
report roadmap schedule security shipment survey ticket timeline training vendor`)

// genDescription is a description of ten words from genWords chosen by i.
func genDescription(i int) string {
	words := make([]string, 10)
	x := uint32(i)*2654435761 + 12345
	for k := range words {
		x = x*1664525 + 1013904223
		words[k] = genWords[int(x>>16)%len(genWords)]
	}
	return "Handles " + strings.Join(words, " ") + " work for the team"
}

// listedAndCut are the module names of the skill-listed and skill-cut
// entries.
func listedAndCut(res *assembler.Result) (listed, cut []string) {
	for _, e := range entries(res, assembler.KindSkillListed) {
		listed = append(listed, e.Module)
	}
	for _, e := range entries(res, assembler.KindSkillCut) {
		cut = append(cut, e.Module)
	}
	return listed, cut
}

// tableNames are the name cells of the skill table, in order.
func tableNames(t testing.TB, res *assembler.Result) []string {
	t.Helper()
	if res.Tables.Skills == "" {
		return nil
	}
	tables := parseTables(t, res.Tables.Skills)
	if len(tables) != 1 {
		t.Fatalf("skill table: %d tables", len(tables))
	}
	return column(tables[0], 0)
}

// countTokens counts text in the encoding the skill budget was measured in.
func countTokens(t testing.TB, res *assembler.Result, text string) int {
	t.Helper()
	c, err := tokens.ForEncoding(res.Skills.Encoding)
	if err != nil {
		t.Fatal(err)
	}
	return c.Count(text)
}

func TestSkillBudget(t *testing.T) {
	t.Parallel()
	snap := budgetLib(t, 60)
	for _, tc := range []struct {
		name      string
		count     bool
		budget    int // the server's
		profile   int // the profile's; 0 for none
		message   string
		mode      string
		cut       bool
		namesOnly bool
	}{
		{"everything fits", true, 100_000, 0, "minutes please", assembler.SkillModeFull, false, false},
		{"the rest by name", true, 1200, 0, "minutes please", assembler.SkillModeMixed, true, true},
		{"names only after the first", true, 500, 0, "minutes please", assembler.SkillModeMixed, true, true},
		{"counting off", false, 1200, 0, "minutes please", assembler.SkillModeMixed, true, true},
		{"names only", true, 40, 0, "", assembler.SkillModeNamesOnly, true, true},
		{"the profile's budget wins", true, 100_000, 500, "minutes please", assembler.SkillModeMixed, true, true},
		{"fired skills stay over a tiny budget", true, 10, 0, "minutes please", assembler.SkillModeFull, true, false},
		{"no message", true, 800, 0, "", assembler.SkillModeMixed, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := assembler.New(assembler.Config{CountTokens: tc.count, SkillBudget: tc.budget})
			req := &assembler.Request{Message: tc.message}
			var st *assembler.State
			if tc.profile > 0 {
				st = stateWith(nil, &domain.Profile{ID: "p", SkillDisclosure: true, SkillBudget: tc.profile})
				req.Profile = "p"
			}
			res, err := a.Assemble(snap, st, req, fixedNow)
			if err != nil {
				t.Fatal(err)
			}
			budget := tc.budget
			if tc.profile > 0 {
				budget = tc.profile
			}
			cat := res.Skills
			if cat == nil {
				t.Fatal("no skill catalogue in the result")
			}
			if cat.Budget != budget || cat.Mode != tc.mode {
				t.Errorf("catalogue budget %d, mode %q; want %d, %q", cat.Budget, cat.Mode, budget, tc.mode)
			}
			seg := segment(t, res, assembler.SegmentSkillsAvailable)
			n := countTokens(t, res, seg.Text)
			if tc.count && n != seg.Tokens {
				t.Errorf("segment counted %d tokens, the result says %d", n, seg.Tokens)
			}
			fired := tc.message != ""
			if n > budget && !(fired && len(tableNames(t, res)) == 1) {
				t.Errorf("the segment has %d tokens, over the budget of %d", n, budget)
			}
			// The budget holds for the listed rows alone too.
			rows := 0
			for _, line := range strings.Split(res.Tables.Skills, "\n")[2:] {
				rows += countTokens(t, res, line+"\n")
			}
			if rows > budget && !fired {
				t.Errorf("the listed rows have %d tokens, over the budget of %d", rows, budget)
			}

			listed, cut := listedAndCut(res)
			names := tableNames(t, res)
			if !slices.Equal(listed, names) {
				t.Errorf("skill-listed entries %q, table rows %q", listed, names)
			}
			if fired && !slices.Contains(listed, "task.notes") {
				t.Errorf("task.notes fired and yielded but is not listed: %q", listed)
			}
			if fired && names[0] != "task.notes" && tc.cut {
				t.Errorf("the fired skill is not listed first: %q", names)
			}
			// Every task module is the hit, listed or cut, once.
			all := append(append([]string{}, listed...), cut...)
			if fired {
				all = append(all, "task.minutes")
			}
			slices.Sort(all)
			if distinct := slices.Compact(slices.Clone(all)); len(all) != 62 || len(distinct) != 62 {
				t.Errorf("%d skills hit, listed or cut, %d distinct; want all 62 once", len(all), len(distinct))
			}
			if (len(cut) > 0) != tc.cut || cat.Cut != len(cut) || len(cat.CutSkills) != len(cut) || cat.Listed != len(listed) {
				t.Errorf("cut %d (catalogue %d, %d named), listed %d (catalogue %d); want cut: %v", len(cut), cat.Cut, len(cat.CutSkills), len(listed), cat.Listed, tc.cut)
			}
			for i, c := range cat.CutSkills {
				if c.Name != cut[i] || c.Reason != assembler.CutReasonBudget || c.Source != assembler.SkillSourceTask {
					t.Errorf("cutSkills[%d] = %+v, report entry %s", i, c, cut[i])
				}
			}
			for _, e := range entries(res, assembler.KindSkillCut) {
				if want := "skill-cut(" + e.Module + " · budget)"; e.Line != want {
					t.Errorf("cut entry %q, want %q", e.Line, want)
				}
			}
			namesOnly := 0
			for _, e := range entries(res, assembler.KindSkillListed) {
				if strings.HasSuffix(e.Reason, ":names-only") {
					namesOnly++
				}
			}
			if (namesOnly > 0) != tc.namesOnly || cat.NamesOnly != namesOnly {
				t.Errorf("%d names-only entries (catalogue %d), want some: %v", namesOnly, cat.NamesOnly, tc.namesOnly)
			}
			if tc.namesOnly {
				tb := parseTables(t, res.Tables.Skills)[0]
				last := tb.rows[len(tb.rows)-1]
				if last[1] != "-" || last[2] != "-" {
					t.Errorf("the last row is not listed by name alone: %q", last)
				}
			}
		})
	}
}

// Runtime skills share the budget with task modules and are cut with
// their own source.
func TestSkillBudgetCutsRuntimeSkills(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(mod{id: "task.a", body: "A"})...)
	req := &assembler.Request{Message: "draw a chart"}
	for i := range 100 {
		req.Skills = append(req.Skills, assembler.Skill{Name: fmt.Sprintf("skill-%03d", i), Description: genDescription(i)})
	}
	req.Skills = append(req.Skills, assembler.Skill{Name: "zz-chart-drawer", Description: "Draws a chart from numbers"})
	res, err := assembler.New(assembler.Config{SkillBudget: 600}).Assemble(snap, nil, req, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if names := tableNames(t, res); len(names) == 0 || names[0] != "zz-chart-drawer" {
		t.Errorf("the most relevant runtime skill is not listed first: %q", names)
	}
	if res.Skills.Cut == 0 {
		t.Fatal("nothing cut")
	}
	for _, c := range res.Skills.CutSkills {
		if c.Source != assembler.SkillSourceRuntime && c.Name != "task.a" {
			t.Errorf("cut %+v: want source runtime", c)
		}
	}
	e := entries(res, assembler.KindSkillCut)[0]
	if e.Source != "runtime" || e.Reason != "budget" {
		t.Errorf("first cut entry %+v", e)
	}
}

// With the builtin library everything fits the default budget: the
// table is in library order and nothing is cut.
func TestSkillBudgetBuiltinUnchanged(t *testing.T) {
	t.Parallel()
	res := mustAssemble(t, builtinLib(t), nil, &assembler.Request{Locale: "en-US", Message: "hello"})
	if res.Skills.Cut != 0 || res.Skills.Mode != assembler.SkillModeFull || res.Skills.Budget != assembler.DefaultSkillBudget {
		t.Errorf("catalogue %+v", res.Skills)
	}
	names := tableNames(t, res)
	if !slices.IsSorted(names) {
		t.Errorf("table not in library order: %q", names)
	}
}

// A generated library of 2,000 task modules: the segment stays within the
// default budget and the skill the message is about is listed first.
func TestSkillBudgetLargeLibrary(t *testing.T) {
	t.Parallel()
	snap := budgetLib(t, 2000)
	for _, tc := range []struct {
		message, first string
	}{
		// task.gen-1234's description holds its words; the others share
		// some of them.
		{"I need help with " + strings.TrimSuffix(strings.TrimPrefix(genDescription(1234), "Handles "), " work for the team"), "task.gen-1234"},
	} {
		res, err := assembler.New(assembler.Config{CountTokens: true}).Assemble(snap, nil, &assembler.Request{Message: tc.message}, fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		seg := segment(t, res, assembler.SegmentSkillsAvailable)
		if seg.Tokens > assembler.DefaultSkillBudget {
			t.Errorf("segment has %d tokens, over the default budget %d", seg.Tokens, assembler.DefaultSkillBudget)
		}
		names := tableNames(t, res)
		if len(names) == 0 || names[0] != tc.first {
			t.Errorf("first listed %q, want %s", names[:min(3, len(names))], tc.first)
		}
		if res.Skills.Listed+res.Skills.Cut != 2002 {
			t.Errorf("listed %d + cut %d, want 2002", res.Skills.Listed, res.Skills.Cut)
		}
		if len(entries(res, assembler.KindSkillCut)) != res.Skills.Cut {
			t.Errorf("%d cut entries, catalogue says %d", len(entries(res, assembler.KindSkillCut)), res.Skills.Cut)
		}
	}
}

// An env.skills module with other placeholders and an output contract is
// measured as rendered: the budget still holds.
func TestSkillBudgetMeasuresTheRenderedModule(t *testing.T) {
	t.Parallel()
	mods := []mod{
		{id: assembler.ModuleKnowledge, body: "KNOWLEDGE\n{{knowledge_bases}}"},
		{id: assembler.ModulePureAgent, body: "PURE AGENT"},
		{id: assembler.ModuleSelectedDocs, body: "SELECTED\n{{selected_documents}}"},
		{id: assembler.ModuleSkills, front: "outputContract: Name the skill you load.\n", body: "SKILLS {{web_search_status}}\n{{skills}}\n{{aux.more}}"},
		{id: "aux.more", body: strings.Repeat("More words about skills. ", 20)},
	}
	for i := range 40 {
		mods = append(mods, mod{id: fmt.Sprintf("task.t%02d", i), desc: genDescription(i), body: "T"})
	}
	snap := newLib(t, mods...)
	for _, budget := range []int{150, 300, 600} {
		res, err := assembler.New(assembler.Config{CountTokens: true, SkillBudget: budget}).Assemble(snap, nil, &assembler.Request{Message: "audit the ledger", WebSearch: true}, fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		seg := segment(t, res, assembler.SegmentSkillsAvailable)
		if seg.Tokens > budget || res.Skills.Cut == 0 || res.Skills.Listed == 0 {
			t.Errorf("budget %d: segment %d tokens, %d listed, %d cut", budget, seg.Tokens, res.Skills.Listed, res.Skills.Cut)
		}
	}
}

// A budget too small for a single skill leaves the segment out rather
// than announcing an empty list: mode none, nothing listed, every skill
// reported cut.
func TestSkillBudgetTooSmallForOneSkill(t *testing.T) {
	t.Parallel()
	snap := builtinLib(t)
	res, err := assembler.New(assembler.Config{SkillBudget: 5}).Assemble(snap, nil, &assembler.Request{Locale: "en-US", Message: "hello"}, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Segments {
		if s.Layer == assembler.SegmentSkillsAvailable {
			t.Errorf("skills-available segment present (%d tokens) with a budget of 5", s.Tokens)
		}
	}
	k := res.Skills
	if k == nil || k.Mode != assembler.SkillModeNone || k.Listed != 0 || k.Cut == 0 {
		t.Fatalf("catalogue %+v, want mode none, nothing listed, skills cut", k)
	}
	if n := len(entries(res, assembler.KindSkillCut)); n != k.Cut {
		t.Errorf("%d skill-cut entries, catalogue says %d", n, k.Cut)
	}
	if res.Tables.Skills != "" {
		t.Errorf("a skill table in the text: %q", res.Tables.Skills)
	}
}

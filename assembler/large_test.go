package assembler_test

import (
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/librarytest"
)

// Each example assembled against the generated library of
// librarytest.Large ids, beside the builtin library: the skill catalogue
// stays within the default budget, every task module is either listed or
// reported cut, the whole prompt stays within a tenth of the builtin
// prompt plus the budget (with a profile that names the builtin's base
// segment: the generated library also has a hundred base and env
// modules, which a library's default base segment would all take), and a message with one generated module's
// keyword brings that module into the skills-hit segment, listed first
// among the rest by its own words.
func TestAssembleLargeLibrary(t *testing.T) {
	t.Parallel()
	large, err := librarytest.Library(librarytest.Large)
	if err != nil {
		t.Fatal(err)
	}
	builtin := builtinLib(t)
	tasks := 0
	for _, id := range large.IDs() {
		if strings.HasPrefix(id, "task.") {
			tasks++
		}
	}
	if tasks < librarytest.Large*8/10 {
		t.Fatalf("the generated library has %d task modules", tasks)
	}
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatal(err)
	}
	a := assembler.New(assembler.Config{CountTokens: true})
	for _, ex := range examples {
		req, err := assembler.DecodeRequest(ex.Request)
		if err != nil {
			t.Fatal(err)
		}
		small, err := a.Assemble(builtin, nil, req, fixedNow)
		if err != nil {
			t.Fatalf("%s, builtin: %v", ex.ID, err)
		}
		base := segment(t, small, assembler.SegmentBase).Modules
		st := &assembler.State{Profiles: map[string]*domain.Profile{"builtin-base": {ID: "builtin-base", PromptModules: base, SkillDisclosure: true}}}
		withProfile := *req
		withProfile.Profile = "builtin-base"
		res, err := a.Assemble(large, st, &withProfile, fixedNow)
		if err != nil {
			t.Fatalf("%s, %d ids: %v", ex.ID, librarytest.Large, err)
		}
		seg := segment(t, res, assembler.SegmentSkillsAvailable)
		if len(entries(res, assembler.KindSkillYield)) == 0 && seg.Tokens > assembler.DefaultSkillBudget {
			t.Errorf("%s: skills-available has %d tokens, budget %d", ex.ID, seg.Tokens, assembler.DefaultSkillBudget)
		}
		hit := 0
		for _, s := range res.Segments {
			if s.Layer == assembler.SegmentSkillsHit {
				hit = len(s.Modules)
			}
		}
		if pool := tasks - hit + len(req.Skills); res.Skills.Listed+res.Skills.Cut != pool {
			t.Errorf("%s: listed %d + cut %d, want the %d skills of the pool", ex.ID, res.Skills.Listed, res.Skills.Cut, pool)
		}
		if n := len(entries(res, assembler.KindSkillCut)); n != res.Skills.Cut || len(res.Skills.CutSkills) != n {
			t.Errorf("%s: %d skill-cut entries, %d cut skills, catalogue says %d", ex.ID, n, len(res.Skills.CutSkills), res.Skills.Cut)
		}
		if limit := (small.Tokens + assembler.DefaultSkillBudget) * 11 / 10; res.Tokens > limit {
			t.Errorf("%s: %d tokens at %d ids, over %d (the builtin prompt's %d plus the budget, and a tenth)", ex.ID, res.Tokens, librarytest.Large, limit, small.Tokens)
		}
	}

	// One generated task module, reached by its own keyword.
	id, _ := librarytest.ID(4321)
	m, ok := large.Module(id, library.LocaleKey("en-US"))
	if !ok || len(m.Triggers) == 0 || len(m.Triggers[0].Keywords) < 2 {
		t.Fatalf("generated module %s: %+v", id, m)
	}
	res, err := a.Assemble(large, nil, &assembler.Request{Locale: "en-US", Message: "can you " + m.Triggers[0].Keywords[1] + " please"}, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if got := segment(t, res, assembler.SegmentSkillsHit).Modules; len(got) != 1 || got[0] != id {
		t.Errorf("skills-hit %q, want %s", got, id)
	}
	res, err = a.Assemble(large, nil, &assembler.Request{Locale: "en-US", Message: m.Description}, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if names := tableNames(t, res); len(names) == 0 || names[0] != id {
		t.Errorf("a message of %s's description lists first %q", id, names[:min(3, len(names))])
	}
}

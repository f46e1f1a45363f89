package assembler

import (
	"strings"

	"github.com/promptdesk/promptdesk/assembler/tokens"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// DefaultSkillBudget is the token budget of the skills-available segment
// when neither the profile nor Config.SkillBudget sets one.
const DefaultSkillBudget = 8000

// Modes of the skill catalogue (SkillCatalogue.Mode).
const (
	// SkillModeFull: every listed skill has its name, description and
	// trigger.
	SkillModeFull = "full"
	// SkillModeMixed: the most relevant skills are listed in full, the
	// rest by name alone.
	SkillModeMixed = "mixed"
	// SkillModeNamesOnly: every listed skill is listed by name alone.
	SkillModeNamesOnly = "names-only"
	// SkillModeNone: the budget had room for no skill, so the segment is
	// left out and every skill is cut.
	SkillModeNone = "none"
)

// maxBytesPerToken bounds the bytes per token of a skill table taken as
// possibly within the budget: text averages about 4 bytes a token in
// English and fewer in Chinese, so a table longer than this many bytes per
// token of budget is ranked and cut without being counted first.
const maxBytesPerToken = 16

// Sources of a skill in the catalogue (CutSkill.Source).
const (
	SkillSourceTask    = "task-module"
	SkillSourceRuntime = "runtime"
)

// CutReasonBudget is why a skill was left out of the catalogue: the
// segment's token budget had no room for it.
const CutReasonBudget = "budget"

// SkillCatalogue says how the skills-available segment was fitted to its
// token budget: the budget (tokens), the encoding it was measured in (the
// request model's when token counting is on, tokens.DefaultEncoding when
// it is off), the Mode (SkillMode*), how many skills were listed, how many
// of those by name alone, and the skills left out, most relevant first.
type SkillCatalogue struct {
	Budget    int        `json:"budget"`
	Encoding  string     `json:"encoding"`
	Mode      string     `json:"mode"`
	Listed    int        `json:"listed"`
	NamesOnly int        `json:"namesOnly"`
	Cut       int        `json:"cut"`
	CutSkills []CutSkill `json:"cutSkills"`
}

// CutSkill is one skill left out of the catalogue: its name (a task
// module's id or a runtime skill's name), its source (SkillSource*) and
// why (CutReasonBudget).
type CutSkill struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// SkillBudget is the token budget of the skills-available segment for a
// request with profile p (nil for none): the profile's SkillBudget when
// it sets one, else the server's.
func (a *Assembler) SkillBudget(p *domain.Profile) int {
	switch {
	case p != nil && p.SkillBudget > 0:
		return p.SkillBudget
	case a.cfg.SkillBudget > 0:
		return a.cfg.SkillBudget
	}
	return DefaultSkillBudget
}

// fitSkills fits the skills-available segment (the module s with the
// skill table of the pool r.pool) to budget tokens and sets r.skillRows
// (the listed rows) and r.skillCut (the refs left out). When the whole
// table fits, every skill is listed in library order. Otherwise the
// skills are ranked against the request (rank) and listed most relevant
// first: skills whose triggers fired always, in full; then in full while
// they fit; from the first that does not fit, by name alone while those
// fit; the rest are cut. The segment is then measured whole and the last
// listed skill dropped until it fits, so the budget holds whatever the
// encoding merges across rows. Only skills whose triggers fired can make
// the segment exceed the budget. What it costs beyond the listed rows is
// the ranking's (the request's terms) and one step per skill cut.
func (a *Assembler) fitSkills(r *renderer, s Served, budget int) (*SkillCatalogue, error) {
	counter, err := a.budgetCounter(r.model)
	if err != nil {
		return nil, err
	}
	cat := &SkillCatalogue{Budget: budget, Encoding: counter.Name, Mode: SkillModeFull, CutSkills: []CutSkill{}}
	// A token is at least one byte: text no longer than the budget fits
	// without being counted.
	fits := func(rows []skillRow, table string) (bool, error) {
		if n, ok := r.skillSegmentBound(s, table); ok && n <= budget {
			return true, nil
		}
		text, err := r.skillSegment(s, rows, table)
		if err != nil {
			return false, err
		}
		return len(text) <= budget || counter.Count(text) <= budget, nil
	}
	p := r.pool
	// A table of far more bytes than the budget has tokens (thousands of
	// skills) is not written and counted whole only to learn that it does
	// not fit. A module that does not render is reported by the assembly
	// itself, in the order of the segments.
	if p.tableBytes() <= maxBytesPerToken*budget {
		r.skillRows = p.all()
		r.prepareSkillTable()
		cat.Listed = len(r.skillRows)
		if ok, err := fits(r.skillRows, r.skillTable); err != nil || ok {
			return cat, nil
		}
	}

	rank := p.rank(r.req)
	listed := make([]skillRow, 0, len(rank.fired)+64)
	for _, ref := range rank.fired {
		listed = append(listed, p.row(ref))
	}
	fired := len(listed)
	text, err := r.skillSegment(s, listed, "")
	if err != nil {
		r.skillRows = listed
		r.prepareSkillTable()
		return cat, nil
	}
	used := counter.Count(text)
	var line strings.Builder
	if fired == 0 { // the segment above has no table yet: add its header
		writeSkillTable(&line, r.lab, nil)
		line.WriteByte('\n')
		used += counter.Count(line.String())
	}
	cost := func(row skillRow) int {
		line.Reset()
		writeSkillRow(&line, &row)
		line.WriteByte('\n')
		return counter.Count(line.String())
	}
	namesOnly := false
	rank.each(0, func(ref int32) bool {
		row := p.row(ref)
		if !namesOnly {
			if c := cost(row); used+c <= budget {
				listed, used = append(listed, row), used+c
				return true
			}
			namesOnly = true
		}
		row = namesOnlyRow(row)
		c := cost(row)
		if used+c > budget {
			return false
		}
		listed, used = append(listed, row), used+c
		return true
	})
	for len(listed) > fired {
		if ok, _ := fits(listed, ""); ok {
			break
		}
		listed = listed[:len(listed)-1]
	}

	for _, row := range listed {
		if row.namesOnly {
			cat.NamesOnly++
		}
	}
	// The listed skills after the fired ones are the first of the rest.
	r.skillCut = make([]int32, 0, p.size()-len(listed))
	rank.each(len(listed)-fired, func(ref int32) bool {
		r.skillCut = append(r.skillCut, ref)
		return true
	})
	cat.CutSkills = make([]CutSkill, len(r.skillCut))
	for i, ref := range r.skillCut {
		source := SkillSourceTask
		if ref < 0 {
			source = SkillSourceRuntime
		}
		cat.CutSkills[i] = CutSkill{Name: p.name(ref), Source: source, Reason: CutReasonBudget}
	}
	r.skillRows = listed
	r.prepareSkillTable()
	cat.Listed, cat.Cut = len(listed), len(cat.CutSkills)
	switch {
	case cat.NamesOnly > 0 && cat.NamesOnly == cat.Listed:
		cat.Mode = SkillModeNamesOnly
	case cat.NamesOnly > 0:
		cat.Mode = SkillModeMixed
	}
	return cat, nil
}

// budgetCounter counts tokens for the skill budget: the request model's
// encoding when token counting is on, else tokens.DefaultEncoding, so the
// budget holds in real tokens either way.
func (a *Assembler) budgetCounter(model string) (*tokens.Counter, error) {
	c, err := a.counter(model)
	if err != nil || c != nil {
		return c, err
	}
	c, err = tokens.ForEncoding(tokens.DefaultEncoding)
	if err != nil {
		return nil, err
	}
	if a.cfg.TokenMemo != nil {
		c = c.WithMemo(a.cfg.TokenMemo)
	}
	return c, nil
}

// skillSegmentBound is the length in bytes of the skills-available
// segment of the module s with the skill table text table, without
// rendering it: ok only for a module whose text has no placeholder other
// than the table's (the builtin env.skills), whose length is known
// beforehand.
func (r *renderer) skillSegmentBound(s Served, table string) (n int, ok bool) {
	m := s.Module
	if len(m.Variables) > 0 {
		return 0, false
	}
	for _, p := range m.Pieces {
		switch p.Name {
		case "":
			n += len(p.Literal)
		case library.EnvSkills:
			n += len(table)
		default:
			return 0, false
		}
	}
	if c := strings.TrimSpace(m.OutputContract); c != "" {
		n += len("\n\n") + len(r.lab.get("output_contract.heading")) + len("\n") + len(c)
	}
	return n, true
}

// skillSegment renders the module s of the skills-available segment with
// the skill table of rows, apart from the output, as Assemble would
// render it. table is that table's text when it is at hand, "" to write
// it from rows.
func (r *renderer) skillSegment(s Served, rows []skillRow, table string) (string, error) {
	tmp := &renderer{a: r.a, snap: r.snap, st: r.st, locale: r.locale, lab: r.lab, vars: r.vars,
		req: r.req, model: r.model, now: r.now, loc: r.loc, declared: map[string]bool{},
		kbTables: r.kbTables, skillRows: rows, skillTable: table}
	if table == "" {
		var b strings.Builder
		writeSkillTable(&b, r.lab, rows)
		tmp.skillTable = b.String()
	}
	_, err := tmp.module(s)
	return tmp.out.String(), err
}

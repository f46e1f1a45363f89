package assembler

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"
	"weak"

	"github.com/promptdesk/promptdesk/assembler/tokens"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/weakcache"
)

// Env modules the assembler enters itself (knowledge, skills); every other env
// module is always on.
const (
	ModuleKnowledge    = "env.knowledge"
	ModulePureAgent    = "env.pure-agent"
	ModuleSelectedDocs = "env.selected-docs"
	ModuleSkills       = "env.skills"
)

var assemblerEntered = map[string]bool{ModuleKnowledge: true, ModulePureAgent: true, ModuleSelectedDocs: true, ModuleSkills: true}

// entered is one module that went into a segment: where it came from,
// why, and its text as a span of the output.
type entered struct {
	served  Served
	reason  string
	segment int
	text    span
	tokens  int
	// includes are the modules rendered inside this one, in text order.
	includes []inclusion
}

// plan is what a request enters, decided before anything is rendered.
type plan struct {
	base          []Served
	knowledge     Served
	knowledgeWhy  string
	selected      *Served
	hit           *Served
	hitReason     string
	yields        []ReportEntry
	skills        *Served
	profilePrompt string
	// unknownCommand is the request's explicit command when no task
	// module has a command trigger for it.
	unknownCommand string
}

// Assemble builds the system prompt for req from the library
// snapshot and the operator state st (nil for builtin only). now is the
// clock unless req.Now is set. Errors are *Error values: a profile or
// module not found, a missing or extra variable, an unknown placeholder, an
// include cycle or depth, or an invalid request field.
func (a *Assembler) Assemble(snap *library.Snapshot, st *State, req *Request, now time.Time) (*Result, error) {
	watch := stopwatch{on: a.cfg.Observe != nil}
	if watch.on {
		watch.start = time.Now()
	}
	if st == nil {
		st = &State{}
	}
	var profile *domain.Profile
	if req.Profile != "" {
		p, ok := st.Profiles[req.Profile]
		if !ok {
			return nil, &library.Error{Code: library.CodeNotFound, Field: "profile", Msg: fmt.Sprintf("profile %q does not exist", req.Profile)}
		}
		profile = p
	}
	locale := firstNonEmpty(req.Locale, profileField(profile, func(p *domain.Profile) string { return p.Locale }), a.cfg.FallbackLocale)
	loc, err := a.zone(req, profile)
	if err != nil {
		return nil, err
	}
	if req.Now != nil {
		now = *req.Now
	}
	r := &renderer{a: a, snap: snap, st: st, locale: library.LocaleKey(locale), vars: req.Variables, declared: map[string]bool{},
		req: req, model: firstNonEmpty(req.Model, profileField(profile, func(p *domain.Profile) string { return p.Model })),
		now: now.In(loc), loc: loc, lab: a.labelsFor(snap, locale)}
	if r.lab.labels == nil {
		return nil, &library.Error{Code: library.CodeNotFound, Field: "locale", Msg: "no labels for " + a.lookedIn(locale)}
	}
	pl, err := a.plan(snap, st, req, profile, locale, r)
	if err != nil {
		return nil, err
	}
	r.prepareKnowledgeTables()
	var catalogue *SkillCatalogue
	if pl.skills != nil {
		if catalogue, err = a.fitSkills(r, *pl.skills, a.SkillBudget(profile)); err != nil {
			return nil, err
		}
		// A budget too small for even one skill leaves the segment out:
		// its text would announce a list that is empty.
		if len(r.skillRows) == 0 {
			pl.skills, catalogue.Mode = nil, SkillModeNone
		}
	}
	r.out.Grow(estimate(pl, r))
	r.uses = make([]placeholderUse, 0, 16)

	// Render in segment order into the one buffer.
	var ents []entered
	segNames := make([]string, 0, 5)
	segment := -1
	render := func(name string, s Served, reason string) error {
		if segment < 0 || segNames[segment] != name {
			segNames = append(segNames, name)
			segment++
		}
		if r.out.Len() > 0 {
			r.out.WriteString("\n\n")
		}
		from := len(r.includes)
		sp, err := r.module(s)
		ents = append(ents, entered{served: s, reason: reason, segment: segment, text: sp, includes: r.includes[from:]})
		return err
	}
	ents = make([]entered, 0, len(pl.base)+4)
	baseReason := "default"
	if profile != nil && len(profile.PromptModules) > 0 {
		baseReason = "profile"
	}
	for _, s := range pl.base {
		if err := render(SegmentBase, s, baseReason); err != nil {
			return nil, err
		}
	}
	if err := render(SegmentKnowledge, pl.knowledge, pl.knowledgeWhy); err != nil {
		return nil, err
	}
	if pl.selected != nil {
		if err := render(SegmentKnowledge, *pl.selected, fmt.Sprintf("selected-documents:%d", len(req.SelectedDocuments))); err != nil {
			return nil, err
		}
	}
	if pl.hit != nil {
		if err := render(SegmentSkillsHit, *pl.hit, pl.hitReason); err != nil {
			return nil, err
		}
	}
	if pl.skills != nil {
		if err := render(SegmentSkillsAvailable, *pl.skills, fmt.Sprintf("skills:%d", len(r.skillRows))); err != nil {
			return nil, err
		}
	}
	var profileText span
	if pl.profilePrompt != "" {
		if r.out.Len() > 0 {
			r.out.WriteString("\n\n")
		}
		start := r.out.Len()
		r.out.WriteString(pl.profilePrompt)
		profileText = span{start, r.out.Len(), true}
	}

	if err := extraVariables(req.Variables, r.declared, "", "no module in this assembly declares this variable"); err != nil {
		return nil, err
	}

	text := r.out.String()
	res := &Result{Locale: locale, Text: text, Generation: snap.Generation, Skills: catalogue}
	if profile != nil {
		res.Profile = profile.ID
	}
	if r.kb.set {
		res.Tables.Knowledge = text[r.kb.start:r.kb.end]
	}
	if r.selected.set {
		res.Tables.Selected = text[r.selected.start:r.selected.end]
	}
	if r.skills.set {
		res.Tables.Skills = text[r.skills.start:r.skills.end]
	}
	counter, err := a.counter(r.model)
	if err != nil {
		return nil, err
	}
	if counter != nil {
		res.Encoding = counter.Name
		watch.time(func() {
			for i := range ents {
				ents[i].tokens = a.moduleTokens(counter, &ents[i], text, r.lab)
			}
		})
	}

	// Segments and the report, in order.
	res.Segments = make([]Segment, 0, len(segNames)+1)
	res.Report = make([]ReportEntry, 0, len(ents)+len(pl.yields)+len(r.skillRows)+len(r.skillCut)+len(req.KnowledgeBases)+len(r.uses)+len(r.includes)+5)
	res.Report = append(res.Report, ReportEntry{Kind: KindLibrary, Source: snap.Source, Reason: "generation:" + strconv.Itoa(snap.Generation)})
	stats := knowledgeCounts(req.KnowledgeBases)
	sep := countSeparator(counter)
	segFrom := 0
	for i, e := range ents {
		if i == 0 || ents[i-1].segment != e.segment {
			res.Segments = append(res.Segments, Segment{Layer: segNames[e.segment], Modules: make([]string, 0, 8)})
			segFrom = e.text.start
		} else {
			res.Segments[len(res.Segments)-1].Tokens += sep
		}
		seg := &res.Segments[len(res.Segments)-1]
		seg.Modules = append(seg.Modules, e.served.Module.ID)
		seg.Tokens += e.tokens
		seg.Text = text[segFrom:e.text.end]
		res.Report = append(res.Report, entry(KindPrompt, e.served, e.reason, e.tokens))
		for _, inc := range e.includes {
			tokens := 0
			if counter != nil {
				tokens = watch.count(counter, text[inc.text.start:inc.text.end])
			}
			res.Report = append(res.Report, entry(KindInclude, inc.served, "by:"+inc.by, tokens))
		}
		switch e.served.Module.ID {
		case ModuleKnowledge:
			for _, k := range stats {
				res.Report = append(res.Report, ReportEntry{Kind: KindKnowledge, Module: k.id, Reason: fmt.Sprintf("shown:%d cut:%d", k.shown, k.more)})
			}
		case ModuleSelectedDocs:
			sel := ReportEntry{Kind: KindSelectedDocs, Module: ModuleSelectedDocs, Reason: fmt.Sprintf("docs:%d", len(req.SelectedDocuments))}
			if counter != nil {
				sel.Tokens = watch.count(counter, res.Tables.Selected)
			}
			res.Report = append(res.Report, sel)
		}
		if pl.hit != nil && e.served.Module == pl.hit.Module {
			res.Report = append(res.Report, pl.yields...)
		}
		if pl.skills != nil && e.served.Module == pl.skills.Module {
			for _, row := range r.skillRows {
				res.Report = append(res.Report, skillEntry(KindSkillListed, row))
			}
			for _, ref := range r.skillCut {
				res.Report = append(res.Report, cutEntry(r.pool, ref))
			}
		}
	}
	if pl.skills == nil {
		// Every skill was cut: the entries stand where the segment would.
		for _, ref := range r.skillCut {
			res.Report = append(res.Report, cutEntry(r.pool, ref))
		}
	}
	if profileText.set {
		t := text[profileText.start:profileText.end]
		tokens := 0
		if counter != nil {
			tokens = watch.count(counter, t)
		}
		res.Segments = append(res.Segments, Segment{Layer: SegmentProfile, Text: t, Modules: []string{}, Tokens: tokens})
		res.Report = append(res.Report, ReportEntry{Kind: KindProfilePrompt, Module: profile.ID, Reason: "profile:" + profile.ID, Tokens: tokens})
	}
	for i, seg := range res.Segments {
		if i > 0 {
			res.Tokens += sep
		}
		res.Tokens += seg.Tokens
	}
	for _, u := range r.uses {
		res.Report = append(res.Report, ReportEntry{Kind: KindPlaceholder, Module: u.module, Reason: u.name + "→" + u.source})
	}
	res.Report = append(res.Report, warnings(ents, pl, profile, res)...)
	setLines(res.Report)
	if watch.on {
		a.cfg.Observe(Timing{Assemble: time.Since(watch.start), Tokens: watch.spent})
	}
	if req.Format == FormatMessages {
		res.Messages = messages(res, req.SystemMessages)
	}
	return res, nil
}

// stopwatch adds up the time spent counting tokens in one Assemble when
// Config.Observe wants it; when off it only runs what it is given.
type stopwatch struct {
	on    bool
	start time.Time
	spent time.Duration
}

// time runs f, adding its duration to spent.
func (w *stopwatch) time(f func()) {
	if !w.on {
		f()
		return
	}
	t := time.Now()
	f()
	w.spent += time.Since(t)
}

// count is c.Count(s), timed.
func (w *stopwatch) count(c *tokens.Counter, s string) (n int) {
	w.time(func() { n = c.Count(s) })
	return n
}

// plan decides which modules enter each segment without rendering.
func (a *Assembler) plan(snap *library.Snapshot, st *State, req *Request, profile *domain.Profile, locale string, r *renderer) (*plan, error) {
	pl := &plan{}
	key := library.LocaleKey(locale) // lookups with it lower nothing again
	// itself: the assembler enters id on its own (knowledge, skills), not
	// because a profile names it.
	resolve := func(id string, itself bool) (Served, error) {
		s, ok := a.Resolve(snap, st, id, key)
		if !ok {
			msg := "the library has no such module in " + a.lookedIn(locale)
			if itself {
				msg += " (the assembly enters it itself: a library folder needs the builtin env modules; import --with-builtin, or copy them from the builtin library)"
			}
			return Served{}, &library.Error{Code: library.CodeNotFound, Module: id, Msg: msg}
		}
		return s, nil
	}
	// 1. Base.
	fromProfile := profile != nil && len(profile.PromptModules) > 0
	ids := a.baseModules(snap, st, profile)
	inBase := make(map[string]bool, len(ids))
	pl.base = make([]Served, 0, len(ids))
	for _, id := range ids {
		s, err := resolve(id, false)
		if err != nil {
			if fromProfile {
				return nil, err
			}
			continue // exists only in other locales: not part of this locale's default
		}
		pl.base = append(pl.base, s)
		inBase[id] = true
	}
	// 2. Knowledge.
	var err error
	if len(req.KnowledgeBases) > 0 {
		pl.knowledge, err = resolve(ModuleKnowledge, true)
		pl.knowledgeWhy = fmt.Sprintf("knowledge-bases:%d", len(req.KnowledgeBases))
	} else {
		pl.knowledge, err = resolve(ModulePureAgent, true)
		pl.knowledgeWhy = "no-knowledge-base"
	}
	if err != nil {
		return nil, err
	}
	if len(req.SelectedDocuments) > 0 {
		s, err := resolve(ModuleSelectedDocs, true)
		if err != nil {
			return nil, err
		}
		pl.selected = &s
	}
	// 3. Skills hit.
	cat := a.catalogue(snap, st, key, r.lab)
	var excluded []int32
	for id := range inBase {
		if i, ok := cat.byID[id]; ok {
			excluded = append(excluded, i)
		}
	}
	slices.Sort(excluded)
	folded, command := fold(req.Message), leadingCommand(req)
	var hits []int32
	reasons := map[int32]string{}
	for _, i := range cat.candidates(folded, command, len(req.Attachments) > 0) {
		if _, skip := slices.BinarySearch(excluded, i); skip {
			continue
		}
		if reason, ok := fire(cat.tasks[i].Module, req, folded, command); ok {
			hits = append(hits, i)
			reasons[i] = reason
		}
	}
	slices.SortStableFunc(hits, func(i, j int32) int {
		a, b := cat.tasks[i].Module, cat.tasks[j].Module
		if a.Priority != b.Priority {
			return b.Priority - a.Priority
		}
		return strings.Compare(a.ID, b.ID)
	})
	// A command trigger fires whenever its command is sent, so a command no
	// task fired for is one no task module has (unless the profile put
	// its module in the base segment).
	if req.Command != "" && !anyReason(reasons, "command:") && !anyCommand(pl.base, command) {
		pl.unknownCommand = command
	}
	if len(hits) > 0 {
		w := cat.tasks[hits[0]]
		pl.hit, pl.hitReason = &w, reasons[hits[0]]
		for _, h := range hits[1:] {
			pl.yields = append(pl.yields, entry(KindSkillYield, cat.tasks[h], "superseded-by:"+w.Module.ID, 0))
		}
		excluded = append(excluded, hits[0])
		slices.Sort(excluded)
	}
	// 4. Skills available.
	if profile == nil || profile.SkillDisclosure {
		p := &skillPool{cat: cat, excluded: excluded}
		if len(hits) > 1 {
			p.fired = slices.Clone(hits[1:])
			slices.Sort(p.fired)
		}
		var runtime string
		if len(req.Skills) > 0 {
			var cell strings.Builder
			writeCell(&cell, r.lab.get("skill.trigger.runtime"))
			runtime = cell.String()
		}
		for _, sk := range req.Skills {
			p.runtime = append(p.runtime, skillRow{name: sk.Name, description: sk.Description, trigger: runtime})
		}
		if p.size() > 0 {
			s, err := resolve(ModuleSkills, true)
			if err != nil {
				return nil, err
			}
			pl.skills, r.pool = &s, p
		}
	}
	// 5. Profile system prompt.
	if profile != nil {
		pl.profilePrompt = strings.TrimSpace(profile.SystemPrompt)
	}
	return pl, nil
}

// anyReason reports whether a reason starts with prefix.
func anyReason(reasons map[int32]string, prefix string) bool {
	for _, r := range reasons {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

// anyCommand reports whether one of the served modules has a command
// trigger for command.
func anyCommand(served []Served, command string) bool {
	for _, s := range served {
		for _, t := range s.Module.Triggers {
			if t.Kind == library.TriggerCommand && t.Command == command {
				return true
			}
		}
	}
	return false
}

// estimate guesses the output size in bytes, from above and closely, so
// the buffer is allocated once and not much larger than the text. The
// knowledge-base and skill tables are prepared (r.prepareKnowledgeTables and fitSkills), so their
// lengths are exact.
func estimate(pl *plan, r *renderer) int {
	n := len(pl.profilePrompt) + len(r.model) + 64
	heading := len(r.lab.get("output_contract.heading"))
	add := func(s *Served) {
		if s != nil {
			// A blank line before the module and room for short
			// environment values; the contract under its heading.
			n += len(s.Module.Body) + 8
			if s.Module.OutputContract != "" {
				n += len(s.Module.OutputContract) + heading + 4
			}
		}
	}
	for i := range pl.base {
		add(&pl.base[i])
	}
	add(&pl.knowledge)
	add(pl.selected)
	add(pl.hit)
	add(pl.skills)
	for _, at := range r.req.Attachments {
		n += len(at.Name) + 4
	}
	for _, v := range r.vars {
		n += len(v)
	}
	for _, d := range r.req.SelectedDocuments {
		n += 20 + max(len(d.Title), len(d.FileName)) + len(d.FileType) + len(d.KnowledgeBaseID) + len(d.KnowledgeID)
	}
	return n + n/128 + r.tablesLen()
}

// warnings are the report's warning entries: drifted overrides
// served, more than one output contract, the profile's token budget, an
// explicit command no task module has.
func warnings(ents []entered, pl *plan, profile *domain.Profile, res *Result) []ReportEntry {
	var out []ReportEntry
	var contracts []string
	drifted := func(sv Served) {
		if sv.Source == SourceOverrideDrifted {
			out = append(out, ReportEntry{Kind: KindWarning, Module: sv.Module.ID, Locale: sv.Locale,
				Reason: fmt.Sprintf("drifted-override-served:based-on-v%d:%s", sv.Drift.BasedOnVersion, sv.Drift.Reason)})
		}
	}
	for _, e := range ents {
		drifted(e.served)
		for _, inc := range e.includes {
			drifted(inc.served)
		}
		if strings.TrimSpace(e.served.Module.OutputContract) != "" {
			contracts = append(contracts, e.served.Module.ID)
		}
	}
	if len(contracts) > 1 {
		out = append(out, ReportEntry{Kind: KindWarning, Module: contracts[0], Reason: "several-output-contracts:" + strings.Join(contracts, ",")})
	}
	if Overrun(profile, res) > 0 {
		out = append(out, ReportEntry{Kind: KindWarning, Module: profile.ID, Reason: fmt.Sprintf("token-budget-exceeded:%d>%d", res.Tokens, profile.TokenBudget)})
	}
	if pl.unknownCommand != "" {
		out = append(out, ReportEntry{Kind: KindWarning, Module: "command", Reason: "matches-no-task-module:" + pl.unknownCommand})
	}
	return out
}

// cutEntry is the skill-cut report entry of ref: a task module's made
// ready by its catalogue.
func cutEntry(p *skillPool, ref int32) ReportEntry {
	if ref >= 0 {
		return p.cat.cut[ref]
	}
	return skillEntry(KindSkillCut, p.row(ref))
}

// skillEntry is the report entry of kind (KindSkillListed or
// KindSkillCut) for one skill-table row: a task module's reason is
// "task-module", a runtime skill's "runtime-skill", with ":names-only"
// for a row listed by name alone; a cut skill's reason is
// CutReasonBudget.
func skillEntry(kind string, row skillRow) ReportEntry {
	reason := "task-module"
	if row.served == nil {
		reason = "runtime-skill"
	}
	switch {
	case kind == KindSkillCut:
		reason = CutReasonBudget
	case row.namesOnly:
		reason += ":names-only"
	}
	if row.served == nil {
		return ReportEntry{Kind: kind, Module: row.name, Source: "runtime", Reason: reason}
	}
	return entry(kind, *row.served, reason, 0)
}

// entry is a report entry for the served module s.
func entry(kind string, s Served, reason string, tokens int) ReportEntry {
	e := ReportEntry{Kind: kind, Module: s.Module.ID, Version: s.Module.Version, Source: s.Source,
		Locale: s.Locale, Fallback: s.Fallback, Reason: reason, Tokens: tokens}
	if s.Override != nil {
		e.Revision = s.Override.Revision
	}
	return e
}

// TextForm is the one-line form operators read:
// `prompt(task.doc-minutes v1 · intent:minutes)`; a source other than the
// builtin (with the override's revision, `override r3`) and a
// served-by-fallback locale are appended, for include entries too:
// `include(aux.signature v1 · by:base.identity · fallback:zh-CN)`.
// The library entry reads `library(embedded · generation:1)`.
func (e ReportEntry) TextForm() string { return string(e.appendTextForm(nil)) }

// appendTextForm appends the TextForm of e to b.
func (e ReportEntry) appendTextForm(b []byte) []byte {
	if e.Kind == KindLibrary {
		if e.Source == "" {
			return append(append(append(append(b, e.Kind...), '('), e.Reason...), ')')
		}
		return append(append(append(append(append(append(b, e.Kind...), '('), e.Source...), " · "...), e.Reason...), ')')
	}
	served := e.Kind == KindPrompt || e.Kind == KindInclude
	b = append(append(append(b, e.Kind...), '('), e.Module...)
	if served && e.Version > 0 {
		b = strconv.AppendInt(append(b, " v"...), int64(e.Version), 10)
	}
	if e.Reason != "" {
		b = append(append(b, " · "...), e.Reason...)
	}
	if served && e.Source != SourceBuiltin && e.Source != "" {
		b = append(append(b, " · "...), e.Source...)
		if e.Revision > 0 {
			b = strconv.AppendInt(append(b, " r"...), int64(e.Revision), 10)
		}
	}
	if e.Fallback {
		b = append(append(b, " · fallback:"...), e.Locale...)
	}
	return append(b, ')')
}

// setLines fills the Line of every entry, all lines in one allocation;
// an entry made with its Line (a catalogue's skill-cut entries) keeps it.
func setLines(report []ReportEntry) {
	n := 0
	for i := range report {
		e := &report[i]
		if e.Line != "" {
			continue
		}
		// Room for numbers below 10^6; a longer line grows buf.
		n += len(e.Kind) + len(e.Module) + len(e.Reason) + len(e.Source) + 2*len(" · ") + 2 + 8
		if e.Fallback {
			n += len(" · fallback:") + len(e.Locale)
		}
		if e.Revision > 0 {
			n += 8
		}
	}
	buf := make([]byte, 0, n)
	for i := range report {
		if report[i].Line != "" {
			continue
		}
		start := len(buf)
		buf = report[i].appendTextForm(buf)
		// The bytes are never written again (a grown buf is a new array),
		// so the line can share them.
		report[i].Line = unsafe.String(unsafe.SliceData(buf[start:]), len(buf)-start)
	}
}

// triggerCell returns the skill-table trigger cell of a task module in the
// labels' locale; it depends on nothing else, so it is made once.
func (a *Assembler) triggerCell(l labeler, m *library.Module) string {
	key := triggerKey{weak.Make(m), l.locale}
	if c, ok := a.triggers.Load(key); ok {
		return c.(string)
	}
	c := triggerCell(l, m)
	weakcache.Store(m, &a.triggers, key, c)
	return c
}

// triggerKey identifies a trigger cell: the module, weakly, and the
// labels' locale.
type triggerKey struct {
	module weak.Pointer[library.Module]
	locale string
}

// moduleTokens counts one entered module's text. A module without
// placeholders renders the same text every time, so its count is kept per
// module, encoding and contract heading: static text is counted once.
func (a *Assembler) moduleTokens(c *tokens.Counter, e *entered, text string, lab labeler) int {
	m := e.served.Module
	t := text[e.text.start:e.text.end]
	if len(m.Placeholders) > 0 {
		return c.Count(t)
	}
	key := staticKey{weak.Make(m), c.Name, lab.get("output_contract.heading")}
	if n, ok := a.static.Load(key); ok {
		return n.(int)
	}
	n := c.Count(t)
	weakcache.Store(m, &a.static, key, n)
	return n
}

// staticKey identifies the rendered text of a module without placeholders
// (the module weakly: see weakcache.Store).
type staticKey struct {
	module   weak.Pointer[library.Module]
	encoding string
	heading  string
}

// countSeparator is what the blank line between modules and segments adds
// to a count. In BPE encodings it merges into the tokens around it, so
// Segment.Tokens and Result.Tokens are sums of the module counts. The
// goldens in testdata/ were made by counting whole texts and still match.
func countSeparator(*tokens.Counter) int { return 0 }

func (a *Assembler) counter(model string) (*tokens.Counter, error) {
	if !a.cfg.CountTokens {
		return nil, nil
	}
	c, err := tokens.For(model)
	if err != nil {
		return nil, &library.Error{Code: library.CodeInvalidRequest, Field: "model", Msg: "no tokenizer for this model: " + err.Error()}
	}
	if a.cfg.TokenMemo != nil {
		c = c.WithMemo(a.cfg.TokenMemo)
	}
	return c, nil
}

// zone picks the time zone: request, then profile, then server.
func (a *Assembler) zone(req *Request, p *domain.Profile) (*time.Location, error) {
	field, name := "timeZone", req.TimeZone
	if name == "" && p != nil && p.TimeZone != "" {
		field, name = "profile.timeZone", p.TimeZone
	}
	if name == "" {
		return a.cfg.TimeZone, nil
	}
	if loc, ok := a.zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := LoadZone(name)
	if err != nil {
		return nil, &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: err.Error()}
	}
	a.zones.Store(name, loc) // LoadLocation reads the zone file on every call
	return loc, nil
}

// LoadZone is the one rule for a time zone named by a request, a profile
// or the server's settings: an IANA name (see ianaZoneName) that
// time.LoadLocation finds. The error says `"X" is not an IANA time zone
// such as Asia/Shanghai`.
func LoadZone(name string) (*time.Location, error) {
	loc, err := time.LoadLocation(name)
	if err != nil || !ianaZoneName(name) {
		return nil, fmt.Errorf("%q is not an IANA time zone such as Asia/Shanghai", name)
	}
	return loc, nil
}

// ianaZoneName reports whether name has the form of an IANA zone name
// ("UTC", "Asia/Tokyo", "America/Argentina/Buenos_Aires", "Etc/GMT+8"):
// time.LoadLocation reads names as paths below the zoneinfo folder, which
// would also take "localtime", "Asia//Tokyo", "./UTC" or the "posix/" and
// "right/" copies, each meaning something that depends on the host.
func ianaZoneName(name string) bool {
	switch name {
	case "Local", "localtime", "posixrules", "Factory":
		return false
	}
	for i, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." || (i == 0 && (seg == "posix" || seg == "right")) {
			return false
		}
		for _, c := range seg {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+') {
				return false
			}
		}
	}
	return true
}

// baseModules lists the ids of the base segment: the profile's
// promptModules, or every base module then every always-on env module.
func (a *Assembler) baseModules(snap *library.Snapshot, st *State, p *domain.Profile) []string {
	if p != nil && len(p.PromptModules) > 0 {
		ids := make([]string, 0, len(p.PromptModules))
		for _, id := range p.PromptModules {
			if !assemblerEntered[id] { // entered in their own segment
				ids = append(ids, id)
			}
		}
		return ids
	}
	return a.index(snap, st).base
}

// idIndex is the ids of a library with its user modules: the default
// base segment (every base module, then every always-on env module) and
// the task modules, each sorted.
type idIndex struct{ base, tasks []string }

// index returns the idIndex of snap and st's user modules. Without user
// modules it depends on the snapshot alone and is made once per
// snapshot; with a State that has overrides, which ones are user modules
// is learnt once per State and snapshot.
func (a *Assembler) index(snap *library.Snapshot, st *State) *idIndex {
	if st == nil || st.Overrides.Len() == 0 {
		return a.snapshotIndex(snap)
	}
	key := stateIndexKey{weak.Make(snap), weak.Make(st)}
	if ix, ok := a.indexes.Load(key); ok {
		return ix.(*idIndex)
	}
	ix := a.snapshotIndex(snap)
	if ids, extra := allIDs(snap, st); extra {
		ix = newIDIndex(ids)
	}
	weakcache.Store(st, &a.indexes, key, ix)
	return ix
}

// stateIndexKey identifies the idIndex of a snapshot with a State's user
// modules, both weakly.
type stateIndexKey struct {
	snap weak.Pointer[library.Snapshot]
	st   weak.Pointer[State]
}

// snapshotIndex returns the idIndex of snap alone, made once.
func (a *Assembler) snapshotIndex(snap *library.Snapshot) *idIndex {
	key := weak.Make(snap)
	if ix, ok := a.indexes.Load(key); ok {
		return ix.(*idIndex)
	}
	ix := newIDIndex(snap.IDs())
	weakcache.Store(snap, &a.indexes, key, ix)
	return ix
}

func newIDIndex(ids []string) *idIndex {
	ix := &idIndex{}
	for _, layer := range []library.Layer{library.LayerBase, library.LayerEnv} {
		for _, id := range ids {
			if strings.HasPrefix(id, string(layer)+".") && !assemblerEntered[id] {
				ix.base = append(ix.base, id)
			}
		}
	}
	for _, id := range ids {
		if strings.HasPrefix(id, "task.") {
			ix.tasks = append(ix.tasks, id)
		}
	}
	return ix
}

// allIDs is every builtin id plus user modules (override ids with no
// builtin), sorted; extra says whether there are user modules.
func allIDs(snap *library.Snapshot, st *State) (ids []string, extra bool) {
	ids = snap.IDs()
	var more []string
	// Overrides list by id, so the locales of one id are adjacent.
	for k := range st.Overrides.All() {
		if !snap.Has(k.ID) && (len(more) == 0 || more[len(more)-1] != k.ID) {
			more = append(more, k.ID)
		}
	}
	if len(more) == 0 {
		return ids, false
	}
	all := append(append([]string{}, ids...), more...)
	sort.Strings(all)
	return all, true
}

// extraVariables is the CodeExtraVariable error of the variables in vars
// that no rendered module declared, nil when there are none. It names the
// first in sorted order (the same request gets the same answer) and lists
// the others in the message.
func extraVariables(vars map[string]string, declared map[string]bool, module, msg string) error {
	var extra []string
	for name := range vars {
		if !declared[name] {
			extra = append(extra, name)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	sort.Strings(extra)
	if len(extra) > 1 {
		msg += "; nor " + strings.Join(extra[1:], ", ")
	}
	return &library.Error{Code: library.CodeExtraVariable, Module: module, Placeholder: extra[0], Field: "variables." + extra[0], Msg: msg}
}

func profileField(p *domain.Profile, f func(*domain.Profile) string) string {
	if p == nil {
		return ""
	}
	return f(p)
}

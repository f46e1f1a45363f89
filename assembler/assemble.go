package assembler

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/assembler/tokens"
	"github.com/promptdesk/promptdesk/library"
)

// Env modules the assembler enters itself (S5 steps 2–4); every other env
// module is always on.
const (
	ModuleKnowledge    = "env.knowledge"
	ModulePureAgent    = "env.pure-agent"
	ModuleSelectedDocs = "env.selected-docs"
	ModuleSkills       = "env.skills"
)

var assemblerEntered = map[string]bool{ModuleKnowledge: true, ModulePureAgent: true, ModuleSelectedDocs: true, ModuleSkills: true}

// entered is one module that went into a segment.
type entered struct {
	served Served
	reason string
	text   string
}

// Assemble builds the system prompt for req (S5) from the library
// snapshot and the operator state st (nil for builtin only). now is the
// clock unless req.Now is set. Errors are *Error values: a profile or
// module not found, a missing or extra variable, an unknown placeholder, an
// include cycle or depth, or an invalid request field.
func (a *Assembler) Assemble(snap *library.Snapshot, st *State, req *Request, now time.Time) (*Result, error) {
	if st == nil {
		st = &State{}
	}
	var profile *Profile
	if req.Profile != "" {
		p, ok := st.Profiles[req.Profile]
		if !ok {
			return nil, &Error{Code: CodeNotFound, Field: "profile", Msg: fmt.Sprintf("profile %q does not exist", req.Profile)}
		}
		profile = p
	}
	locale := firstNonEmpty(req.Locale, profileField(profile, func(p *Profile) string { return p.Locale }), a.cfg.FallbackLocale)
	model := firstNonEmpty(req.Model, profileField(profile, func(p *Profile) string { return p.Model }))
	loc, err := a.zone(req, profile)
	if err != nil {
		return nil, err
	}
	if req.Now != nil {
		now = *req.Now
	}
	r := &renderer{a: a, snap: snap, st: st, locale: locale, vars: req.Variables, declared: map[string]bool{}}
	lab := r.labels()
	if lab.labels == nil {
		return nil, &Error{Code: CodeNotFound, Field: "locale", Msg: fmt.Sprintf("no labels for %s or the fallback %s", locale, a.cfg.FallbackLocale)}
	}
	res := &Result{Locale: locale}
	if profile != nil {
		res.Profile = profile.ID
	}
	r.env = a.environment(lab, req, model, now.In(loc))
	kbText, kbStats := knowledgeTables(lab, req.KnowledgeBases, loc)
	if len(req.KnowledgeBases) > 0 {
		res.Tables.Knowledge = kbText
		r.env[library.EnvKnowledgeBases] = kbText
	}
	if len(req.SelectedDocuments) > 0 {
		res.Tables.Selected = selectedTable(lab, req.SelectedDocuments, req.KnowledgeBases)
		r.env[library.EnvSelectedDocuments] = res.Tables.Selected
	}

	var segs [][]entered
	names := []string{}
	addSegment := func(name string, es []entered) {
		if len(es) > 0 {
			segs = append(segs, es)
			names = append(names, name)
		}
	}
	enter := func(id, reason string) (entered, error) {
		s, ok := a.Resolve(snap, st, id, locale)
		if !ok {
			return entered{}, &Error{Code: CodeNotFound, Module: id, Msg: "module not found in " + locale + " or " + a.cfg.FallbackLocale}
		}
		text, err := r.render(s, nil)
		return entered{served: s, reason: reason, text: text}, err
	}

	// 1. Base.
	var base []entered
	inBase := map[string]bool{}
	fromProfile := profile != nil && len(profile.PromptModules) > 0
	for _, id := range a.baseModules(snap, st, profile) {
		reason := "default"
		if fromProfile {
			reason = "profile"
		} else if _, ok := a.Resolve(snap, st, id, locale); !ok {
			continue // exists only in other locales: not part of this locale's default
		}
		e, err := enter(id, reason)
		if err != nil {
			return nil, err
		}
		base = append(base, e)
		inBase[id] = true
	}
	addSegment(SegmentBase, base)

	// 2. Knowledge.
	var knowledge []entered
	kbModule, kbReason := ModulePureAgent, "no-knowledge-base"
	if len(req.KnowledgeBases) > 0 {
		kbModule, kbReason = ModuleKnowledge, fmt.Sprintf("knowledge-bases:%d", len(req.KnowledgeBases))
	}
	e, err := enter(kbModule, kbReason)
	if err != nil {
		return nil, err
	}
	knowledge = append(knowledge, e)
	if len(req.SelectedDocuments) > 0 {
		e, err := enter(ModuleSelectedDocs, fmt.Sprintf("selected-documents:%d", len(req.SelectedDocuments)))
		if err != nil {
			return nil, err
		}
		knowledge = append(knowledge, e)
	}
	addSegment(SegmentKnowledge, knowledge)

	// 3. Skills hit.
	tasks := a.taskModules(snap, st, locale, inBase)
	folded, command := fold(req.Message), leadingCommand(req)
	type hit struct {
		s      Served
		reason string
	}
	var hits []hit
	for _, s := range tasks {
		if reason, ok := fire(s.Module, req, folded, command); ok {
			hits = append(hits, hit{s, reason})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].s.Module.Priority != hits[j].s.Module.Priority {
			return hits[i].s.Module.Priority > hits[j].s.Module.Priority
		}
		return hits[i].s.Module.ID < hits[j].s.Module.ID
	})
	var yields []ReportEntry
	winner := ""
	if len(hits) > 0 {
		winner = hits[0].s.Module.ID
		text, err := r.render(hits[0].s, nil)
		if err != nil {
			return nil, err
		}
		addSegment(SegmentSkillsHit, []entered{{served: hits[0].s, reason: hits[0].reason, text: text}})
		for _, h := range hits[1:] {
			yields = append(yields, ReportEntry{Kind: KindSkillYield, Module: h.s.Module.ID, Version: h.s.Module.Version,
				Source: h.s.Source, Locale: h.s.Locale, Fallback: h.s.Fallback, Reason: "superseded-by:" + winner})
		}
	}

	// 4. Skills available.
	var listed []ReportEntry
	if profile == nil || profile.SkillDisclosure {
		var rows []skillRow
		for _, s := range tasks {
			if s.Module.ID == winner {
				continue
			}
			rows = append(rows, skillRow{s.Module.ID, s.Module.Description, triggerText(lab, s.Module)})
			listed = append(listed, ReportEntry{Kind: KindSkillListed, Module: s.Module.ID, Version: s.Module.Version,
				Source: s.Source, Locale: s.Locale, Fallback: s.Fallback, Reason: "task-module"})
		}
		for _, sk := range req.Skills {
			rows = append(rows, skillRow{sk.Name, sk.Description, lab.get("skill.trigger.runtime")})
			listed = append(listed, ReportEntry{Kind: KindSkillListed, Module: sk.Name, Source: "runtime", Reason: "runtime-skill"})
		}
		if len(rows) > 0 {
			res.Tables.Skills = skillTable(lab, rows)
			r.env[library.EnvSkills] = res.Tables.Skills
			e, err := enter(ModuleSkills, fmt.Sprintf("skills:%d", len(rows)))
			if err != nil {
				return nil, err
			}
			addSegment(SegmentSkillsAvailable, []entered{e})
		}
	}

	// Extra variables: supplied but declared by no module that entered.
	for name := range req.Variables {
		if !r.declared[name] {
			return nil, &Error{Code: CodeExtraVariable, Placeholder: name, Field: "variables." + name, Msg: "no module in this assembly declares this variable"}
		}
	}

	counter, err := a.counter(model)
	if err != nil {
		return nil, err
	}
	count := func(s string) int {
		if counter == nil {
			return 0
		}
		return counter.Count(s)
	}
	if counter != nil {
		res.Encoding = counter.Name
	}

	// Segments and report, in order.
	var texts []string
	for i, es := range segs {
		seg := Segment{Layer: names[i]}
		parts := make([]string, 0, len(es))
		for _, e := range es {
			parts = append(parts, e.text)
			seg.Modules = append(seg.Modules, e.served.Module.ID)
			res.Report = append(res.Report, entry(KindPrompt, e.served, e.reason, count(e.text)))
			if e.served.Module.ID == ModuleKnowledge {
				for _, k := range kbStats {
					res.Report = append(res.Report, ReportEntry{Kind: KindKnowledge, Module: k.id, Reason: fmt.Sprintf("shown:%d cut:%d", k.shown, k.more)})
				}
			}
			if e.served.Module.ID == ModuleSelectedDocs {
				res.Report = append(res.Report, ReportEntry{Kind: KindSelectedDocs, Module: ModuleSelectedDocs, Reason: fmt.Sprintf("docs:%d", len(req.SelectedDocuments)), Tokens: count(res.Tables.Selected)})
			}
		}
		if names[i] == SegmentSkillsHit {
			res.Report = append(res.Report, yields...)
		}
		if names[i] == SegmentSkillsAvailable {
			res.Report = append(res.Report, listed...)
		}
		seg.Text = strings.Join(parts, "\n\n")
		seg.Tokens = count(seg.Text)
		res.Segments = append(res.Segments, seg)
		texts = append(texts, seg.Text)
	}
	if len(hits) > 0 && !contains(names, SegmentSkillsHit) {
		res.Report = append(res.Report, yields...)
	}

	// 5. Profile system prompt, last.
	if profile != nil && strings.TrimSpace(profile.SystemPrompt) != "" {
		text := strings.TrimSpace(profile.SystemPrompt)
		res.Segments = append(res.Segments, Segment{Layer: SegmentProfile, Text: text, Modules: []string{}, Tokens: count(text)})
		res.Report = append(res.Report, ReportEntry{Kind: KindProfilePrompt, Module: profile.ID, Reason: "profile:" + profile.ID, Tokens: count(text)})
		texts = append(texts, text)
	}

	for _, u := range r.uses {
		res.Report = append(res.Report, ReportEntry{Kind: KindPlaceholder, Module: u.module, Reason: u.name + "→" + u.source})
	}
	for _, es := range segs {
		for _, e := range es {
			if e.served.Source == SourceOverrideDrifted {
				res.Report = append(res.Report, ReportEntry{Kind: KindWarning, Module: e.served.Module.ID, Locale: e.served.Locale,
					Reason: fmt.Sprintf("drifted-override-served:based-on-v%d", e.served.Override.BasedOnVersion)})
			}
		}
	}
	res.Text = strings.Join(texts, "\n\n")
	res.Tokens = count(res.Text)
	if profile != nil && profile.TokenBudget > 0 && counter != nil && res.Tokens > profile.TokenBudget {
		res.Report = append(res.Report, ReportEntry{Kind: KindWarning, Module: profile.ID, Reason: fmt.Sprintf("token-budget-exceeded:%d>%d", res.Tokens, profile.TokenBudget)})
	}
	for i := range res.Report {
		res.Report[i].Line = res.Report[i].TextForm()
	}
	return res, nil
}

func entry(kind string, s Served, reason string, tokens int) ReportEntry {
	return ReportEntry{Kind: kind, Module: s.Module.ID, Version: s.Module.Version, Source: s.Source,
		Locale: s.Locale, Fallback: s.Fallback, Reason: reason, Tokens: tokens}
}

// TextForm is the one-line form operators read (S5.5):
// `prompt(task.doc-minutes v1 · intent:minutes)`; a source other than the
// builtin and a served-by-fallback locale are appended.
func (e ReportEntry) TextForm() string {
	var b strings.Builder
	b.WriteString(e.Kind)
	b.WriteString("(")
	b.WriteString(e.Module)
	if e.Kind == KindPrompt && e.Version > 0 {
		fmt.Fprintf(&b, " v%d", e.Version)
	}
	if e.Reason != "" {
		b.WriteString(" · ")
		b.WriteString(e.Reason)
	}
	if e.Kind == KindPrompt && e.Source != SourceBuiltin && e.Source != "" {
		b.WriteString(" · ")
		b.WriteString(e.Source)
	}
	if e.Fallback {
		fmt.Fprintf(&b, " · fallback:%s", e.Locale)
	}
	b.WriteString(")")
	return b.String()
}

func (a *Assembler) counter(model string) (*tokens.Counter, error) {
	if !a.cfg.CountTokens {
		return nil, nil
	}
	return tokens.For(model)
}

// zone picks the time zone: request, then profile, then server (S4).
func (a *Assembler) zone(req *Request, p *Profile) (*time.Location, error) {
	field, name := "timeZone", req.TimeZone
	if name == "" && p != nil && p.TimeZone != "" {
		field, name = "profile.timeZone", p.TimeZone
	}
	if name == "" {
		return a.cfg.TimeZone, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, &Error{Code: CodeInvalidRequest, Field: field, Msg: fmt.Sprintf("%q is not an IANA time zone", name)}
	}
	return loc, nil
}

// environment computes the S4 values that do not depend on tables.
func (a *Assembler) environment(l labeler, req *Request, model string, now time.Time) map[string]string {
	names := make([]string, 0, len(req.Attachments))
	for _, at := range req.Attachments {
		names = append(names, at.Name)
	}
	attachments := l.get("attachments.none")
	if len(names) > 0 {
		attachments = strings.Join(names, l.get("list.separator"))
	}
	web := l.get("web_search.disabled")
	if req.WebSearch {
		web = l.get("web_search.enabled")
	}
	return map[string]string{
		library.EnvDate:              now.Format("2006-01-02"),
		library.EnvWeekday:           l.get("weekday." + strings.ToLower(now.Weekday().String())),
		library.EnvCurrentTime:       now.Format(time.RFC3339),
		library.EnvModel:             model,
		library.EnvAttachments:       attachments,
		library.EnvWebSearchStatus:   web,
		library.EnvKnowledgeBases:    "",
		library.EnvSelectedDocuments: "",
		library.EnvSkills:            "",
	}
}

// baseModules lists the ids of segment 1 (S5): the profile's
// promptModules, or every base module then every always-on env module.
func (a *Assembler) baseModules(snap *library.Snapshot, st *State, p *Profile) []string {
	if p != nil && len(p.PromptModules) > 0 {
		ids := make([]string, 0, len(p.PromptModules))
		for _, id := range p.PromptModules {
			if !assemblerEntered[id] { // entered in their own step (S5 2–4)
				ids = append(ids, id)
			}
		}
		return ids
	}
	var ids []string
	for _, layer := range []library.Layer{library.LayerBase, library.LayerEnv} {
		for _, id := range allIDs(snap, st) {
			if strings.HasPrefix(id, string(layer)+".") && !assemblerEntered[id] {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// taskModules resolves every task module not already in the base segment.
func (a *Assembler) taskModules(snap *library.Snapshot, st *State, locale string, skip map[string]bool) []Served {
	var out []Served
	for _, id := range allIDs(snap, st) {
		if !strings.HasPrefix(id, "task.") || skip[id] {
			continue
		}
		if s, ok := a.Resolve(snap, st, id, locale); ok {
			out = append(out, s)
		}
	}
	return out
}

// allIDs is every builtin id plus user modules (override ids with no
// builtin), sorted.
func allIDs(snap *library.Snapshot, st *State) []string {
	ids := snap.IDs()
	var extra []string
	for k := range st.Overrides {
		if !snap.Has(k.ID) && !contains(extra, k.ID) {
			extra = append(extra, k.ID)
		}
	}
	if len(extra) == 0 {
		return ids
	}
	all := append(append([]string{}, ids...), extra...)
	sort.Strings(all)
	return all
}

func profileField(p *Profile, f func(*Profile) string) string {
	if p == nil {
		return ""
	}
	return f(p)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

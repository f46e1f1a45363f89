package assembler_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// orderLib has base, always-on env, task, style and aux modules, given
// out of id order on purpose.
func orderLib(t *testing.T) *library.Snapshot {
	t.Helper()
	return newLib(t, withCore(
		mod{id: "env.web", body: "WEB {{web_search_status}}"},
		mod{id: "base.b", body: "BASE B"},
		mod{id: "env.clock", body: "CLOCK {{date}}"},
		mod{id: "base.a", body: "BASE A"},
		mod{id: "style.terse", body: "STYLE TERSE"},
		mod{id: "aux.title", body: "AUX TITLE"},
		mod{id: "task.minutes", front: "priority: 70\ntriggers:\n- kind: intent\n  keywords: minutes\n", body: "TASK MINUTES"},
		mod{id: "task.summary", front: "priority: 50\ntriggers:\n- kind: intent\n  keywords: summary\n", body: "TASK SUMMARY"},
	)...)
}

// With no profile, the base segment is every base module in id order then
// every always-on env module in id order; style and aux modules stay out.
func TestDefaultBaseSegment(t *testing.T) {
	t.Parallel()
	res := mustAssemble(t, orderLib(t), nil, &assembler.Request{})
	base := segment(t, res, assembler.SegmentBase)
	if want := []string{"base.a", "base.b", "env.clock", "env.web"}; !slices.Equal(base.Modules, want) {
		t.Errorf("base modules = %v, want %v", base.Modules, want)
	}
	if want := "BASE A\n\nBASE B\n\nCLOCK 2026-11-29\n\nWEB disabled"; base.Text != want {
		t.Errorf("base text = %q, want %q", base.Text, want)
	}
	for _, id := range base.Modules {
		if e := entryFor(t, res, assembler.KindPrompt, id); e.Reason != "default" {
			t.Errorf("%s reason %q, want default", id, e.Reason)
		}
	}
	if strings.Contains(res.Text, "STYLE TERSE") || strings.Contains(res.Text, "AUX TITLE") {
		t.Errorf("a style or aux module entered without a profile naming it:\n%s", res.Text)
	}
}

// Segments come in the order base → knowledge → skills-hit →
// skills-available → profile, each with the right modules.
func TestSegmentOrder(t *testing.T) {
	t.Parallel()
	profile := &domain.Profile{ID: "ops", Locale: "en-US", SkillDisclosure: true, SystemPrompt: "  PROFILE PROMPT  \n"}
	st := stateWith(nil, profile)
	res := mustAssemble(t, orderLib(t), st, &assembler.Request{
		Profile: "ops",
		Message: "write the minutes and a summary",
		KnowledgeBases: []assembler.KnowledgeBase{{ID: "kb1", Name: "Docs", Type: assembler.KnowledgeDocument, DocCount: 1,
			RecentDocs: []assembler.Document{{KnowledgeID: "d1", Title: "Guide"}}}},
		SelectedDocuments: []assembler.SelectedDocument{{KnowledgeID: "d1", KnowledgeBaseID: "kb1", Title: "Guide"}},
		Skills:            []assembler.Skill{{Name: "pdf", Description: "Read PDF files"}},
	})
	want := []string{assembler.SegmentBase, assembler.SegmentKnowledge, assembler.SegmentSkillsHit, assembler.SegmentSkillsAvailable, assembler.SegmentProfile}
	if got := segmentNames(res); !slices.Equal(got, want) {
		t.Fatalf("segments = %v, want %v", got, want)
	}
	mods := map[string][]string{
		assembler.SegmentBase:            {"base.a", "base.b", "env.clock", "env.web"},
		assembler.SegmentKnowledge:       {assembler.ModuleKnowledge, assembler.ModuleSelectedDocs},
		assembler.SegmentSkillsHit:       {"task.minutes"},
		assembler.SegmentSkillsAvailable: {assembler.ModuleSkills},
		assembler.SegmentProfile:         {},
	}
	for _, s := range res.Segments {
		if !slices.Equal(s.Modules, mods[s.Layer]) {
			t.Errorf("segment %s modules = %v, want %v", s.Layer, s.Modules, mods[s.Layer])
		}
	}
	texts := make([]string, len(res.Segments))
	for i, s := range res.Segments {
		texts[i] = s.Text
	}
	if res.Text != strings.Join(texts, "\n\n") {
		t.Errorf("Result.Text is not the segments joined by a blank line")
	}
	if !strings.HasSuffix(res.Text, "\n\nPROFILE PROMPT") {
		t.Errorf("the profile system prompt is not last: ...%q", res.Text[max(0, len(res.Text)-40):])
	}
	lines := reportLines(res)
	wantLines := []string{
		"library(generation:1)",
		"prompt(base.a v1 · default · file)",
		"prompt(base.b v1 · default · file)",
		"prompt(env.clock v1 · default · file)",
		"prompt(env.web v1 · default · file)",
		"prompt(env.knowledge v1 · knowledge-bases:1 · file)",
		"knowledge(kb1 · shown:1 cut:0)",
		"prompt(env.selected-docs v1 · selected-documents:1 · file)",
		"selected-docs(env.selected-docs · docs:1)",
		"prompt(task.minutes v1 · intent:minutes · file)",
		"skill-yield(task.summary · superseded-by:task.minutes)",
		"prompt(env.skills v1 · skills:2 · file)",
		"skill-listed(task.summary · task-module)",
		"skill-listed(pdf · runtime-skill)",
		"profile-prompt(ops · profile:ops)",
	}
	if len(lines) < len(wantLines) || !slices.Equal(lines[:len(wantLines)], wantLines) {
		t.Errorf("report =\n%s\nwant it to start with\n%s", strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
	}
}

// Knowledge segment: env.pure-agent when no knowledge base is given,
// env.knowledge when one is; env.selected-docs only with selected
// documents.
func TestKnowledgeSegment(t *testing.T) {
	t.Parallel()
	snap := orderLib(t)
	kb := []assembler.KnowledgeBase{{ID: "kb1", Name: "Docs", Type: assembler.KnowledgeDocument}}
	sel := []assembler.SelectedDocument{{KnowledgeID: "d9", Title: "Spec"}}
	tests := []struct {
		name string
		kbs  []assembler.KnowledgeBase
		sel  []assembler.SelectedDocument
		want []string
	}{
		{"nothing", nil, nil, []string{assembler.ModulePureAgent}},
		{"knowledge base", kb, nil, []string{assembler.ModuleKnowledge}},
		{"selected docs only", nil, sel, []string{assembler.ModulePureAgent, assembler.ModuleSelectedDocs}},
		{"both", kb, sel, []string{assembler.ModuleKnowledge, assembler.ModuleSelectedDocs}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := mustAssemble(t, snap, nil, &assembler.Request{KnowledgeBases: tt.kbs, SelectedDocuments: tt.sel})
			if got := segment(t, res, assembler.SegmentKnowledge).Modules; !slices.Equal(got, tt.want) {
				t.Errorf("knowledge segment = %v, want %v", got, tt.want)
			}
			if tt.kbs == nil && (strings.Contains(res.Text, "KNOWLEDGE") || res.Tables.Knowledge != "") {
				t.Errorf("knowledge wording without a knowledge base")
			}
			if tt.kbs != nil && strings.Contains(res.Text, "PURE AGENT") {
				t.Errorf("pure-agent wording with a knowledge base")
			}
			if (tt.sel == nil) != (res.Tables.Selected == "") {
				t.Errorf("selected table = %q with %d selected docs", res.Tables.Selected, len(tt.sel))
			}
		})
	}
}

// A profile's promptModules replace the default base in their
// order (a style module only because the profile names it), its system
// prompt comes last, and skill disclosure off drops env.skills.
func TestProfile(t *testing.T) {
	t.Parallel()
	snap := orderLib(t)
	st := stateWith(nil,
		&domain.Profile{ID: "styled", PromptModules: []string{"base.b", "style.terse", "base.a"}, SystemPrompt: "Be brief.", SkillDisclosure: false},
		&domain.Profile{ID: "open", SkillDisclosure: true},
		&domain.Profile{ID: "budget", SkillDisclosure: true, TokenBudget: 10},
		&domain.Profile{ID: "zh", Locale: "zh-CN", SkillDisclosure: true},
	)

	t.Run("promptModules and system prompt", func(t *testing.T) {
		t.Parallel()
		res := mustAssemble(t, snap, st, &assembler.Request{Profile: "styled", Message: "minutes", Skills: []assembler.Skill{{Name: "pdf", Description: "PDF"}}})
		base := segment(t, res, assembler.SegmentBase)
		if want := []string{"base.b", "style.terse", "base.a"}; !slices.Equal(base.Modules, want) {
			t.Errorf("base modules = %v, want %v", base.Modules, want)
		}
		if e := entryFor(t, res, assembler.KindPrompt, "style.terse"); e.Reason != "profile" {
			t.Errorf("style.terse reason %q, want profile", e.Reason)
		}
		if want := []string{assembler.SegmentBase, assembler.SegmentKnowledge, assembler.SegmentSkillsHit, assembler.SegmentProfile}; !slices.Equal(segmentNames(res), want) {
			t.Errorf("segments = %v, want %v (no skills-available with disclosure off)", segmentNames(res), want)
		}
		if res.Tables.Skills != "" || len(entries(res, assembler.KindSkillListed)) != 0 || strings.Contains(res.Text, "SKILLS") {
			t.Errorf("skill disclosure is off but skills were listed")
		}
		last := res.Segments[len(res.Segments)-1]
		if last.Text != "Be brief." || !strings.HasSuffix(res.Text, "\n\nBe brief.") {
			t.Errorf("last segment %q; the system prompt must be last", last.Text)
		}
		if res.Profile != "styled" {
			t.Errorf("Result.Profile = %q", res.Profile)
		}
	})
	t.Run("no promptModules: default base, style stays out", func(t *testing.T) {
		t.Parallel()
		res := mustAssemble(t, snap, st, &assembler.Request{Profile: "open"})
		if want := []string{"base.a", "base.b", "env.clock", "env.web"}; !slices.Equal(segment(t, res, assembler.SegmentBase).Modules, want) {
			t.Errorf("base modules = %v, want %v", segment(t, res, assembler.SegmentBase).Modules, want)
		}
		if strings.Contains(res.Text, "STYLE TERSE") {
			t.Errorf("style module entered without the profile naming it")
		}
		if slices.Contains(segmentNames(res), assembler.SegmentProfile) || len(entries(res, assembler.KindProfilePrompt)) != 0 {
			t.Errorf("empty system prompt gave a profile segment")
		}
	})
	t.Run("profile locale", func(t *testing.T) {
		t.Parallel()
		res := mustAssemble(t, snap, st, &assembler.Request{Profile: "zh"})
		if res.Locale != "zh-CN" || !strings.Contains(res.Text, "WEB 未开启") {
			t.Errorf("locale %q; web label should be zh-CN:\n%s", res.Locale, res.Text)
		}
	})
	t.Run("unknown profile", func(t *testing.T) {
		t.Parallel()
		e := assembleErr(t, snap, st, &assembler.Request{Profile: "nope"})
		if e.Code != library.CodeNotFound || e.Field != "profile" || !errors.Is(e, library.ErrNotFound) {
			t.Errorf("error = %+v, want not_found on field profile", e)
		}
	})
	t.Run("token budget warning", func(t *testing.T) {
		t.Parallel()
		res, err := assembler.New(assembler.Config{CountTokens: true}).Assemble(snap, st, &assembler.Request{Profile: "budget"}, fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if res.Tokens <= 10 {
			t.Fatalf("Tokens = %d; the test needs more than the budget of 10", res.Tokens)
		}
		w := entryFor(t, res, assembler.KindWarning, "budget")
		if want := "token-budget-exceeded:" + strconv.Itoa(res.Tokens) + ">10"; w.Reason != want {
			t.Errorf("warning reason %q, want %q", w.Reason, want)
		}
		res, err = assembler.New(assembler.Config{CountTokens: true}).Assemble(snap, st, &assembler.Request{Profile: "open"}, fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if w := entries(res, assembler.KindWarning); len(w) != 0 {
			t.Errorf("warnings without a budget: %+v", w)
		}
	})
}

// The override chain: override(L) → builtin(L) → override(F) → builtin(F);
// the report says which served, from which locale, and whether by fallback.
func TestLocaleChain(t *testing.T) {
	t.Parallel()
	builtinEN := mod{id: "base.greet", body: "builtin en"}
	builtinZH := mod{locale: "zh-CN", id: "base.greet", body: "builtin zh"}
	snap := newLib(t, withCore(builtinEN, builtinZH, mod{id: "base.only-en", body: "only en"})...)
	enText := func() string { m, _ := snap.Module("base.greet", "en-US"); return m.Text }()
	zhText := func() string { m, _ := snap.Module("base.greet", "zh-CN"); return m.Text }()
	overEN := override(t, mod{id: "base.greet", body: "override en"}, 1, enText)
	overZH := override(t, mod{locale: "zh-CN", id: "base.greet", body: "override zh"}, 1, zhText)
	overOnlyEN := func() *assembler.Override {
		m, _ := snap.Module("base.only-en", "en-US")
		return override(t, mod{id: "base.only-en", body: "override only en"}, 1, m.Text)
	}()

	tests := []struct {
		name      string
		locale    string
		overrides []*assembler.Override
		id        string
		text      string
		source    string
		served    string
		fallback  bool
	}{
		{"builtin L", "zh-CN", nil, "base.greet", "builtin zh", assembler.SourceFile, "zh-CN", false},
		{"override L beats builtin L", "zh-CN", []*assembler.Override{overZH, overEN}, "base.greet", "override zh", assembler.SourceOverride, "zh-CN", false},
		{"an en-US override never replaces zh-CN builtin", "zh-CN", []*assembler.Override{overEN}, "base.greet", "builtin zh", assembler.SourceFile, "zh-CN", false},
		{"override F for a locale the library lacks", "ja-JP", []*assembler.Override{overEN}, "base.greet", "override en", assembler.SourceOverride, "en-US", true},
		{"builtin F", "ja-JP", nil, "base.greet", "builtin en", assembler.SourceFile, "en-US", true},
		{"override F beats builtin F", "zh-CN", []*assembler.Override{overOnlyEN}, "base.only-en", "override only en", assembler.SourceOverride, "en-US", true},
		{"builtin F for a module missing in L", "zh-CN", nil, "base.only-en", "only en", assembler.SourceFile, "en-US", true},
		{"locale compared without case", "ZH-cn", []*assembler.Override{overZH}, "base.greet", "override zh", assembler.SourceOverride, "zh-CN", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := mustAssemble(t, snap, stateWith(tt.overrides), &assembler.Request{Locale: tt.locale})
			e := entryFor(t, res, assembler.KindPrompt, tt.id)
			if e.Source != tt.source || e.Locale != tt.served || e.Fallback != tt.fallback {
				t.Errorf("entry = %+v, want source %s, locale %s, fallback %v", e, tt.source, tt.served, tt.fallback)
			}
			if !strings.Contains(res.Text, tt.text) {
				t.Errorf("text does not contain %q:\n%s", tt.text, res.Text)
			}
			if tt.fallback && !strings.HasSuffix(e.Line, " · fallback:"+tt.served+")") {
				t.Errorf("line %q does not show the fallback", e.Line)
			}
		})
	}
}

// A drifted override still serves, marked override-drifted, with a
// warning; an override of an id with no builtin is a user module.
func TestOverrideSources(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(mod{id: "base.greet", version: 3, body: "builtin v3"})...)
	current, _ := snap.Module("base.greet", "en-US")

	tests := []struct {
		name     string
		over     *assembler.Override
		source   string
		warning  string
		lineWant string
	}{
		{"up to date", override(t, mod{id: "base.greet", version: 3, body: "mine"}, 3, current.Text), assembler.SourceOverride, "",
			"prompt(base.greet v3 · default · override r1)"},
		{"builtin version moved on", override(t, mod{id: "base.greet", version: 3, body: "mine"}, 2, "old text"), assembler.SourceOverrideDrifted,
			"warning(base.greet · drifted-override-served:based-on-v2:builtin-version-raised)", "prompt(base.greet v3 · default · override-drifted r1)"},
		{"builtin text changed without a version bump", override(t, mod{id: "base.greet", version: 3, body: "mine"}, 3, "other text"), assembler.SourceOverrideDrifted,
			"warning(base.greet · drifted-override-served:based-on-v3:builtin-text-changed)", "prompt(base.greet v3 · default · override-drifted r1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := mustAssemble(t, snap, stateWith([]*assembler.Override{tt.over}), &assembler.Request{})
			e := entryFor(t, res, assembler.KindPrompt, "base.greet")
			if e.Source != tt.source || e.Line != tt.lineWant {
				t.Errorf("entry source %q line %q, want %q %q", e.Source, e.Line, tt.source, tt.lineWant)
			}
			if !strings.Contains(res.Text, "mine") || strings.Contains(res.Text, "builtin v3") {
				t.Errorf("the override must serve (drifted or not):\n%s", res.Text)
			}
			var warnings []string
			for _, w := range entries(res, assembler.KindWarning) {
				warnings = append(warnings, w.Line)
			}
			var want []string
			if tt.warning != "" {
				want = []string{tt.warning}
			}
			if !slices.Equal(warnings, want) {
				t.Errorf("warnings = %q, want %q", warnings, want)
			}
		})
	}

	t.Run("user module", func(t *testing.T) {
		t.Parallel()
		user := override(t, mod{id: "base.mine", body: "user text"}, 0, "")
		res := mustAssemble(t, snap, stateWith([]*assembler.Override{user}), &assembler.Request{})
		e := entryFor(t, res, assembler.KindPrompt, "base.mine")
		if e.Source != assembler.SourceUserModule || e.Line != "prompt(base.mine v1 · default · user-module r1)" {
			t.Errorf("entry %+v, want source user-module", e)
		}
		if want := []string{"base.greet", "base.mine"}; !slices.Equal(segment(t, res, assembler.SegmentBase).Modules, want) {
			t.Errorf("base modules = %v, want %v", segment(t, res, assembler.SegmentBase).Modules, want)
		}
	})
	t.Run("user task module fires", func(t *testing.T) {
		t.Parallel()
		user := override(t, mod{id: "task.custom", front: "priority: 1\ntriggers:\n- kind: command\n  command: /custom\n", body: "custom"}, 0, "")
		res := mustAssemble(t, snap, stateWith([]*assembler.Override{user}), &assembler.Request{Message: "/custom go"})
		if line := entryFor(t, res, assembler.KindPrompt, "task.custom").Line; line != "prompt(task.custom v1 · command:/custom · user-module r1)" {
			t.Errorf("line = %q", line)
		}
	})
}

// A module whose locale chain has no text for the request (a zh-CN-only
// user module or library module, asked for in en-US) cannot enter; it must
// not make every assembly in that locale fail.
func TestModuleMissingInLocaleChain(t *testing.T) {
	t.Parallel()
	t.Run("user module in another locale", func(t *testing.T) {
		t.Parallel()
		snap := newLib(t, withCore(mod{id: "base.greet", body: "hello"})...)
		user := override(t, mod{locale: "zh-CN", id: "base.mine", body: "用户模块"}, 0, "")
		st := stateWith([]*assembler.Override{user})
		res, err := assembler.New(assembler.Config{}).Assemble(snap, st, &assembler.Request{Locale: "en-US"}, fixedNow)
		if err != nil {
			t.Fatalf("a zh-CN-only user module broke an en-US assembly: %v", err)
		}
		if want := []string{"base.greet"}; !slices.Equal(segment(t, res, assembler.SegmentBase).Modules, want) {
			t.Errorf("base modules = %v, want %v", segment(t, res, assembler.SegmentBase).Modules, want)
		}
		res = mustAssemble(t, snap, st, &assembler.Request{Locale: "zh-CN"})
		if e := entryFor(t, res, assembler.KindPrompt, "base.mine"); e.Source != assembler.SourceUserModule || e.Locale != "zh-CN" {
			t.Errorf("zh-CN entry %+v", e)
		}
	})
	t.Run("library module in another locale", func(t *testing.T) {
		t.Parallel()
		snap := newLib(t, withCore(mod{id: "base.greet", body: "hello"}, mod{locale: "zh-CN", id: "base.zh-only", body: "仅中文"})...)
		res, err := assembler.New(assembler.Config{}).Assemble(snap, nil, &assembler.Request{Locale: "en-US"}, fixedNow)
		if err != nil {
			t.Fatalf("a zh-CN-only base module broke an en-US assembly: %v", err)
		}
		if strings.Contains(res.Text, "仅中文") {
			t.Errorf("zh-CN text in an en-US assembly")
		}
	})
}

// The report starts with the library entry, and the result
// carries the snapshot's generation (a watched folder's counter).
func TestReportNamesLibraryAndGeneration(t *testing.T) {
	t.Parallel()
	builtin := builtinLib(t)
	res := mustAssemble(t, builtin, nil, &assembler.Request{Locale: "en-US"})
	if res.Generation != 1 || res.Report[0].Line != "library(embedded · generation:1)" {
		t.Errorf("generation %d, first entry %q; want 1, library(embedded · generation:1)", res.Generation, res.Report[0].Line)
	}
	parts := library.Parts{Source: "/srv/library", Generation: 7}
	for _, id := range builtin.IDs() {
		for _, loc := range builtin.ModuleLocales(id) {
			m, _ := builtin.Module(id, loc)
			parts.Modules = append(parts.Modules, m)
		}
	}
	parts.Labels = map[string]library.Labels{}
	for _, loc := range builtin.Locales() {
		parts.Labels[loc], _ = builtin.Labels(loc)
	}
	folder, err := library.Build(parts)
	if err != nil {
		t.Fatal(err)
	}
	res = mustAssemble(t, folder, nil, &assembler.Request{Locale: "en-US"})
	e := res.Report[0]
	if res.Generation != 7 || e.Kind != assembler.KindLibrary || e.Source != "/srv/library" || e.Reason != "generation:7" || e.Line != "library(/srv/library · generation:7)" {
		t.Errorf("generation %d, first entry %+v", res.Generation, e)
	}
}

// The report's text form is exactly as operators read it, for the
// builtin library (source builtin is not repeated in the line).
func TestReportTextFormBuiltin(t *testing.T) {
	t.Parallel()
	snap := builtinLib(t)
	res := mustAssemble(t, snap, nil, &assembler.Request{
		Locale:      "zh-CN",
		Message:     "请把附件的会议纪要总结一下",
		Attachments: []assembler.Attachment{{Name: "会议.m4a", Type: "audio/mp4"}},
	})
	lines := reportLines(res)
	for _, want := range []string{
		"prompt(task.doc-minutes v1 · intent:纪要)",
		"skill-yield(task.summarize · superseded-by:task.doc-minutes)",
		"prompt(base.identity v1 · default)",
		"prompt(env.pure-agent v1 · no-knowledge-base)",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("report has no line %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	e := entryFor(t, res, assembler.KindPrompt, "task.doc-minutes")
	if e.Source != assembler.SourceBuiltin || e.Locale != "zh-CN" || e.Fallback || e.Version != 1 {
		t.Errorf("doc-minutes entry %+v", e)
	}
}

// A library without the env modules the assembly enters itself fails with
// not_found naming the module and how to get it (an imported folder
// without --with-builtin).
func TestAssembleWithoutEnvModules(t *testing.T) {
	m, err := library.Parse("task-lonely.md", []byte("---\nid: task.lonely\nlayer: task\nversion: 1\ntitle: Lonely\ndescription: The only module.\n---\nYou are alone.\n"))
	if err != nil {
		t.Fatal(err)
	}
	m.Locale = "en-US"
	builtin := builtinLib(t)
	labels, _ := builtin.Labels("en-US")
	snap, err := library.Build(library.Parts{Modules: []*library.Module{m}, Labels: map[string]library.Labels{"en-US": labels}, Locales: []string{"en-US"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = assembler.New(assembler.Config{}).Assemble(snap, nil, &assembler.Request{Locale: "en-US"}, time.Now())
	var ae *library.Error
	if !errors.As(err, &ae) || ae.Code != library.CodeNotFound || ae.Module != assembler.ModulePureAgent || !strings.Contains(ae.Msg, "--with-builtin") || !strings.Contains(ae.Msg, "in en-US (") {
		t.Errorf("assemble without env modules: %v, want not_found for %s with the hint", err, assembler.ModulePureAgent)
	}
}

// An override that serves is reported with its revision, in the JSON
// (absent for the builtin) and in the text form after the source, for
// included modules too.
func TestReportNamesOverrideRevision(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(
		mod{id: "base.greet", version: 3, body: "Hello."},
		mod{id: "aux.closing", body: "Bye."},
	)...)
	greet, _ := snap.Module("base.greet", "en-US")
	closing, _ := snap.Module("aux.closing", "en-US")
	overGreet := override(t, mod{id: "base.greet", version: 3, body: "Hello from ops. {{aux.closing}}"}, 3, greet.Text)
	overGreet.Revision = 3
	overClosing := override(t, mod{id: "aux.closing", body: "Bye from ops."}, 1, closing.Text)
	overClosing.Revision = 2
	res := mustAssemble(t, snap, stateWith([]*assembler.Override{overGreet, overClosing}), &assembler.Request{})

	if e := entryFor(t, res, assembler.KindPrompt, "base.greet"); e.Revision != 3 || e.Line != "prompt(base.greet v3 · default · override r3)" {
		t.Errorf("base.greet entry: revision %d, line %q; want 3, prompt(base.greet v3 · default · override r3)", e.Revision, e.Line)
	}
	if e := entryFor(t, res, assembler.KindInclude, "aux.closing"); e.Revision != 2 || e.Line != "include(aux.closing v1 · by:base.greet · override r2)" {
		t.Errorf("aux.closing entry: revision %d, line %q; want 2, include(aux.closing v1 · by:base.greet · override r2)", e.Revision, e.Line)
	}
	for _, e := range res.Report {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(data, &fields); err != nil {
			t.Fatal(err)
		}
		want, has := map[string]float64{"base.greet": 3, "aux.closing": 2}[e.Module]
		has = has && (e.Kind == assembler.KindPrompt || e.Kind == assembler.KindInclude)
		if got, ok := fields["revision"]; ok != has || (has && got != want) {
			t.Errorf("%s: JSON revision %v (present %v), want %v (present %v)", e.Line, got, ok, want, has)
		}
	}
}

// A drifted override that serves only as an include gets the same warning
// as one that enters by itself.
func TestDriftedIncludeIsWarned(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(
		mod{id: "base.greet", body: "Hello. {{aux.closing}}"},
		mod{id: "aux.closing", version: 2, body: "Bye."},
	)...)
	overClosing := override(t, mod{id: "aux.closing", version: 2, body: "Bye from ops."}, 1, "old closing")
	res := mustAssemble(t, snap, stateWith([]*assembler.Override{overClosing}), &assembler.Request{})
	var warnings []string
	for _, w := range entries(res, assembler.KindWarning) {
		warnings = append(warnings, w.Line)
	}
	want := "warning(aux.closing · drifted-override-served:based-on-v1:builtin-version-raised)"
	if !slices.Contains(warnings, want) {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
}

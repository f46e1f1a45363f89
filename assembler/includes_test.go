package assembler_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/assembler/tokens"
	"github.com/promptdesk/promptdesk/library"
)

// Saving an override that would create an include cycle is refused; the
// check follows the override chain and reports the path.
func TestCheckIncludes(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(
		mod{id: "base.a", body: "A {{base.b}}"},
		mod{id: "base.b", body: "B"},
		mod{id: "base.c", body: "C"},
	)...)
	asm := assembler.New(assembler.Config{})
	parse := func(id, body string) *library.Module {
		t.Helper()
		text := "---\nid: " + id + "\nlayer: base\nversion: 1\ntitle: T\ndescription: D\n---\n" + body + "\n"
		m, err := library.Parse("override", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var e *library.Error
	err := asm.CheckIncludes(snap, nil, parse("base.b", "B now includes {{base.a}}"), "en-US")
	if !errors.As(err, &e) || e.Code != library.CodeIncludeCycle || strings.Join(e.Path, " → ") != "base.b → base.a → base.b" {
		t.Fatalf("got %v, want include_cycle base.b → base.a → base.b", err)
	}
	err = asm.CheckIncludes(snap, nil, parse("base.c", "C {{base.c}}"), "en-US")
	if !errors.As(err, &e) || e.Code != library.CodeIncludeCycle || strings.Join(e.Path, " → ") != "base.c → base.c" {
		t.Fatalf("got %v, want include_cycle base.c → base.c", err)
	}
	if err := asm.CheckIncludes(snap, nil, parse("base.c", "C {{base.a}} and {{base.b}}"), "en-US"); err != nil {
		t.Fatalf("a diamond is not a cycle: %v", err)
	}
}

// Includes that repeat each other multiply text; a rendering stops at
// MaxOutputBytes with limit_exceeded instead of running for minutes.
func TestIncludeFanOutIsBounded(t *testing.T) {
	t.Parallel()
	var mods []mod
	for i := range 10 {
		body := strings.Repeat("x", 1000)
		if i < 9 {
			body = strings.Repeat(fmt.Sprintf("{{aux.f%02d}}", i+1), 6)
		}
		mods = append(mods, mod{id: fmt.Sprintf("aux.f%02d", i), body: body})
	}
	snap := newLib(t, withCore(mods...)...)
	_, err := assembler.New(assembler.Config{}).Render(snap, nil, &assembler.RenderRequest{Module: "aux.f00"}, fixedNow)
	var e *library.Error
	if !errors.As(err, &e) || e.Code != library.CodeLimitExceeded {
		t.Fatalf("got %v, want limit_exceeded", err)
	}
}

// embedded rebuilds snap as the embedded library, so that its modules
// report source builtin rather than file.
func embedded(t testing.TB, snap *library.Snapshot) *library.Snapshot {
	t.Helper()
	parts := library.Parts{Source: "embedded", Generation: 1, Labels: map[string]library.Labels{}}
	for _, id := range snap.IDs() {
		for _, loc := range snap.ModuleLocales(id) {
			m, _ := snap.Module(id, loc)
			parts.Modules = append(parts.Modules, m)
		}
	}
	for _, loc := range snap.Locales() {
		parts.Labels[loc], _ = snap.Labels(loc)
	}
	out, err := library.Build(parts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An included module gets its own report entry, right after the prompt
// entry of the module that entered, saying which text served: here an
// en-US assembly on a server whose fallback is zh-CN, where base.identity
// includes aux.signature and aux.signature exists only in zh-CN.
func TestReportNamesIncludes(t *testing.T) {
	t.Parallel()
	const signature = "—— 助理 Ada 敬上"
	snap := embedded(t, newLib(t, withCore(
		mod{id: "base.identity", body: "You are Ada, the assistant of this workspace.\n{{aux.signature}}"},
		mod{locale: "zh-CN", id: "base.identity", body: "你是本工作区的助理 Ada。\n{{aux.signature}}"},
		mod{locale: "zh-CN", id: "aux.signature", body: signature},
	)...))
	res, err := assembler.New(assembler.Config{FallbackLocale: "zh-CN", CountTokens: true}).Assemble(snap, nil, &assembler.Request{Locale: "en-US"}, fixedNow)
	if err != nil {
		t.Fatalf("Assemble: %v", err)
	}
	counter, err := tokens.For("")
	if err != nil {
		t.Fatal(err)
	}
	got := entryFor(t, res, assembler.KindInclude, "aux.signature")
	want := assembler.ReportEntry{Kind: assembler.KindInclude, Module: "aux.signature", Version: 1, Source: assembler.SourceBuiltin,
		Locale: "zh-CN", Fallback: true, Reason: "by:base.identity", Tokens: counter.Count(signature),
		Line: "include(aux.signature v1 · by:base.identity · fallback:zh-CN)"}
	if got != want {
		t.Errorf("include entry\n got %+v\nwant %+v", got, want)
	}
	if identity := entryFor(t, res, assembler.KindPrompt, "base.identity"); got.Tokens == 0 || got.Tokens >= identity.Tokens {
		t.Errorf("include tokens %d, want the signature's alone, a part of base.identity's %d", got.Tokens, identity.Tokens)
	}
	lines := reportLines(res)
	if wantStart := []string{
		"library(embedded · generation:1)",
		"prompt(base.identity v1 · default)",
		"include(aux.signature v1 · by:base.identity · fallback:zh-CN)",
		"prompt(env.pure-agent v1 · no-knowledge-base)",
	}; !slices.Equal(lines[:min(len(lines), len(wantStart))], wantStart) {
		t.Errorf("report =\n%s\nwant it to start with\n%s", strings.Join(lines, "\n"), strings.Join(wantStart, "\n"))
	}
	if p := entries(res, assembler.KindPlaceholder); len(p) != 1 || p[0].Line != "placeholder(base.identity · aux.signature→include)" {
		t.Errorf("placeholder entries %+v, want the one include", p)
	}
}

// Nested includes get one entry each, named by their direct includer, in
// text order; a module included twice gets an entry per inclusion.
func TestReportNamesNestedIncludes(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(
		mod{id: "base.a", body: "A {{aux.sig}}"},
		mod{id: "base.b", body: "B {{aux.closing}}"},
		mod{id: "aux.sig", body: "Ada, {{aux.closing}}"},
		mod{id: "aux.closing", version: 2, body: "with thanks"},
	)...)
	res, err := assembler.New(assembler.Config{CountTokens: true}).Assemble(snap, nil, &assembler.Request{Locale: "en-US"}, fixedNow)
	if err != nil {
		t.Fatalf("Assemble: %v", err)
	}
	var lines []string
	for _, e := range res.Report {
		if e.Kind == assembler.KindPrompt && strings.HasPrefix(e.Module, "base.") || e.Kind == assembler.KindInclude {
			lines = append(lines, e.Line)
		}
	}
	want := []string{
		"prompt(base.a v1 · default · file)",
		"include(aux.sig v1 · by:base.a · file)",
		"include(aux.closing v2 · by:aux.sig · file)",
		"prompt(base.b v1 · default · file)",
		"include(aux.closing v2 · by:base.b · file)",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("prompt and include entries =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	counter, _ := tokens.For("")
	if sig := entryFor(t, res, assembler.KindInclude, "aux.sig"); sig.Tokens != counter.Count("Ada, with thanks") {
		t.Errorf("aux.sig tokens %d, want %d (its text with the nested include)", sig.Tokens, counter.Count("Ada, with thanks"))
	}
}

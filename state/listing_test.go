package state_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
)

// operatorState is a state.Source of fixed published overrides and drafts.
type operatorState domain.OperatorState

func (o operatorState) ReadOperatorState(context.Context) (domain.OperatorState, error) {
	return domain.OperatorState(o), nil
}

// A View's Listing selects what Primary and Matches select, filter by
// filter, in IDs order; the search ignores case, reads every locale, and
// never matches across a title and its description.
func TestListingMatchesAsMatches(t *testing.T) {
	t.Parallel()
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := lib.Module("task.summarize", "en-US")
	over := func(id, locale, text string, basedOn int) domain.Override {
		return domain.Override{ModuleID: id, Locale: locale, Text: text + "\nMine.\n", Revision: 1, BasedOnVersion: basedOn, BaseSnapshot: b.Text}
	}
	mine := strings.Replace(b.Text, "id: task.summarize", "id: task.mine", 1)
	src := operatorState{
		Overrides: []domain.Override{over("task.summarize", "en-US", b.Text, b.Version), over("task.mine", "en-US", mine, 0)},
		Drafts:    []domain.Override{over("task.summarize", "ja-JP", b.Text, b.Version), over("task.draftonly", "en-US", strings.Replace(b.Text, "id: task.summarize", "id: task.draftonly", 1), 0)},
	}
	s, err := state.Open(t.Context(), reload.Fixed(lib), src, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	a := assembler.New(assembler.Config{})
	zh, _ := lib.Module("task.doc-minutes", "zh-CN")
	for _, v := range []*state.View{s.Current(), s.Current().Published()} {
		listing := v.Listing(a)
		if v.Listing(a) != listing {
			t.Error("a View builds its listing twice")
		}
		for _, f := range []state.ModuleFilter{
			{}, {Layer: "task"}, {Status: "overridden"}, {Status: "user"}, {Status: "draft"}, {Status: "draft", Locale: "JA-jp"},
			{Locale: "zh-CN"}, {Q: "SUMMAR"}, {Q: zh.Title}, {Q: "mine", Layer: "task"},
			{Q: strings.ToLower(b.Title + b.Description[:3])}, // across the title and its description
		} {
			var want, got []string
			for _, id := range v.IDs() {
				if m, _, ok := v.Primary(a, id); ok && v.Matches(f, m.Layer, id) {
					want = append(want, id)
				}
			}
			for _, e := range listing.Modules {
				if v.MatchesListed(f, e) {
					got = append(got, e.ID)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%+v: the listing selects %v, Matches %v", f, got, want)
			}
		}
	}
	v := s.Current()
	for _, tt := range []struct {
		f    state.ModuleFilter
		want []string
	}{
		{state.ModuleFilter{Status: "draft", Locale: "ja-JP"}, []string{"task.summarize"}},
		{state.ModuleFilter{Q: "SUMMARIZE", Status: "user"}, []string{"task.mine"}},
		{state.ModuleFilter{Q: strings.ToLower(b.Title + b.Description[:3])}, nil},
	} {
		var got []string
		for _, e := range v.Listing(a).Modules {
			if v.MatchesListed(tt.f, e) {
				got = append(got, e.ID)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v selects %v, want %v", tt.f, got, tt.want)
		}
	}
	if got := v.Listing(a).Locales; !slices.Equal(got, []string{"en-US", "ja-JP", "zh-CN"}) {
		t.Errorf("listing locales %v", got)
	}
}

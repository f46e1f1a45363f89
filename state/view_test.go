package state_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
)

// rows is a state.Source of fixed published overrides.
type rows []domain.Override

func (r rows) ReadOperatorState(context.Context) (domain.OperatorState, error) {
	return domain.OperatorState{Overrides: r}, nil
}

// The statuses of the library filter, the module page and the API follow
// DriftOf: a lowered or removed builtin is drifted like a raised one.
func TestViewStatusFollowsDriftOf(t *testing.T) {
	t.Parallel()
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := lib.Module("task.summarize", "en-US")
	over := func(id string, basedOn int, snapshot string) domain.Override {
		text := strings.Replace(b.Text, "id: task.summarize", "id: "+id, 1)
		return domain.Override{ModuleID: id, Locale: "en-US", Text: text + "\nMine.\n", Revision: 1, BasedOnVersion: basedOn, BaseSnapshot: snapshot}
	}
	src := rows{
		over("task.summarize", b.Version, b.Text),
		over("task.translate", b.Version+5, b.Text),
		over("task.retired", 1, "old text"),
		over("task.mine", 0, ""),
	}
	s, err := state.Open(t.Context(), reload.Fixed(lib), src, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	v := s.Current()
	for _, tt := range []struct {
		id   string
		want state.Status
	}{
		{"task.summarize", state.StatusOverridden},
		{"task.translate", state.StatusDrifted},
		{"task.retired", state.StatusDrifted},
		{"task.mine", state.StatusUser},
		{"task.code-review", state.StatusBuiltin},
	} {
		if got := v.ModuleStatus(tt.id); got != tt.want {
			t.Errorf("ModuleStatus(%s) = %q, want %q (drift %+v)", tt.id, got, tt.want, v.Drift(tt.id, "en-US"))
		}
		if got := v.LocaleStatus(tt.id, "en-US"); got != tt.want {
			t.Errorf("LocaleStatus(%s, en-US) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

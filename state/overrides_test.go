package state_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/lint"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// service is the write path over a fresh database and the builtin
// library, with the console's actor.
type service struct {
	*state.Overrides
	st  *store.Store
	lib *library.Snapshot
	ctx context.Context
}

func newService(t *testing.T) *service {
	t.Helper()
	st, err := store.Open(context.Background(), storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	served, err := state.Open(context.Background(), reload.Fixed(lib), st, log)
	if err != nil {
		t.Fatal(err)
	}
	return &service{
		Overrides: &state.Overrides{Store: st, Served: served, Assembler: assembler.New(assembler.Config{}), Log: log, Checklist: lint.Lint},
		st:        st, lib: lib, ctx: domain.WithActor(context.Background(), "tester"),
	}
}

// withLine is the builtin text of id (en-US) with line added to its body.
func (s *service) withLine(t *testing.T, id, line string) string {
	t.Helper()
	m, ok := s.lib.Module(id, "en-US")
	if !ok {
		t.Fatalf("no builtin %s", id)
	}
	return strings.TrimRight(m.Text, "\n") + "\n\n" + line + "\n"
}

// save saves text as a draft of id (en-US) on top of revision and wants it
// stored.
func (s *service) save(t *testing.T, id, text string, revision int) domain.Override {
	t.Helper()
	out, err := s.Save(s.ctx, state.Edit{ID: id, Locale: "en-US", Text: text, Revision: revision})
	if err != nil || out.Kind != state.OutcomeStored {
		t.Fatalf("save %s: %v %+v", id, err, out)
	}
	return out.Saved
}

// Two drafts that include each other pass alone, but publishing the second
// would make a cycle with the first: it is refused, and assembly goes on.
func TestPublishRefusesAnIncludeCycle(t *testing.T) {
	t.Parallel()
	s := newService(t)
	caution := s.save(t, "base.caution", s.withLine(t, "base.caution", "{{base.style}}"), 0)
	style := s.save(t, "base.style", s.withLine(t, "base.style", "{{base.caution}}"), 0)
	if _, err := s.Publish(s.ctx, "base.caution", "en-US", caution.Revision); err != nil {
		t.Fatalf("first publish: %v", err)
	}
	_, err := s.Publish(s.ctx, "base.style", "en-US", style.Revision)
	if !errors.Is(err, library.ErrInvalid) || !strings.Contains(err.Error(), "base.style → base.caution → base.style") {
		t.Fatalf("second publish: %v, want an invalid include cycle base.style → base.caution → base.style", err)
	}
	v := s.Served.Current()
	if _, err := s.Assembler.Assemble(v.Library, v.State, &assembler.Request{Locale: "en-US"}, time.Now()); err != nil {
		t.Errorf("assembly after the refused publish: %v", err)
	}
}

// A user module that a served override includes cannot be deleted: every
// assembly entering the includer would fail.
func TestDeleteRefusesAnIncludedUserModule(t *testing.T) {
	t.Parallel()
	s := newService(t)
	user := "---\nid: aux.signature\nlayer: aux\nversion: 1\ntitle: Signature\ndescription: The closing line\n---\nEnd with the team's name.\n"
	sig := s.save(t, "aux.signature", user, 0)
	if _, err := s.Publish(s.ctx, "aux.signature", "en-US", sig.Revision); err != nil {
		t.Fatal(err)
	}
	identity := s.save(t, "base.identity", s.withLine(t, "base.identity", "{{aux.signature}}"), 0)
	if _, err := s.Publish(s.ctx, "base.identity", "en-US", identity.Revision); err != nil {
		t.Fatalf("publish an include of a user module: %v", err)
	}
	err := s.Delete(s.ctx, "aux.signature", "en-US", sig.Revision)
	if !errors.Is(err, library.ErrInvalid) || !strings.Contains(err.Error(), "base.identity (en-US, override) include {{aux.signature}}") {
		t.Fatalf("delete: %v, want refused naming base.identity", err)
	}
	if _, err := s.st.GetOverride(context.Background(), "aux.signature", "en-US"); err != nil {
		t.Errorf("the user module is gone after the refused delete: %v", err)
	}
}

// Restoring a revision whose text is the builtin's now stores nothing, as
// a save of that text would.
func TestRestoreOfBuiltinTextStoresNothing(t *testing.T) {
	t.Parallel()
	s := newService(t)
	b, _ := s.lib.Module("task.summarize", "en-US")
	first := s.save(t, "task.summarize", s.withLine(t, "task.summarize", "Mine."), 0)
	// The store takes any text; the builtin's own is revision 2 here.
	o := first
	o.Text, o.Action = b.Text, ""
	second, err := s.st.SaveOverride(s.ctx, o, first.Revision)
	if err != nil {
		t.Fatal(err)
	}
	s.save(t, "task.summarize", s.withLine(t, "task.summarize", "Mine again."), second.Revision)
	out, err := s.Restore(s.ctx, "task.summarize", "en-US", second.Revision, second.Revision+1)
	if err != nil || out.Kind != state.OutcomeEqualsBuiltin {
		t.Fatalf("restore: %v %q, want equals-builtin", err, out.Kind)
	}
	head, _ := s.st.GetOverride(context.Background(), "task.summarize", "en-US")
	if head.Revision != second.Revision+1 {
		t.Errorf("head at revision %d, want %d: nothing stored", head.Revision, second.Revision+1)
	}
}

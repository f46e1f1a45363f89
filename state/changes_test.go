package state_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
)

// profileSource is a state.Source of profiles only, which a test changes.
type profileSource struct {
	slowSource
	mu       sync.Mutex
	profiles []domain.Profile
}

func (s *profileSource) ReadOperatorState(context.Context) (domain.OperatorState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return domain.OperatorState{Profiles: slices.Clone(s.profiles)}, nil
}

func (s *profileSource) set(ps ...domain.Profile) {
	s.mu.Lock()
	s.profiles = ps
	s.mu.Unlock()
}

// TestChangeFeedOfProfiles: a rebuild that changes nothing served keeps
// the generation; created, updated and deleted profiles each move it, are
// listed once and wake a waiting reader.
func TestChangeFeedOfProfiles(t *testing.T) {
	src := &profileSource{}
	s, err := state.Open(t.Context(), reloadFixed(t), src, discard())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go s.Run(ctx, time.Hour)

	g := s.Current().ServedGeneration
	if g != 1 {
		t.Fatalf("first generation %d", g)
	}
	rebuild := func(want int64) []state.ServedChange {
		t.Helper()
		s.Changed()
		changes, gen, reset := s.ChangesSince(t.Context(), want-1, 10*time.Second)
		if gen != want || reset {
			t.Fatalf("generation %d (reset %v), want %d", gen, reset, want)
		}
		return changes
	}
	// Nothing changed: the same generation, no changes.
	s.Changed()
	waitRebuilt(t, s, 2)
	if changes, gen, _ := s.ChangesSince(t.Context(), g, 0); gen != g || len(changes) != 0 {
		t.Fatalf("after an empty rebuild: generation %d, %v", gen, changes)
	}

	src.set(domain.Profile{ID: "a", Name: "A"}, domain.Profile{ID: "b", Name: "B"})
	got := rebuild(2)
	want := []state.ServedChange{{Generation: 2, Subject: "profile", ID: "a", Action: "created"}, {Generation: 2, Subject: "profile", ID: "b", Action: "created"}}
	if !slices.Equal(got, want) {
		t.Errorf("created: %v, want %v", got, want)
	}
	src.set(domain.Profile{ID: "a", Name: "A", UpdatedAt: time.Now()}, domain.Profile{ID: "b", Name: "B2"})
	if got := rebuild(3); !slices.Equal(got, []state.ServedChange{{Generation: 3, Subject: "profile", ID: "b", Action: "updated"}}) {
		t.Errorf("updated: %v", got)
	}
	src.set(domain.Profile{ID: "b", Name: "B2"})
	if got := rebuild(4); !slices.Equal(got, []state.ServedChange{{Generation: 4, Subject: "profile", ID: "a", Action: "deleted"}}) {
		t.Errorf("deleted: %v", got)
	}
	all, gen, reset := s.ChangesSince(t.Context(), 1, 0)
	if gen != 4 || reset || len(all) != 4 {
		t.Errorf("since 1: %d %v %v", gen, reset, all)
	}
	if _, _, reset := s.ChangesSince(t.Context(), 5, 0); !reset {
		t.Error("since a generation to come: no reset")
	}
}

// waitRebuilt waits until s has composed n Views.
func waitRebuilt(t *testing.T, s *state.Served, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.Current().Generation < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d rebuilds, want %d", s.Current().Generation, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func reloadFixed(t *testing.T) *reload.Library {
	t.Helper()
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return reload.Fixed(lib)
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestChangeFeedOfTheLibrary: a module text changed in a watched library
// folder is one change (subject library, action updated) with its id and
// locale, which wakes a waiting reader.
func TestChangeFeedOfTheLibrary(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, library.BuiltinFS()); err != nil {
		t.Fatal(err)
	}
	lib, err := reload.New(dir, discard())
	if err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(t.Context(), lib, &slowSource{}, discard())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = lib.Run(ctx) }()

	m, ok := lib.Current().Snapshot.Module("base.identity", "en-US")
	if !ok {
		t.Fatal("no base.identity en-US")
	}
	path := filepath.Join(dir, "modules", "en-US", "base-identity.md")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		changes []state.ServedChange
		gen     int64
	}
	done := make(chan answer)
	go func() {
		changes, gen, _ := s.ChangesSince(ctx, 1, 20*time.Second)
		done <- answer{changes, gen}
	}()
	// Written aside and renamed over, so the watcher never reads half a file;
	// written until the reload is seen, since the watcher may start late.
	text := strings.Replace(m.Text, "\n---\n", "\n---\nA line the folder added.\n", 1)
	var got answer
	for got.gen == 0 {
		tmp := filepath.Join(dir, "modules", "en-US", ".writing")
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		select {
		case got = <-done:
		case <-time.After(time.Second):
		}
	}
	want := state.ServedChange{Generation: 2, Subject: "library", ID: "base.identity", Locale: "en-US", Action: "updated"}
	if got.gen != 2 || !slices.Equal(got.changes, []state.ServedChange{want}) {
		t.Errorf("after the folder changed: generation %d, %v; want 2, %v", got.gen, got.changes, want)
	}
}

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
	if g < 1 {
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
	got := rebuild(g + 1)
	want := []state.ServedChange{{Generation: g + 1, Subject: "profile", ID: "a", Action: "created"}, {Generation: g + 1, Subject: "profile", ID: "b", Action: "created"}}
	if !slices.Equal(got, want) {
		t.Errorf("created: %v, want %v", got, want)
	}
	src.set(domain.Profile{ID: "a", Name: "A", UpdatedAt: time.Now()}, domain.Profile{ID: "b", Name: "B2"})
	if got := rebuild(g + 2); !slices.Equal(got, []state.ServedChange{{Generation: g + 2, Subject: "profile", ID: "b", Action: "updated"}}) {
		t.Errorf("updated: %v", got)
	}
	src.set(domain.Profile{ID: "b", Name: "B2"})
	if got := rebuild(g + 3); !slices.Equal(got, []state.ServedChange{{Generation: g + 3, Subject: "profile", ID: "a", Action: "deleted"}}) {
		t.Errorf("deleted: %v", got)
	}
	all, gen, reset := s.ChangesSince(t.Context(), g, 0)
	if gen != g+3 || reset || len(all) != 4 {
		t.Errorf("since %d: %d %v %v", g, gen, reset, all)
	}
	if _, _, reset := s.ChangesSince(t.Context(), g+4, 0); !reset {
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
	g := s.Current().ServedGeneration
	done := make(chan answer)
	go func() {
		changes, gen, _ := s.ChangesSince(ctx, g, 20*time.Second)
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
	want := state.ServedChange{Generation: g + 1, Subject: "library", ID: "base.identity", Locale: "en-US", Action: "updated"}
	if got.gen != g+1 || !slices.Equal(got.changes, []state.ServedChange{want}) {
		t.Errorf("after the folder changed: generation %d, %v; want %d, %v", got.gen, got.changes, g+1, want)
	}
}

// A Served opened later (a restart) numbers above every generation of
// the one before, so a client holding an old generation is told to read
// everything again rather than that nothing changed.
func TestGenerationsDoNotRepeatAcrossRestarts(t *testing.T) {
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	before, err := state.Open(context.Background(), reload.Fixed(lib), state.Nothing, log)
	if err != nil {
		t.Fatal(err)
	}
	old := before.Current().ServedGeneration
	if _, _, reset := before.ChangesSince(context.Background(), old, 0); reset {
		t.Errorf("the process's own generation %d is answered with a reset", old)
	}
	time.Sleep(time.Millisecond)
	after, err := state.Open(context.Background(), reload.Fixed(lib), state.Nothing, log)
	if err != nil {
		t.Fatal(err)
	}
	gen := after.Current().ServedGeneration
	if gen <= old || gen >= 1<<53 {
		t.Errorf("generation after a restart %d, before %d: want more, and below 2^53", gen, old)
	}
	for _, since := range []int64{0, 1, old} {
		if changes, g, reset := after.ChangesSince(context.Background(), since, 0); !reset || g != gen || len(changes) != 0 {
			t.Errorf("since %d after a restart: %v %d reset=%v, want a reset at %d", since, changes, g, reset, gen)
		}
	}
}

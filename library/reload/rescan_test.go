package reload

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The periodic rescan (which alone sees changes when file watching is
// unavailable) compares the size and time of a linked file's target, not
// of the link: an edit of the target is applied by the next rescan.
func TestRescanSeesEditsOfALinkTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const text = "---\nid: task.linked\nlayer: task\nversion: 1\ntitle: Linked A\ndescription: A module read through a link\n---\nYou sort the notes by date.\n"
	target := filepath.Join(t.TempDir(), "linked.md")
	if err := os.WriteFile(target, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "modules", "en-US"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "modules", "en-US", "task-linked.md")); err != nil {
		t.Fatal(err)
	}
	l, err := New(dir, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := l.Current().Snapshot.Module("task.linked", "en-US"); !ok || m.Title != "Linked A" {
		t.Fatalf("the linked module does not serve: %+v", l.Current().Broken)
	}
	// Same size, later time: only the target's stat tells.
	if err := os.WriteFile(target, []byte(strings.Replace(text, "Linked A", "Linked B", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(target, later, later); err != nil {
		t.Fatal(err)
	}
	l.reload(nil)
	if m, _ := l.Current().Snapshot.Module("task.linked", "en-US"); m.Title != "Linked B" || l.Current().Snapshot.Generation != 2 {
		t.Errorf("after the rescan: title %q at generation %d, want Linked B at 2", m.Title, l.Current().Snapshot.Generation)
	}
}

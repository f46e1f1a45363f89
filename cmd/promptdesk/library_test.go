package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

// With --library, serve takes a folder with a broken file (the broken
// one is listed, the rest serves), while the one-shot commands stay
// strict and refuse it.
func TestServeToleratesABrokenLibraryFileAssembleDoesNot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, library.BuiltinFS()); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "library", "reload", "testdata"))); err != nil {
		t.Fatal(err)
	}
	a := &app{cli: &CLI{Library: dir, LogLevel: "error", TimeZone: "UTC"}, stdout: io.Discard, stderr: io.Discard}
	lib, err := a.library(a.logger())
	if err != nil {
		t.Fatalf("serve's library: %v", err)
	}
	cur := lib.Current()
	if !cur.Snapshot.Has("task.e12-notes") || len(cur.Broken) != 1 || !strings.HasSuffix(cur.Broken[0].File, "task-e12-broken.md") {
		t.Errorf("serve's library: e12-notes served %t, broken %v", cur.Snapshot.Has("task.e12-notes"), cur.Broken)
	}
	if _, _, err := a.parts(false); err == nil || !strings.Contains(err.Error(), "task-e12-broken.md:7") {
		t.Errorf("assemble's library: %v, want the broken file named with its line", err)
	}
}

package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/lint"
	"github.com/promptdesk/promptdesk/store/storetest"
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
	if !cur.Snapshot.Has("task.reload-notes") || len(cur.Broken) != 1 || !strings.HasSuffix(cur.Broken[0].File, "task-reload-broken.md") {
		t.Errorf("serve's library: reload-notes served %t, broken %v", cur.Snapshot.Has("task.reload-notes"), cur.Broken)
	}
	if _, _, err := a.parts(false); err == nil || !strings.Contains(err.Error(), "task-reload-broken.md:7") {
		t.Errorf("assemble's library: %v, want the broken file named with its line", err)
	}
}

// serve's headline over the broken files counts them in the right form.
func TestBrokenHeadline(t *testing.T) {
	for n, want := range map[int]string{1: "Library folder: 1 file broken,", 3: "Library folder: 3 files broken,"} {
		if got := brokenHeadline(n); !strings.HasPrefix(got, want) {
			t.Errorf("%d: %q, want it to start %q", n, got, want)
		}
	}
}

// A folder written by `import --out` has no label files: serve, the
// one-shot commands and lint all take it as it is, with the embedded
// labels (the output contract heading of a rendered module is the
// embedded en-US one).
func TestImportedFolderServesRendersAndLints(t *testing.T) {
	out := t.TempDir()
	if _, err := cliRun(t, "import", "--from", "skills", fixture(t, "skills"), "--out", out); err == nil || !strings.Contains(err.Error(), "not imported") {
		t.Fatalf("import: %v", err)
	}
	contract := "---\nid: task.contract\nlayer: task\nversion: 1\ntitle: Contract\ndescription: A module with an output contract\noutputContract: One line per item.\n---\nList the items.\n"
	if err := os.WriteFile(filepath.Join(out, "modules", "en-US", "task-contract.md"), []byte(contract), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "labels")); !os.IsNotExist(err) {
		t.Fatalf("the imported folder has a labels folder: %v", err)
	}
	a := &app{cli: &CLI{Library: out, LogLevel: "error", TimeZone: "UTC", FallbackLocale: "en-US"}, stdout: io.Discard, stderr: io.Discard}
	lib, err := a.library(a.logger())
	if err != nil || len(lib.Current().Broken) != 0 {
		t.Fatalf("serve's library: %v, broken %v", err, lib.Current().Broken)
	}
	snap, asm, err := a.parts(false)
	if err != nil {
		t.Fatalf("assemble's library: %v", err)
	}
	for _, s := range []*library.Snapshot{snap, lib.Current().Snapshot} {
		for _, loc := range []string{"en-US", "ja-JP"} {
			r, err := asm.Render(s, nil, &assembler.RenderRequest{Module: "task.contract", Locale: loc}, time.Now())
			if err != nil || !strings.Contains(r.Text, "#### Output contract\nOne line per item.") {
				t.Errorf("render in %s: %v\n%v", loc, err, r)
			}
		}
	}
	r, err := lint.LintDir(out)
	if err != nil || r.Counts.Errors != 0 {
		t.Errorf("lint: %v, %+v", err, r.Findings)
	}
}

// The fallback locale must have labels: serve and the one-shot commands
// refuse one that has none, naming the locales that have.
func TestFallbackLocaleWithoutLabelsIsRefused(t *testing.T) {
	a := &app{cli: &CLI{LogLevel: "error", TimeZone: "UTC", FallbackLocale: "fr-FR"}, stdout: io.Discard, stderr: io.Discard}
	want := "--fallback-locale fr-FR: the library has no labels for it (it has labels for en-US, zh-CN); add labels/fr-FR.yaml to the library folder, or choose one of those"
	if _, _, err := a.parts(false); err == nil || err.Error() != want {
		t.Errorf("parts: %v\nwant %s", err, want)
	}
	if err := a.serve(t.Context()); err == nil || err.Error() != want {
		t.Errorf("serve: %v\nwant %s", err, want)
	}
}

// serve on a library folder starts Postgres while the folder loads: a
// folder that loads serves (the console line names it), and one that
// does not is refused with the loader's error once the store that
// started meanwhile is closed again.
func TestServeLoadsAFolderWhilePostgresStarts(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, library.BuiltinFS()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--library", dir, "--database-url", dbURL, "--log-level", "error"}, out, io.Discard)
	}()
	deadline := time.After(time.Minute)
	// The setup link is the last line serve prints before it waits.
	for !strings.Contains(out.String(), "(library: "+dir+", ") || !strings.Contains(out.String(), "No users yet") {
		select {
		case err := <-done:
			t.Fatalf("serve ended before serving: %v\n%s", err, out.String())
		case <-deadline:
			t.Fatalf("serve printed no console line in a minute:\n%s", out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve after cancel: %v", err)
	}

	empty := t.TempDir()
	err := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--library", empty, "--database-url", dbURL, "--log-level", "error"}, io.Discard, io.Discard)
	if want := "library: library folder " + empty + " has no modules folder"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("serve on a folder without modules: %v, want %s…", err, want)
	}
}

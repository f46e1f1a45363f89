package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// The export and import tests point the CLI at a fresh database through
// DATABASE_URL (t.Setenv), so they do not run in parallel.

// cliRun runs the CLI with args and returns its stdout and error.
func cliRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	return out.String(), err
}

// openStore opens dbURL for the test's own reads and writes.
func openStore(t *testing.T, dbURL string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

func builtinModule(t *testing.T, id, locale string) *library.Module {
	t.Helper()
	snap, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := snap.Module(id, locale)
	if !ok {
		t.Fatalf("no builtin %s (%s)", id, locale)
	}
	return m
}

// changed is the builtin text of id in locale with line added after the
// frontmatter.
func changed(t *testing.T, id, locale, line string) string {
	t.Helper()
	text := builtinModule(t, id, locale).Text
	i := strings.Index(text[4:], "\n---\n") + 4 + len("\n---\n")
	return text[:i] + line + "\n\n" + text[i:]
}

const userModule = "---\nid: task.release-notes\nlayer: task\nversion: 2\ntitle: Release notes\n" +
	"description: Turns a list of merged changes into release notes\npriority: 20\nvariables: [bot_name]\n" +
	"triggers:\n- kind: command\n  command: /release-notes\n---\n" +
	"You write release notes for {{bot_name}}'s users from the changes the user pastes.\n"

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func overrideTexts(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	list, err := st.ListOverrides(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, o := range list {
		texts[o.ModuleID+" "+o.Locale] = o.Text
	}
	return texts
}

// draftTexts is overrideTexts of the drafts (unpublished heads).
func draftTexts(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	list, err := st.ListDrafts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, o := range list {
		texts[o.ModuleID+" "+o.Locale] = o.Text
	}
	return texts
}

func TestExportThenImportRoundTrips(t *testing.T) {
	ctx := domain.WithActor(context.Background(), "test")
	srcURL := storetest.NewDatabase(t)
	src := openStore(t, srcURL)
	ident := builtinModule(t, "base.identity", "en-US")
	minutes := builtinModule(t, "task.doc-minutes", "zh-CN")
	seed := []domain.Override{
		{ModuleID: "base.identity", Locale: "en-US", Text: changed(t, "base.identity", "en-US", "You are Lumen, the docs team's assistant."),
			Title: ident.Title, Version: ident.Version, BasedOnVersion: ident.Version, BaseSnapshot: ident.Text, Author: "test"},
		{ModuleID: "task.doc-minutes", Locale: "zh-CN", Text: changed(t, "task.doc-minutes", "zh-CN", "纪要末尾列出待办事项与负责人。"),
			Title: minutes.Title, Version: minutes.Version, BasedOnVersion: minutes.Version, BaseSnapshot: minutes.Text, Author: "test"},
		{ModuleID: "task.release-notes", Locale: "en-US", Text: userModule, Title: "Release notes", Version: 2, Author: "test"},
	}
	for i := range seed {
		seed[i].Publish = true // the export writes published overrides
		if _, err := src.SaveOverride(ctx, seed[i], 0); err != nil {
			t.Fatal(err)
		}
	}
	// A second save: the export takes the published revision's text…
	seed[0].Text = changed(t, "base.identity", "en-US", "You are Lumen, the documentation team's assistant.")
	if _, err := src.SaveOverride(ctx, seed[0], 1); err != nil {
		t.Fatal(err)
	}
	// …not a draft's.
	draft := seed[0]
	draft.Publish, draft.Text = false, changed(t, "base.identity", "en-US", "You are Lumen, an unpublished draft.")
	if _, err := src.SaveOverride(ctx, draft, 2); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	t.Setenv("DATABASE_URL", srcURL)
	out, err := cliRun(t, "export", "--out", dir)
	if err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	if want := "draft    base.identity (en-US) revision 3 is not published: the file holds published revision 2\n"; !strings.Contains(out, want) {
		t.Errorf("export does not name the pending draft; want %q in:\n%s", want, out)
	}
	files := map[string]domain.Override{
		filepath.Join(dir, "modules", "en-US", "base-identity.md"):      seed[0],
		filepath.Join(dir, "modules", "zh-CN", "task-doc-minutes.md"):   seed[1],
		filepath.Join(dir, "modules", "en-US", "task-release-notes.md"): seed[2],
	}
	for path, o := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("export did not write %s: %v", path, err)
		}
		if string(data) != o.Text {
			t.Errorf("%s differs from the stored text:\n%q\nwant\n%q", path, data, o.Text)
		}
		if !strings.Contains(out, "wrote "+path+" (") {
			t.Errorf("export output does not name %s:\n%s", path, out)
		}
	}
	if want := "exported 3 overrides to " + dir + "\n"; !strings.HasSuffix(out, want) {
		t.Errorf("export summary: got\n%s\nwant it to end with %q", out, want)
	}

	// A second export into the same folder is refused and writes nothing.
	mark := "edited by hand\n"
	writeFile(t, filepath.Join(dir, "modules", "en-US", "base-identity.md"), mark)
	out, err = cliRun(t, "export", "--out", dir)
	if err == nil || !strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), filepath.Join(dir, "modules", "zh-CN", "task-doc-minutes.md")) {
		t.Fatalf("export over existing files: err %v, want a refusal naming the files and --force\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "modules", "en-US", "base-identity.md")); string(data) != mark {
		t.Errorf("a refused export changed a file: %q", data)
	}
	if out, err = cliRun(t, "export", "--out", dir, "--force"); err != nil {
		t.Fatalf("export --force: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "modules", "en-US", "base-identity.md")); string(data) != seed[0].Text {
		t.Errorf("export --force did not overwrite: %q", data)
	}

	// Import into a fresh database.
	dstURL := storetest.NewDatabase(t)
	dst := openStore(t, dstURL)
	t.Setenv("DATABASE_URL", dstURL)
	out, err = cliRun(t, "import", "--from", "promptdesk", dir)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	for path := range files {
		if !strings.Contains(out, "imported "+path+": ") {
			t.Errorf("import output does not report %s as imported:\n%s", path, out)
		}
	}
	if want := "imported 3, skipped 0, failed 0 of 3 files from " + dir + "\n"; !strings.HasSuffix(out, want) {
		t.Errorf("import summary: got\n%s\nwant it to end with %q", out, want)
	}
	// Imported as drafts: nothing is served until published.
	if served := overrideTexts(t, dst); len(served) != 0 {
		t.Errorf("the import published %d overrides, want none (drafts)", len(served))
	}
	got, want := draftTexts(t, dst), overrideTexts(t, src)
	if len(got) != 3 {
		t.Errorf("imported %d drafts, want 3", len(got))
	}
	for key, text := range want {
		if got[key] != text {
			t.Errorf("%s: imported text differs:\n%q\nwant\n%q", key, got[key], text)
		}
	}

	// Base fields: the builtin of the locale for builtins, none for a user module.
	head, err := dst.GetOverride(context.Background(), "task.doc-minutes", "zh-CN")
	if err != nil {
		t.Fatal(err)
	}
	if head.BasedOnVersion != minutes.Version || head.BaseSnapshot != minutes.Text || head.BaseHash != domain.TextHash(minutes.Text) || head.Revision != 1 || head.Author != "cli" {
		t.Errorf("task.doc-minutes (zh-CN): based on v%d, snapshot equal %v, hash %q, revision %d, author %q",
			head.BasedOnVersion, head.BaseSnapshot == minutes.Text, head.BaseHash, head.Revision, head.Author)
	}
	user, err := dst.GetOverride(context.Background(), "task.release-notes", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if user.BasedOnVersion != 0 || user.BaseSnapshot != "" || user.BaseHash != "" {
		t.Errorf("user module: based on v%d, snapshot %q, hash %q; want none", user.BasedOnVersion, user.BaseSnapshot, user.BaseHash)
	}

	// Every import is in the audit log, by the CLI.
	entries, err := dst.ListAudit(context.Background(), domain.AuditFilter{Actor: "cli", Action: "import", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	audited := map[string]string{}
	for _, e := range entries {
		if e.Subject != "override" || e.Revision != 1 || e.Before != "" {
			t.Errorf("audit entry %+v: want subject override, revision 1, nothing before", e)
		}
		audited[e.SubjectID+" "+e.Locale] = e.After
	}
	if len(entries) != 3 {
		t.Errorf("%d audit entries with actor cli and action import, want 3", len(entries))
	}
	for key, text := range want {
		if audited[key] != text {
			t.Errorf("audit entry of %s: after %q, want the imported text", key, audited[key])
		}
	}

	// Importing the same folder again changes nothing.
	out, err = cliRun(t, "import", "--from", "promptdesk", dir)
	if err != nil {
		t.Fatalf("second import: %v\n%s", err, out)
	}
	if want := "imported 0, skipped 3, failed 0 of 3 files from " + dir + "\n"; !strings.HasSuffix(out, want) ||
		!strings.Contains(out, "skipped  "+filepath.Join(dir, "modules", "en-US", "base-identity.md")+": identical to the override of base.identity (en-US) at revision 1") {
		t.Errorf("second import:\n%s", out)
	}
}

func TestImportReportsEveryFile(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	st := openStore(t, dbURL)
	t.Setenv("DATABASE_URL", dbURL)
	dir := t.TempDir()
	mod := func(locale, file string) string { return filepath.Join(dir, "modules", locale, file) }

	caution := builtinModule(t, "base.caution", "en-US")
	good := changed(t, "base.identity", "zh-CN", "你的名字是 Lumen。")
	writeFile(t, mod("zh-CN", "base-identity.md"), good)
	writeFile(t, mod("en-US", "base-caution.md"), caution.Text)
	// version: 1.10 is on line 4.
	writeFile(t, mod("en-US", "base-style.md"), strings.Replace(builtinModule(t, "base.style", "en-US").Text, "version: 1\n", "version: 1.10\n", 1))
	// The id (line 2) does not match the file name.
	writeFile(t, mod("en-US", "task-summary.md"), builtinModule(t, "task.summarize", "en-US").Text)
	// An unknown placeholder on the body's first line.
	unknown := changed(t, "base.behavior", "en-US", "Greet {{visitor_name}} first.")
	writeFile(t, mod("en-US", "base-behavior.md"), unknown)
	writeFile(t, mod("not_a_locale!", "base-tools.md"), builtinModule(t, "base.tools", "en-US").Text)
	writeFile(t, filepath.Join(dir, "modules", "README.txt"), "not a module")

	out, err := cliRun(t, "import", "--from", "promptdesk", dir)
	if err == nil || err.Error() != "import: 4 of 6 files failed" {
		t.Fatalf("import: err %v, want \"import: 4 of 6 files failed\"\n%s", err, out)
	}
	unknownLine := 1 + strings.Count(unknown[:strings.Index(unknown, "{{visitor_name}}")], "\n")
	want := []string{
		"skipped  " + mod("en-US", "base-caution.md") + ": identical to the builtin en-US text (version 1); nothing stored",
		"failed   " + mod("en-US", "base-style.md") + ":4: field version: ",
		"failed   " + mod("en-US", "task-summary.md") + ":2: field id: id \"task.summarize\" does not match the file name task-summary.md (expected id \"task.summary\")",
		"failed   " + mod("en-US", "base-behavior.md") + ":" + strconv.Itoa(unknownLine) + ": field body: unknown placeholder {{visitor_name}}",
		"failed   " + mod("not_a_locale!", "base-tools.md") + ": folder \"not_a_locale!\" is not a BCP 47 locale tag",
		"imported " + mod("zh-CN", "base-identity.md") + ": base.identity (zh-CN) saved as draft revision 1 (not served until published)",
		"imported 1, skipped 1, failed 4 of 6 files from " + dir,
	}
	for _, w := range want {
		if !strings.Contains(out, "\n"+w) && !strings.HasPrefix(out, w) {
			t.Errorf("import output lacks a line starting %q:\n%s", w, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 7 {
		t.Errorf("import printed %d lines, want 6 files and a summary:\n%s", n, out)
	}
	texts := draftTexts(t, st)
	if len(texts) != 1 || texts["base.identity zh-CN"] != good {
		t.Errorf("stored drafts %v, want only base.identity (zh-CN)", texts)
	}
	if served := overrideTexts(t, st); len(served) != 0 {
		t.Errorf("the import published %v, want drafts only", served)
	}
}

func TestImportUnknownFormat(t *testing.T) {
	out, err := cliRun(t, "import", "--from", "langchain", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `--from "langchain"`) || !strings.Contains(err.Error(), "known: promptdesk, skills") {
		t.Fatalf("err %v, want a message naming the format and the known ones\n%s", err, out)
	}
}

func TestImportWithoutModulesFolder(t *testing.T) {
	dir := t.TempDir()
	_, err := cliRun(t, "import", "--from", "promptdesk", dir)
	if err == nil || !strings.Contains(err.Error(), "no modules folder") || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err %v, want no modules folder", err)
	}
}

// A Windows module file (UTF-8 BOM, CR-LF line endings) imports like its
// LF twin without a BOM: the stored draft is the LF text, no CR and no BOM
// in it. (The development set's bytes plus the description a module
// needs.)
func TestImportWindowsModuleFile(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	st := openStore(t, dbURL)
	t.Setenv("DATABASE_URL", dbURL)
	dir := t.TempDir()
	const lf = "---\nid: base.greet\nlayer: base\nversion: 1\ntitle: Greeting\ndescription: Greets by name.\nvariables: [name]\n---\nHello {{name}}\n"
	crlf := "\uFEFF" + strings.ReplaceAll(lf, "\n", "\r\n")
	writeFile(t, filepath.Join(dir, "modules", "en-US", "base-greet.md"), crlf)
	out, err := cliRun(t, "import", "--from", "promptdesk", dir)
	if err != nil || !strings.Contains(out, "imported 1, skipped 0, failed 0 of 1 files") {
		t.Fatalf("import: err %v\n%s", err, out)
	}
	if got := draftTexts(t, st)["base.greet en-US"]; got != lf {
		t.Errorf("stored draft %q, want the LF twin %q", got, lf)
	}
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// scenariosCLI runs `promptdesk scenarios args…` and returns stdout and
// the exit status main would use.
func scenariosCLI(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	out, err := cliRun(t, append([]string{"scenarios"}, args...)...)
	return out, exitStatus(err), err
}

// libraryCopy writes the embedded library's module and label files into
// a folder, for --library.
func libraryCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"modules", "labels"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join("..", "..", "library", sub))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The CI guard: check exits 2 while nothing is accepted, 0 once
// accepted, 1 with the diffs when a published override or a library
// folder changes an output (or a scenario no longer assembles), and
// accept records the new outputs.
func TestScenariosCheckAndAccept(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	t.Setenv("DATABASE_URL", dbURL)
	st := openStore(t, dbURL)
	ctx := domain.WithActor(context.Background(), "test")

	out, code, err := scenariosCLI(t, "check")
	if code != 2 || !strings.Contains(err.Error(), "no scenarios saved") {
		t.Fatalf("check with no scenarios: exit %d, %v\n%s", code, err, out)
	}

	const request = `{"locale": "en-US", "message": "Please translate this note", "model": "gpt-4o", "now": "2026-11-29T15:45:00Z"}`
	for _, sc := range []domain.Scenario{
		{ID: "english", Name: "English", Request: json.RawMessage(request)},
		{ID: "chinese", Name: "Chinese", Request: json.RawMessage(`{"locale": "zh-CN", "now": "2026-11-29T15:45:00Z"}`)},
	} {
		if _, err := st.SaveScenario(ctx, sc); err != nil {
			t.Fatal(err)
		}
	}
	out, code, _ = scenariosCLI(t, "check")
	if code != 2 || !strings.Contains(out, "never-accepted  english") || !strings.Contains(out, "0 changed, 0 failed, 2 never accepted, 0 unchanged") {
		t.Fatalf("check before any accept: exit %d\n%s", code, out)
	}

	out, code, err = scenariosCLI(t, "accept")
	if code != 0 || !strings.Contains(out, "accepted        english") || !strings.Contains(out, "2 accepted, 0 not") {
		t.Fatalf("accept all: exit %d, %v\n%s", code, err, out)
	}
	if sc, _ := st.GetScenario(ctx, "english"); sc.Accepted == nil || sc.Accepted.By != "cli" {
		t.Errorf("english accepted %+v, want by cli", sc.Accepted)
	}
	out, code, err = scenariosCLI(t, "check")
	if code != 0 || err != nil || !strings.Contains(out, "0 changed, 0 failed, 0 never accepted, 2 unchanged") {
		t.Fatalf("check after accept: exit %d, %v\n%s", code, err, out)
	}

	// A published override changes the English output only.
	const line = "Answer as the CLI test's assistant."
	ident := builtinModule(t, "base.identity", "en-US")
	text := strings.TrimRight(ident.Text, "\n") + "\n\n" + line + "\n"
	if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: ident.ID, Locale: "en-US", Text: text, Title: ident.Title, Version: ident.Version,
		BasedOnVersion: ident.Version, BaseSnapshot: ident.Text, Author: "test", Publish: true}, 0); err != nil {
		t.Fatal(err)
	}
	out, code, err = scenariosCLI(t, "check")
	for _, want := range []string{
		"changed         english",
		"unchanged       chinese",
		"    + " + line + "\n",
		"    - prompt(base.identity v1 · default)\n",
		"    + prompt(base.identity v1 · default · override r1)\n",
		"unchanged lines\n",
		"1 changed, 0 failed, 0 never accepted, 1 unchanged",
		"promptdesk scenarios accept ID",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check after the override lacks %q:\n%s", want, out)
		}
	}
	if code != 1 || !strings.Contains(err.Error(), "1 changed, 0 failed") {
		t.Errorf("check after the override: exit %d, %v", code, err)
	}

	// Accept names one scenario; an unknown id fails.
	if _, code, err := scenariosCLI(t, "accept", "nope"); code != 1 || !strings.Contains(err.Error(), `no scenario "nope"`) {
		t.Errorf("accept nope: exit %d, %v", code, err)
	}
	out, code, _ = scenariosCLI(t, "accept", "english", "chinese")
	if code != 0 || !strings.Contains(out, "accepted        english") || !strings.Contains(out, "unchanged       chinese") || !strings.Contains(out, "1 accepted, 0 not") {
		t.Fatalf("accept english chinese: exit %d\n%s", code, out)
	}
	if _, code, _ := scenariosCLI(t, "check"); code != 0 {
		t.Errorf("check after accepting the change: exit %d", code)
	}

	// A library change (--library, the CI case): the Chinese identity
	// changes in the folder.
	lib := libraryCopy(t)
	zh := filepath.Join(lib, "modules", "zh-CN", "base-identity.md")
	data, err := os.ReadFile(zh)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zh, []byte(strings.TrimRight(string(data), "\n")+"\n\n回答时保持简短。\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code, _ = scenariosCLI(t, "check", "--library", lib)
	if code != 1 || !strings.Contains(out, "changed         chinese") || !strings.Contains(out, "    + 回答时保持简短。\n") || !strings.Contains(out, "unchanged       english") {
		t.Errorf("check with the changed library: exit %d\n%s", code, out)
	}
	// The same folder unchanged elsewhere keeps every scenario unchanged:
	// the library line (folder and generation) is not compared.
	if out, code, _ := scenariosCLI(t, "check", "--library", libraryCopy(t)); code != 0 {
		t.Errorf("check with an unchanged library folder: exit %d\n%s", code, out)
	}

	// A scenario that no longer assembles fails the check, and accept
	// refuses it.
	if _, err := st.SaveScenario(ctx, domain.Scenario{ID: "ghost", Name: "Ghost", Request: json.RawMessage(`{"profile": "ghost"}`)}); err != nil {
		t.Fatal(err)
	}
	out, code, _ = scenariosCLI(t, "check")
	if code != 1 || !strings.Contains(out, "failed          ghost") || !strings.Contains(out, "does not assemble") {
		t.Errorf("check with a failing scenario: exit %d\n%s", code, out)
	}
	out, code, err = scenariosCLI(t, "accept", "ghost")
	if code != 1 || !strings.Contains(out, "not accepted    ghost") || !strings.Contains(err.Error(), "ghost") {
		t.Errorf("accept ghost: exit %d, %v\n%s", code, err, out)
	}
}

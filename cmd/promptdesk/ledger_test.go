package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library/importer"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// entryNames are the entry names of ledger list's table, in order.
func entryNames(out string) []string {
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasPrefix(line, "ENTRY") {
			names = append(names, f[0])
		}
	}
	return names
}

// TestLedgerCommands runs the porting ledger's round trip from the
// shell: sync a catalogue folder, decide (a bad decision refused naming
// the field), list with filters, export Markdown, sync the newer
// catalogue and see exactly the changed ported entries upstream-drifted,
// the changed refusal up for a second look, then decide again.
func TestLedgerCommands(t *testing.T) {
	t.Setenv("DATABASE_URL", storetest.NewDatabase(t))
	v1, v2 := filepath.Join("testdata", "ledger", "v1"), filepath.Join("testdata", "ledger", "v2")

	out, err := cliRun(t, "ledger", "sync", "--from", "json", v1)
	if err != nil {
		t.Fatalf("sync v1: %v\n%s", err, out)
	}
	if !strings.HasPrefix(out, "claude-code: 6 entries: 6 new, 0 changed, 0 removed, 0 unchanged; 0 upstream-drifted, 0 for a second look\n") ||
		strings.Count(out, "\nnew ") != 6 {
		t.Errorf("sync v1:\n%s", out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--decision", "port", "tool-description-bash"}, "field module"},
		{[]string{"--decision", "port", "--module", "tool.none", "tool-description-bash"}, `no module "tool.none"`},
		{[]string{"--decision", "do-not-port", "tool-description-bash"}, "field reason"},
		{[]string{"--decision", "port", "--module", "base.caution", "tool-none"}, "does not exist"},
	} {
		if _, err := cliRun(t, append([]string{"ledger", "decide"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("decide %v: %v, want an error with %q", c.args, err, c.want)
		}
	}
	for _, args := range [][]string{
		{"--decision", "port", "--module", "base.caution", "tool-description-bash"},
		{"--decision", "merge", "--module", "base.behavior", "--reason", "the same advice", "tool-description-read"},
		{"--decision", "do-not-port", "--reason", "We have no notebook tool.", "tool-description-notebook-edit"},
		{"--decision", "port", "--module", "base.identity", "system-prompt-plan-mode"},
		{"--decision", "do-not-port", "--reason", "No status line here.", "agent-prompt-statusline"},
	} {
		if out, err := cliRun(t, append([]string{"ledger", "decide"}, args...)...); err != nil || !strings.Contains(out, args[len(args)-1]+": ") {
			t.Fatalf("decide %v: %v\n%s", args, err, out)
		}
	}

	out, err = cliRun(t, "ledger", "list", "--decision", "port")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(entryNames(out), " "); got != "system-prompt-plan-mode tool-description-bash" {
		t.Errorf("list --decision port: %q\n%s", got, out)
	}
	if !regexp.MustCompile(`(?m)^tool-description-bash\s+tool-description\s+2\.0\.1\s+port\s+base\.caution\s+-\s+cli \d{4}-`).MatchString(out) {
		t.Errorf("list line of tool-description-bash:\n%s", out)
	}
	if out, _ := cliRun(t, "ledger", "list", "--q", "NOTEBOOK"); strings.Join(entryNames(out), " ") != "tool-description-notebook-edit" {
		t.Errorf("list --q NOTEBOOK:\n%s", out)
	}
	if _, err := cliRun(t, "ledger", "list", "--flag", "drifted"); err == nil || !strings.Contains(err.Error(), "field flag") {
		t.Errorf("list --flag drifted: %v, want refused naming the flag", err)
	}

	md := filepath.Join(t.TempDir(), "ledger.md")
	if out, err := cliRun(t, "ledger", "export", "--out", md); err != nil || !strings.Contains(out, "written to "+md) {
		t.Fatalf("export --out: %v\n%s", err, out)
	}
	written, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cliRun(t, "ledger", "export")
	if err != nil || stdout != string(written) {
		t.Errorf("export to stdout (%v) differs from --out:\n%s\n---\n%s", err, stdout, written)
	}
	for _, line := range []string{
		"6 entries: 2 ported, 1 merged, 2 not ported, 1 undecided; 0 upstream-drifted, 0 for a second look, 0 removed upstream.",
		"| tool-description-read | tool-description | 2.0.1 | merge | `base.behavior` | the same advice | cli, ",
		"| output-style-explanatory | output-style | 2.0.1 | undecided |  |  |  |  |",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("export lacks %q:\n%s", line, stdout)
		}
	}

	out, err = cliRun(t, "ledger", "sync", "--from", "json", v2)
	if err != nil {
		t.Fatalf("sync v2: %v\n%s", err, out)
	}
	want := `claude-code: 6 entries: 1 new, 3 changed, 1 removed, 2 unchanged; 2 upstream-drifted, 1 for a second look
new               tool-description-todo-write
changed           system-prompt-plan-mode
changed           tool-description-bash
changed           tool-description-notebook-edit
removed           agent-prompt-statusline
upstream-drifted  system-prompt-plan-mode
upstream-drifted  tool-description-bash
second-look       tool-description-notebook-edit
`
	if out != want {
		t.Errorf("sync v2:\n%s\nwant:\n%s", out, want)
	}
	out, _ = cliRun(t, "ledger", "list", "--flag", "upstream-drifted")
	if got := strings.Join(entryNames(out), " "); got != "system-prompt-plan-mode tool-description-bash" {
		t.Errorf("list --flag upstream-drifted: %q\n%s", got, out)
	}

	if _, err := cliRun(t, "ledger", "decide", "--decision", "port", "--module", "base.caution", "tool-description-bash"); err != nil {
		t.Fatal(err)
	}
	out, _ = cliRun(t, "ledger", "list", "--flag", "upstream-drifted")
	if got := strings.Join(entryNames(out), " "); got != "system-prompt-plan-mode" {
		t.Errorf("upstream-drifted after deciding tool-description-bash again: %q", got)
	}

	if _, err := cliRun(t, "ledger", "sync", "--from", "yaml", v1); err == nil || !strings.Contains(err.Error(), "json") {
		t.Errorf("sync --from yaml: %v, want the formats named", err)
	}
	if _, err := cliRun(t, "ledger", "sync", "--from", "json", t.TempDir()); err == nil || !strings.Contains(err.Error(), "catalogue.json") {
		t.Errorf("sync of a folder without catalogue.json: %v, want the file named", err)
	}

	// Claude Code's catalogue, read by the importer: every fragment is an
	// entry.
	cc := filepath.Join("..", "..", "library", "importer", "testdata", "claude-code")
	_, entries, err := importer.ReadClaudeCodeCatalogue(cc)
	if err != nil {
		t.Fatal(err)
	}
	out, err = cliRun(t, "ledger", "sync", "--from", "claude-code", "--catalogue", "cc-fixture", cc)
	if err != nil {
		t.Fatalf("sync --from claude-code: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("cc-fixture: %d entries: %d new, 0 changed", len(entries), len(entries)); !strings.HasPrefix(out, want) ||
		!strings.Contains(out, "\nnew               "+entries[0].Name+"\n") {
		t.Errorf("sync --from claude-code:\n%s\nwant %q and a line per entry", out, want)
	}
}

package importer

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestClaudeCodeFixtureReport(t *testing.T) {
	res := run(t, FormatClaudeCode, "testdata/claude-code", Options{})
	var rep strings.Builder
	res.Report(&rep, "testdata/claude-code")
	t.Log(rep.String())
}

func TestReadClaudeCodeCatalogue(t *testing.T) {
	source, entries, err := ReadClaudeCodeCatalogue("testdata/claude-code")
	if err != nil {
		t.Fatal(err)
	}
	if source != ClaudeCodeSource {
		t.Errorf("source %q", source)
	}
	files, err := filepath.Glob("testdata/claude-code/system-prompts/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(files) {
		t.Fatalf("%d entries for %d fragment files", len(entries), len(files))
	}
	byPath := map[string]CatalogueEntry{}
	for _, e := range entries {
		byPath[e.Path] = e
	}
	want := map[string]CatalogueEntry{
		"system-prompts/tool-description-bash.md": {Name: "Tool Description: Bash", Kind: "tool-description", Version: "2.1.240",
			ModuleID: "tool.tool-description-bash"},
		"system-prompts/system-prompt-ternary.md": {Name: "System Prompt: Tone", Kind: "system-prompt", Version: "2.1.240",
			Text: "Answer questions.\n\n${IS_TERSE ? \"Be brief.\" : \"Explain your steps.\"}\n"},
		"system-prompts/skill-no-name.md":          {Name: "skill-no-name", Kind: "skill", Version: "2.1.240", ModuleID: "task.skill-no-name"},
		"system-prompts/notes-misc.md":             {Name: "Tool Description: Grep", Kind: "tool-description", Version: "2.1.240", ModuleID: "tool.notes-misc"},
		"system-prompts/changelog-entry.md":        {Name: "Changelog", Version: "2.1.240", Text: "Nothing to see.\n"},
		"system-prompts/system-reminder-plain.md":  {Name: "system-reminder-plain", Kind: "system-reminder", ModuleID: "aux.system-reminder-plain", Text: "Remember: ${NOT_A_VARIABLE} stays as written.\n"},
		"system-prompts/data-windows.md":           {Name: "Data: Windows notes", Kind: "data", Version: "2.1.240", ModuleID: "aux.data-windows", Text: "Run commands in ${SHELL_NAME}.\nPaths use backslashes.\n"},
		"system-prompts/agent-prompt-timeout.md":   {Name: "Agent Prompt: Timeout", Kind: "agent-prompt", Version: "2.1.240", Text: "Each step may take up to\n${MAX_TIMEOUT / 60000} minutes.\n"},
		"system-prompts/system-reminder-empty.md":  {Name: "System Reminder: Empty", Kind: "system-reminder", Version: "2.1.240"},
		"system-prompts/tool-parameter-command.md": {Name: "Tool Parameter: command", Kind: "tool-parameter", Version: "2.1.239", ModuleID: "tool.tool-parameter-command", Text: "The command to execute, as one line.\n"},
	}
	for p, w := range want {
		w.Path = p
		got, ok := byPath[p]
		if !ok {
			t.Errorf("no entry for %s", p)
			continue
		}
		if w.Text == "" && p == "system-prompts/tool-description-bash.md" {
			w.Text = got.Text
			if !strings.HasPrefix(got.Text, "Use ${BASH_TOOL_NAME} to run") || strings.Contains(got.Text, "-->") {
				t.Errorf("%s: text %q", p, got.Text)
			}
		}
		if p == "system-prompts/skill-no-name.md" || p == "system-prompts/notes-misc.md" {
			w.Text = got.Text
		}
		if got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", p, got, w)
		}
	}
}

package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

// corpus returns the folder of one real corpus under ../shared/cases/
// corpora (beside the repository root), skipping the test when absent.
func corpus(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "cases", "corpora", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the real corpus %s is absent (%v); the fixtures under testdata cover the same rules", p, err)
	}
	return p
}

// logCounts prints the counts for the lead's report.
func logCounts(t *testing.T, res *Result) {
	n := res.Counts()
	t.Logf("%s: imported %d, not imported %d, attached %d, used %d, skipped %d of %d source items; %d module files",
		res.Format, n[StatusImported], n[StatusNotImported], n[StatusAttached], n[StatusUsed], n[StatusSkipped], len(res.Outcomes), len(res.Modules))
}

func parsed(t *testing.T, res *Result, p string) *library.Module {
	t.Helper()
	m, err := library.Parse(p, []byte(moduleText(t, res, p)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCorpusAnthropicSkills(t *testing.T) {
	dir := corpus(t, "anthropic-skills")
	res := run(t, FormatSkills, dir, Options{})
	logCounts(t, res)
	wantCounts(t, res, 12, 0, 0, 1)
	if len(res.Modules) != 12 {
		t.Errorf("%d modules, want 12", len(res.Modules))
	}
	// A three-line description arrives whole, on one line.
	src, err := os.ReadFile(filepath.Join(dir, "claude-api", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	want := strings.TrimSpace(lines[3]) + " " + strings.TrimSpace(lines[4]) + " " + strings.TrimSpace(lines[5])
	if got := parsed(t, res, "modules/en-US/task-claude-api.md").Description; got != want {
		t.Errorf("task.claude-api description:\n%q\nwant\n%q", got, want)
	}
	wantNote(t, outcome(t, res, "claude-api/SKILL.md", ""), 3, "description joined from 3 lines")
	// The one rule of the Agent Skills specification the corpus breaks.
	wantFindings(t, outcome(t, res, "claude-api/SKILL.md", ""), "line 3: description is 1,068 characters: the Agent Skills specification allows at most 1,024")
	if res.Findings() != 1 {
		t.Errorf("%d findings, want the 1 of claude-api", res.Findings())
	}
	wantNote(t, outcome(t, res, "mcp-builder/SKILL.md", ""), 4, "field license", "not kept")
	if o := outcome(t, res, "LICENSE.txt", ""); o.Status != StatusSkipped {
		t.Errorf("LICENSE.txt: %s", o.Status)
	}
	loadAndRender(t, res)
}

func TestCorpusMaiBot(t *testing.T) {
	res := run(t, FormatMaiBot, corpus(t, "maibot-prompts"), Options{})
	logCounts(t, res)
	// 24 + 24 + 23 prompt files; 4 meta entries per locale have no file.
	wantCounts(t, res, 71, 12, 3, 1)
	perLocale := map[string]int{}
	for _, m := range res.Modules {
		perLocale[m.Locale]++
	}
	if perLocale["en-US"] != 24 || perLocale["ja-JP"] != 24 || perLocale["zh-CN"] != 23 {
		t.Errorf("modules per locale %v, want en-US 24, ja-JP 24, zh-CN 23", perLocale)
	}
	for _, loc := range []string{"en-US", "ja-JP", "zh-CN"} {
		o := outcome(t, res, loc+"/.meta.toml", "[maisaka_timing_gate]")
		if o.Status != StatusNotImported || o.Line != 116 || !hasNote(o, 0, "no prompt file maisaka_timing_gate.prompt") {
			t.Errorf("%s [maisaka_timing_gate]: %+v", loc, o)
		}
	}
	// A field became a declared placeholder.
	m := parsed(t, res, "modules/en-US/aux-learn_jargon.md")
	if len(m.Variables) != 1 || m.Variables[0].Name != "chat_str" || !strings.Contains(m.Body, "{{chat_str}}") {
		t.Errorf("aux.learn_jargon: variables %v", m.Variables)
	}
	// `{{`…`}}` are literal braces: the module holds what str.format renders.
	m = parsed(t, res, "modules/zh-CN/aux-consolidate_behavior.md")
	if !strings.Contains(m.Body, `{"merge_groups":[]}`) || strings.Contains(m.Body, `{{"merge_groups"`) {
		t.Errorf("aux.consolidate_behavior (zh-CN): the doubled braces are not the literal braces")
	}
	if m.Title == "consolidate_behavior" || m.Description == "" {
		t.Errorf("aux.consolidate_behavior (zh-CN): title %q and description %q should come from .meta.toml", m.Title, m.Description)
	}
	rendered := loadAndRender(t, res)
	if got := rendered["modules/en-US/aux-consolidate_behavior.md"]; !strings.Contains(got, `{"merge_groups":[]}`) || !strings.Contains(got, value("behavior_patterns")) {
		t.Errorf("aux.consolidate_behavior (en-US) renders without its literal braces or its variable")
	}
}

func TestCorpusWeKnora(t *testing.T) {
	res := run(t, FormatWeKnora, corpus(t, "weknora-prompt-templates"), Options{})
	logCounts(t, res)
	// 37 templates; the 4 with a user prompt make a second module each.
	wantCounts(t, res, 37, 0, 0, 1)
	if len(res.Modules) != 41 {
		t.Errorf("%d modules, want 41", len(res.Modules))
	}
	agents := 0
	for _, m := range res.Modules {
		if m.Locale != "en-US" {
			t.Errorf("%s: locale %s, want en-US (the content is English; i18n gives titles only)", m.Path, m.Locale)
		}
		if strings.HasPrefix(m.ID, "agent.") {
			agents++
		}
	}
	if agents != 6 {
		t.Errorf("%d agent modules, want the 6 templates of agent_system_prompt.yaml", agents)
	}
	m := parsed(t, res, "modules/en-US/aux-default_rewrite.user.md")
	if _, ok := m.Variable("current_time_value"); !ok || !strings.Contains(m.Body, "{{current_time_value}}") {
		t.Errorf("aux.default_rewrite.user: current_time is not renamed current_time_value: %v", m.Variables)
	}
	wantNote(t, outcome(t, res, "agent_system_prompt.yaml", "template pure_agent"), 17, `field mode: "pure" has no place`)
	loadAndRender(t, res)
}

func TestCorpusJinjaIndex(t *testing.T) {
	res := run(t, FormatJinjaIndex, corpus(t, "oh-mai-agent-templates"), Options{})
	logCounts(t, res)
	// index.json declares 7 templates, all on disk: 4 map (comments only),
	// 3 use {% if %} / {% for %} / attribute access.
	wantCounts(t, res, 4, 3, 1, 1)
	for _, src := range []string{"context_note.md", "planner_board.md", "polish.md"} {
		if o := outcome(t, res, src, ""); o.Status != StatusNotImported {
			t.Errorf("%s: %s", src, o.Status)
		}
	}
	board := outcome(t, res, "planner_board.md", "")
	wantNote(t, board, 10, "Jinja {% if %}")
	wantNote(t, board, 19, "Jinja {% for %}")
	wantNote(t, board, 19, "Jinja attribute access {{ t.title }}")
	wantNote(t, outcome(t, res, "context_note.md", ""), 2, "Jinja {% if %}")
	for _, p := range []string{"modules/zh-CN/agent-agent_system.md", "modules/zh-CN/agent-subagent_system.md", "modules/zh-CN/aux-injection.md", "modules/zh-CN/aux-title.md"} {
		if m := parsed(t, res, p); len(m.Variables) == 0 || strings.Contains(m.Body, "{#") {
			t.Errorf("%s: variables %v, comment left in the body: %v", p, m.Variables, strings.Contains(m.Body, "{#"))
		}
	}
	loadAndRender(t, res)
}

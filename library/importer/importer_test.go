package importer

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

func TestSkillsFixture(t *testing.T) {
	res := run(t, FormatSkills, "testdata/skills", Options{})
	wantCounts(t, res, 3, 2, 0, 1)

	notes := outcome(t, res, "meeting-notes/SKILL.md", "")
	if notes.Status != StatusImported || len(notes.Modules) != 1 || notes.Modules[0] != "modules/en-US/task-meeting-notes.md" {
		t.Errorf("meeting-notes: %+v", notes)
	}
	want := "---\nid: task.meeting-notes\nlayer: task\nversion: 1\ntitle: \"meeting-notes\"\n" +
		"description: \"Turns a raw meeting transcript into tidy notes. Use it when the user pastes a transcript or a recording summary and asks for minutes, decisions or action items.\"\n" +
		"---\n# Meeting notes\n\nWrite the notes in three parts: decisions, open questions, action items.\n" +
		"Name every action item's owner; write \"unassigned\" when the transcript does not say.\n\n" +
		"Templates in the team wiki use the marker \\{{attendee}} for a name: keep such markers as they are.\n" +
		"See templates/agenda.txt for the agenda layout.\n"
	if got := moduleText(t, res, "modules/en-US/task-meeting-notes.md"); got != want {
		t.Errorf("task.meeting-notes:\n%s\nwant\n%s", got, want)
	}
	wantNote(t, notes, 3, "description joined from 3 lines")
	wantNote(t, notes, 7, "field license", "Fixture licence", "not kept")
	wantNote(t, notes, 8, "field allowed-tools", "read_file", "not kept")
	wantNote(t, notes, 9, "field metadata", "docs-team", "not kept")
	wantNote(t, notes, 12, "1 literal {{name}} sequence(s) written \\{{name}}")
	wantNote(t, notes, 0, "locale en-US detected")

	writer := outcome(t, res, "release-writer/SKILL.md", "")
	if len(writer.Modules) != 1 || writer.Modules[0] != "modules/en-US/task-release_writer.md" {
		t.Errorf("release-writer modules %v", writer.Modules)
	}
	wantNote(t, writer, 2, `name "Release_Writer" renamed "release_writer"`)
	wantFindings(t, writer,
		`line 2: name "Release_Writer" has 'R', '_', 'W': the Agent Skills specification allows only lowercase letters, digits and hyphens`,
		`line 2: name "Release_Writer" differs from its folder's name "release-writer": the Agent Skills specification requires them to match (the name is used)`)

	// Each rule of the specification a skill breaks is its own finding;
	// the skill is imported all the same.
	const long = "Weekly-status-report-for-the-leadership-team-with-risks--and-decision-"
	weekly := outcome(t, res, "weekly-status/SKILL.md", "")
	if weekly.Status != StatusImported || len(weekly.Modules) != 1 || weekly.Modules[0] != "modules/en-US/task-weekly-status-report-for-the-leadership-team-with-risks-and-decision.md" {
		t.Errorf("weekly-status: %s %v", weekly.Status, weekly.Modules)
	}
	wantFindings(t, weekly,
		"line 2: name is 70 characters: the Agent Skills specification allows at most 64",
		`line 2: name "`+long+`" has 'W': the Agent Skills specification allows only lowercase letters, digits and hyphens`,
		`line 2: name "`+long+`" starts or ends with a hyphen: the Agent Skills specification does not allow that`,
		`line 2: name "`+long+`" has two hyphens in a row: the Agent Skills specification allows single hyphens only`,
		`line 2: name "`+long+`" differs from its folder's name "weekly-status": the Agent Skills specification requires them to match (the name is used)`,
		"line 3: description is 1,038 characters: the Agent Skills specification allows at most 1,024")
	if got := parsed(t, res, weekly.Modules[0]).Description; len([]rune(got)) != 1038 {
		t.Errorf("the long description is not kept whole: %d characters", len([]rune(got)))
	}
	wantFindings(t, outcome(t, res, "meeting-notes/SKILL.md", ""))
	wantFindings(t, outcome(t, res, "broken/SKILL.md", ""), "line 2: no description: the Agent Skills specification requires one")
	if res.Findings() != 9 {
		t.Errorf("%d findings, want 9", res.Findings())
	}
	if got := moduleText(t, res, "modules/en-US/task-release_writer.md"); !strings.Contains(got, "title: \"Release_Writer\"\n") {
		t.Errorf("the title keeps the skill's name as written:\n%s", got)
	}

	for src, reason := range map[string]string{
		"broken/SKILL.md":  "no description",
		"nofront/SKILL.md": "no frontmatter",
	} {
		o := outcome(t, res, src, "")
		if o.Status != StatusNotImported || !hasNote(o, 0, reason) {
			t.Errorf("%s: %s %v, want not imported: %s", src, o.Status, o.Reasons, reason)
		}
	}
	// A skill's other files come with it: attached, no failure.
	if o := outcome(t, res, "meeting-notes/templates/agenda.txt", ""); o.Status != StatusAttached || !hasNote(o, 0, "a resource of the skill in meeting-notes") {
		t.Errorf("agenda.txt: %s %v, want attached", o.Status, o.Reasons)
	}
	if n := res.Counts()[StatusAttached]; n != 1 {
		t.Errorf("%d attached, want 1", n)
	}
	if o := outcome(t, res, "README.md", ""); o.Status != StatusSkipped {
		t.Errorf("README.md: %s", o.Status)
	}

	rendered := loadAndRender(t, res)
	if got := rendered["modules/en-US/task-meeting-notes.md"]; !strings.Contains(got, "use the marker {{attendee}} for a name") {
		t.Errorf("the literal {{attendee}} does not render as written:\n%s", got)
	}
}

func TestMaiBotFixture(t *testing.T) {
	res := run(t, FormatMaiBot, "testdata/maibot", Options{})
	wantCounts(t, res, 8, 3, 2, 1)

	want := "---\nid: aux.greet\nlayer: aux\nversion: 1\ntitle: \"Greeting\"\ndescription: \"Greets a user by name and signs off.\"\n" +
		"variables: [\"user_name\", \"bot_name\"]\n---\n" +
		"You greet {{user_name}} on behalf of {{bot_name}}.\n" +
		"Answer with JSON only: {\"greeting\": \"<one sentence>\"}\n" +
		"Leave the literal marker \\{{user_name}} untouched when it appears in the user's text.\n" +
		"{{aux.signature}}\n"
	if got := moduleText(t, res, "modules/en-US/aux-greet.md"); got != want {
		t.Errorf("aux.greet (en-US):\n%s\nwant\n%s", got, want)
	}
	greet := outcome(t, res, "prompts/en-US/greet.prompt", "")
	wantNote(t, greet, 4, "field {signature} names the prompt signature: included as {{aux.signature}}")
	wantNote(t, greet, 3, "prompts/en-US/.meta.toml:3: description of [greet] joined from 2 lines")
	wantNote(t, greet, 0, "prompts/en-US/.meta.toml:6: [greet] advanced = false has no place")
	wantNote(t, greet, 0, "1 literal {{name}} sequence(s)")

	// zh-CN greet does not use bot_name; it declares it all the same, since
	// all locales of a module share one variable list.
	zh := moduleText(t, res, "modules/zh-CN/aux-greet.md")
	if !strings.Contains(zh, "title: \"问候\"\n") || !strings.Contains(zh, "variables: [\"user_name\", \"bot_name\"]\n") || !strings.Contains(zh, "{\"greeting\": \"<一句话>\"}") {
		t.Errorf("aux.greet (zh-CN):\n%s", zh)
	}
	wantNote(t, outcome(t, res, "prompts/zh-CN/greet.prompt", ""), 0, "variable bot_name is used by another locale of greet but not this one")

	bad := outcome(t, res, "prompts/en-US/bad_format.prompt", "")
	// What MaiBot's own engine fails on is a finding each, and the prompt
	// stays out rather than being guessed at…
	if bad.Status != StatusNotImported || len(bad.Findings) != 6 || len(bad.Reasons) != 3 {
		t.Errorf("bad_format: %s, findings %v, reasons %v; want 6 findings, 3 reasons", bad.Status, bad.Findings, bad.Reasons)
	}
	const fails = "MaiBot's own engine fails on it"
	wantFindings(t, bad,
		"line 1: field {0}: a positional field: "+fails+" (it passes values by name only)",
		"line 1: field {user.name}: attribute or index access: "+fails+" (it looks the whole field up as one name)",
		"line 3: a single }: "+fails+" (str.format stops at a single }; }} is a literal brace)",
		`line 4: field {{{user_name}}}: MaiBot turns {{ and }} into literal braces before it reads fields, so this field's name, "user_name}", holds a brace: `+fails,
		`line 4: field {bot_name}}}: MaiBot turns {{ and }} into literal braces before it reads fields, so this field's name, "bot_name}", holds a brace: `+fails,
		"line 4: field {}: an unnamed field: "+fails+" (it refuses to load a template that has one)")
	wantNote(t, bad, 0, "MaiBot's own engine fails on this text (the findings below), so what was meant cannot be known")
	// …and what it renders but a module cannot hold has no equivalent.
	wantNote(t, bad, 2, "field {user_name!r}: a conversion (!r, !s, !a): MaiBot renders it, but the module format has no equivalent")
	wantNote(t, bad, 2, "field {when:%Y-%m-%d}: a format spec: MaiBot renders it, but the module format has no equivalent")

	noMeta := outcome(t, res, "prompts/en-US/no_meta.prompt", "")
	wantNote(t, noMeta, 0, "no [no_meta] table in the en-US .meta.toml")
	if got := moduleText(t, res, "modules/en-US/aux-no_meta.md"); !strings.Contains(got, "title: \"no_meta\"\ndescription: \"Summarise the thread in {{max_words}} words or fewer.\"\n") {
		t.Errorf("aux.no_meta: title from the file name, description derived:\n%s", got)
	}
	wantNote(t, outcome(t, res, "prompts/en-US/uses_date.prompt", ""), 1, `variable "date" renamed "date_value"`)
	if got := moduleText(t, res, "modules/en-US/aux-uses_date.md"); !strings.Contains(got, "variables: [\"date_value\", \"folder\"]\n---\nStamp the note with {{date_value}} and file it under {{folder}}.\n") {
		t.Errorf("aux.uses_date:\n%s", got)
	}
	wantNote(t, outcome(t, res, "prompts/drafts/stray.prompt", ""), 0, `folder "drafts" is not a BCP 47 locale tag`)
	if o := outcome(t, res, "prompts/en-US/.meta.toml", "[ghost]"); o.Status != StatusNotImported || o.Line != 21 || !hasNote(o, 0, "no prompt file ghost.prompt in the en-US folder") {
		t.Errorf("[ghost]: %+v", o)
	}
	if o := outcome(t, res, "prompts/README.md", ""); o.Status != StatusSkipped {
		t.Errorf("README.md: %s", o.Status)
	}

	rendered := loadAndRender(t, res)
	wantText := "You greet <user_name=v> on behalf of <bot_name=v>.\n" +
		"Answer with JSON only: {\"greeting\": \"<one sentence>\"}\n" +
		"Leave the literal marker {{user_name}} untouched when it appears in the user's text.\n" +
		"End with: \"Kind regards, <bot_name=v>.\""
	if got := rendered["modules/en-US/aux-greet.md"]; got != wantText {
		t.Errorf("aux.greet renders\n%q\nwant\n%q", got, wantText)
	}

	// An included prompt whose text begins and ends with a line break
	// keeps both where the include sits, as MaiBot inserts the whole text.
	if got := moduleText(t, res, "modules/en-US/aux-wrapper.md"); !strings.HasSuffix(got, "---\nHead \n{{aux.note_line}}\n mid {{topic}}.\nTail.\n") {
		t.Errorf("aux.wrapper:\n%s", got)
	}
	wantNote(t, outcome(t, res, "prompts/en-US/wrapper.prompt", ""), 1, `{{aux.note_line}} is written between the blank text its prompt's text begins and ends with ("\n" before, "\n" after): MaiBot inserts the whole text`)
	if got, want := rendered["modules/en-US/aux-wrapper.md"], "Head \nInner <topic=v> and Y {x}\n mid <topic=v>.\nTail."; got != want {
		t.Errorf("aux.wrapper renders\n%q\nwant (MaiBot's text without its final line break)\n%q", got, want)
	}
}

func TestMaiBotRefusesLocale(t *testing.T) {
	_, err := Import(FormatMaiBot, os.DirFS("testdata/maibot"), Options{Locale: "en-US"})
	if err == nil || !strings.Contains(err.Error(), "--locale does not apply to MaiBot") {
		t.Fatalf("err %v", err)
	}
}

func TestWeKnoraFixture(t *testing.T) {
	res := run(t, FormatWeKnora, "testdata/weknora", Options{})
	wantCounts(t, res, 3, 2, 0, 1)
	const dir = "config/prompt_templates/"

	kb := outcome(t, res, dir+"assistant.yaml", "template kb_helper")
	if kb.Line != 4 || len(kb.Modules) != 2 {
		t.Errorf("kb_helper: line %d, modules %v", kb.Line, kb.Modules)
	}
	want := "---\nid: aux.kb_helper\nlayer: aux\nversion: 1\ntitle: \"Knowledge-base helper\"\n" +
		"description: \"Answers questions from the knowledge base only\"\n" +
		"variables: [\"language\", \"current_time_value\", \"contexts\"]\n---\n" +
		"You answer questions from the documents below and nothing else.\n" +
		"Reply in {{language}}. The time is {{current_time_value}}.\n" +
		"Braces in JSON stay as they are: {\"found\": true}.\n\nDocuments:\n{{contexts}}\n"
	if got := moduleText(t, res, "modules/en-US/aux-kb_helper.md"); got != want {
		t.Errorf("aux.kb_helper:\n%s\nwant\n%s", got, want)
	}
	if got := moduleText(t, res, "modules/en-US/aux-kb_helper.user.md"); !strings.Contains(got, "title: \"Knowledge-base helper (user prompt)\"\n") ||
		!strings.HasSuffix(got, "variables: [\"query\"]\n---\nQuestion: {{query}}\n") {
		t.Errorf("aux.kb_helper.user:\n%s", got)
	}
	wantNote(t, kb, 14, `field mode: "rag" has no place in the module format; not kept`)
	wantNote(t, kb, 15, "field default: true has no place")
	wantNote(t, kb, 4, "i18n zh-CN: a title and description without content of their own")
	wantNote(t, kb, 18, `variable "current_time" renamed "current_time_value"`)
	wantNote(t, kb, 23, "field user (the user prompt) imported as the module aux.kb_helper.user")

	loose := outcome(t, res, dir+"assistant.yaml", "template Loose Braces")
	if loose.Status != StatusNotImported {
		t.Errorf("Loose Braces: %s", loose.Status)
	}
	wantNote(t, loose, 30, "{{ UserName }} looks like a placeholder but is not one in promptdesk")
	if o := outcome(t, res, dir+"assistant.yaml", "key version"); o.Status != StatusNotImported || o.Line != 2 {
		t.Errorf("version key: %+v", o)
	}

	zh := moduleText(t, res, "modules/zh-CN/aux-bilingual_helper.md")
	if !strings.Contains(zh, "title: \"双语助手\"\ndescription: \"自带中文文本\"\nvariables: [\"language\", \"query\"]\n---\n用 {{language}} 回答问题：{{query}}\n") {
		t.Errorf("aux.bilingual_helper (zh-CN):\n%s", zh)
	}
	if en := moduleText(t, res, "modules/en-US/aux-bilingual_helper.md"); !strings.Contains(en, "title: \"Bilingual helper\"\n") {
		t.Errorf("aux.bilingual_helper (en-US):\n%s", en)
	}

	researcher := outcome(t, res, dir+"agent_prompts.yaml", "template researcher")
	if len(researcher.Modules) != 1 || researcher.Modules[0] != "modules/en-US/agent-researcher.md" {
		t.Errorf("a template of an agent_… file is in the agent layer: %v", researcher.Modules)
	}
	wantNote(t, researcher, 0, "description derived from the first line of prose")
	if got := moduleText(t, res, "modules/en-US/agent-researcher.md"); !strings.Contains(got, "description: \"You research a question across the knowledge base and report what you found, with sources.\"\n") ||
		!strings.Contains(got, "Web search is {{web_search_status_value}}.") {
		t.Errorf("agent.researcher:\n%s", got)
	}
	if o := outcome(t, res, dir+"notes.txt", ""); o.Status != StatusSkipped {
		t.Errorf("notes.txt: %s", o.Status)
	}

	rendered := loadAndRender(t, res)
	if got := rendered["modules/en-US/aux-kb_helper.md"]; !strings.Contains(got, "The time is <current_time_value=v>.") || !strings.Contains(got, `{"found": true}`) {
		t.Errorf("aux.kb_helper renders:\n%s", got)
	}
}

func TestJinjaFixture(t *testing.T) {
	res := run(t, FormatJinjaIndex, "testdata/jinja-index", Options{})
	wantCounts(t, res, 2, 3, 1, 1)

	want := "---\nid: aux.greeting\nlayer: aux\nversion: 1\ntitle: \"greeting\"\ndescription: \"Welcome {{user_name}} to {{channel}}!\"\n" +
		"variables: [\"user_name\", \"channel\"]\n---\n" +
		"Welcome {{user_name}} to {{channel}}!\nRead the channel rules before posting.\n"
	if got := moduleText(t, res, "modules/en-US/aux-greeting.md"); got != want {
		t.Errorf("aux.greeting:\n%s\nwant\n%s", got, want)
	}
	greeting := outcome(t, res, "greeting.md", "")
	wantNote(t, greeting, 1, "Jinja comment {# … #} dropped")
	wantNote(t, greeting, 3, "Jinja comment {# … #} dropped")

	digest := outcome(t, res, "digest.md", "")
	if digest.Status != StatusNotImported || len(digest.Reasons) != 5 {
		t.Errorf("digest: %s %v, want 5 reasons", digest.Status, digest.Reasons)
	}
	wantNote(t, digest, 2, "Jinja {% if %} ({% if items %}) has no equivalent")
	wantNote(t, digest, 3, "Jinja {% for %} ({% for item in items %})")
	wantNote(t, digest, 3, "Jinja filter {{ item.title|upper }}")
	wantNote(t, digest, 4, "Jinja {% endfor %} has no equivalent")
	wantNote(t, digest, 5, "Jinja {% endif %} has no equivalent")

	sub := outcome(t, res, "sub_agent.md", "")
	if len(sub.Modules) != 1 || sub.Modules[0] != "modules/en-US/agent-sub_agent.md" {
		t.Errorf("Sub_Agent: %v", sub.Modules)
	}
	wantNote(t, sub, 15, `name "Sub_Agent" renamed "sub_agent"`)
	wantNote(t, sub, 0, `variable "model" renamed "model_value"`)
	wantNote(t, sub, 5, "{{ lead_note }} is not declared in index.json; declared as a variable")
	if got := moduleText(t, res, "modules/en-US/agent-sub_agent.md"); !strings.Contains(got, "variables: [\"task\", \"model_value\", \"lead_note\"]\n") ||
		!strings.Contains(got, "Model in use: {{model_value}}\n") {
		t.Errorf("agent.sub_agent:\n%s", got)
	}
	wantNote(t, outcome(t, res, "index.json", ""), 15, "templates.Sub_Agent.owner has no place")

	if o := outcome(t, res, "index.json", "templates.farewell"); o.Status != StatusNotImported || o.Line != 11 || !hasNote(o, 0, "the template file farewell.md is missing") {
		t.Errorf("farewell: %+v", o)
	}
	if o := outcome(t, res, "stray.md", ""); o.Status != StatusNotImported || !hasNote(o, 0, "not declared in index.json") {
		t.Errorf("stray.md: %+v", o)
	}
	if o := outcome(t, res, "LICENSE", ""); o.Status != StatusSkipped {
		t.Errorf("LICENSE: %s", o.Status)
	}

	rendered := loadAndRender(t, res)
	if got := rendered["modules/en-US/aux-greeting.md"]; got != "Welcome <user_name=v> to <channel=v>!\nRead the channel rules before posting." {
		t.Errorf("aux.greeting renders %q", got)
	}
}

func TestLayerAndLocaleOptions(t *testing.T) {
	res := run(t, FormatJinjaIndex, "testdata/jinja-index", Options{Layer: library.LayerTool, Locale: "fr-fr"})
	if got := modulePaths(res); strings.Join(got, " ") != "modules/fr-FR/tool-greeting.md modules/fr-FR/tool-sub_agent.md" {
		t.Errorf("modules %v, want tool layer in fr-FR", got)
	}
	if _, err := Import(FormatSkills, os.DirFS("testdata/skills"), Options{Layer: "notes"}); err == nil || !strings.Contains(err.Error(), `layer "notes"`) {
		t.Errorf("an unknown layer: err %v", err)
	}
	if _, err := Import(FormatSkills, os.DirFS("testdata/skills"), Options{Locale: "not a locale"}); err == nil || !strings.Contains(err.Error(), "BCP 47") {
		t.Errorf("a bad locale: err %v", err)
	}
}

func TestNotOfTheFormat(t *testing.T) {
	for format, want := range map[Format]string{
		FormatSkills:     "no Agent Skills folder",
		FormatMaiBot:     "no MaiBot prompts",
		FormatWeKnora:    "no WeKnora template files",
		FormatJinjaIndex: "no index.json",
	} {
		if _, err := Import(format, os.DirFS(t.TempDir()), Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s over an empty folder: err %v, want %q", format, err, want)
		}
	}
	if _, err := Import("langchain", os.DirFS(t.TempDir()), Options{}); err == nil || !strings.Contains(err.Error(), `unknown format "langchain"`) {
		t.Errorf("unknown format: err %v", err)
	}
}

// Modules that cannot load together are withdrawn with the loader's
// reason: here two MaiBot prompts include each other (an include cycle,
// a → b → a) and one includes itself.
func TestIncludeCycleIsNotImported(t *testing.T) {
	res := run(t, FormatMaiBot, writeTree(t, map[string]string{
		"en-US/ping.prompt": "Ping, then {pong}.\n",
		"en-US/pong.prompt": "Pong, then {ping}.\n",
		"en-US/solo.prompt": "Alone with {who}.\n",
		"en-US/self.prompt": "Me, then {self}.\n",
	}), Options{})
	wantCounts(t, res, 1, 3, 0, 0)
	wantNote(t, outcome(t, res, "en-US/ping.prompt", ""), 0, "the module does not load", "aux.ping → aux.pong → aux.ping")
	wantNote(t, outcome(t, res, "en-US/pong.prompt", ""), 0, "the module does not load", "aux.pong → aux.ping → aux.pong")
	wantNote(t, outcome(t, res, "en-US/self.prompt", ""), 0, "the module does not load", "{{aux.self}} includes the module in itself")
	loadAndRender(t, res)
}

// A MaiBot prompt that includes a prompt which was not imported is not
// imported either, with a reason naming the missing prompt, and so on up
// the chain: the module would otherwise render without the included text
// (or, were the field made a variable, ask the caller for it). The prompt
// MaiBot inserts is the one of the includer's locale, else the one of its
// default locale (here en-US, as promptdesk's fallback locale), so a
// zh-CN prompt whose zh-CN include was refused stays out even though the
// en-US one came in (promptdesk would serve the en-US text there).
func TestMaiBotIncludeOfPromptNotImported(t *testing.T) {
	res := run(t, FormatMaiBot, writeTree(t, map[string]string{
		"en-US/bad.prompt":     "A {{{name}}} B\n",
		"en-US/mid.prompt":     "Mid {bad} end.\n",
		"en-US/top.prompt":     "Top {who}\n{mid} and {fine}.\n",
		"en-US/fine.prompt":    "Fine {who}.\n",
		"en-US/uses.prompt":    "Uses {fine}.\n",
		"en-US/inner.prompt":   "Inner {who}.\n",
		"zh-CN/inner.prompt":   "内 {0}\n",
		"en-US/outer.prompt":   "Outer {inner}.\n",
		"zh-CN/outer.prompt":   "外 {inner}。\n",
		"zh-CN/via.prompt":     "经 {mid}。\n",
		"en-US/__.prompt":      "No module name.\n",
		"en-US/unnamed.prompt": "Uses {__}.\n",
	}), Options{MaiBotLocale: "en-US"})
	wantCounts(t, res, 4, 8, 0, 0)
	for _, c := range []struct {
		source string
		line   int
		reason string
	}{
		{"en-US/mid.prompt", 1, "includes the prompt bad (en-US/bad.prompt), which was not imported"},
		{"en-US/top.prompt", 2, "includes the prompt mid (en-US/mid.prompt), which was not imported"},
		{"zh-CN/outer.prompt", 1, "includes the prompt inner (zh-CN/inner.prompt), which was not imported"},
		{"zh-CN/via.prompt", 1, "includes the prompt mid (en-US/mid.prompt), which was not imported"},
		{"en-US/unnamed.prompt", 1, "includes the prompt __ (en-US/__.prompt), which was not imported"},
	} {
		o := outcome(t, res, c.source, "")
		if o.Status != StatusNotImported || len(o.Reasons) != 1 || o.Reasons[0] != (Note{Line: c.line, Msg: c.reason}) || len(o.Modules) != 0 {
			t.Errorf("%s: %s, reasons %v; want not imported, line %d: %s", c.source, o.Status, o.Reasons, c.line, c.reason)
		}
	}
	if got := modulePaths(res); !slices.Equal(got, []string{
		"modules/en-US/aux-fine.md", "modules/en-US/aux-inner.md", "modules/en-US/aux-outer.md", "modules/en-US/aux-uses.md",
	}) {
		t.Errorf("module files %v", got)
	}
	rendered := loadAndRender(t, res)
	if got, want := rendered["modules/en-US/aux-outer.md"], "Outer Inner <who=v>.\n."; got != want {
		t.Errorf("aux.outer renders %q, want %q", got, want)
	}
}

func TestWriteDirRefusesExistingFiles(t *testing.T) {
	res := run(t, FormatSkills, "testdata/skills", Options{})
	dir := t.TempDir()
	if err := res.WriteDir(dir, false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "modules", "en-US", "task-meeting-notes.md")
	if err := os.WriteFile(p, []byte("edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := res.WriteDir(dir, false)
	if err == nil || !strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), p) {
		t.Fatalf("err %v, want a refusal naming %s and --force", err, p)
	}
	if data, _ := os.ReadFile(p); string(data) != "edited by hand\n" {
		t.Errorf("a refused write changed the file")
	}
	if err := res.WriteDir(dir, true); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); !strings.HasPrefix(string(data), "---\nid: task.meeting-notes\n") {
		t.Errorf("force did not overwrite: %q", data)
	}
}

func TestReport(t *testing.T) {
	res := run(t, FormatJinjaIndex, "testdata/jinja-index", Options{})
	var b strings.Builder
	res.Report(&b, "SRC")
	for _, line := range []string{
		"imported     SRC/greeting.md (template greeting) → modules/en-US/aux-greeting.md\n",
		"       note: line 1: Jinja comment {# … #} dropped (it renders nothing)\n",
		// A note on a line of another file names the file.
		"       note: index.json:15: name \"Sub_Agent\" renamed \"sub_agent\" (module names are lowercase [a-z0-9._-])\n",
		"       note: index.json:15: variable \"model\" renamed \"model_value\": model is a promptdesk environment value, which a module cannot declare; the caller supplies model_value instead\n",
		"not imported SRC/digest.md (template digest):\n     reason: line 2: Jinja {% if %} ({% if items %}) has no equivalent in the module format\n",
		"not imported SRC/index.json:11 (templates.farewell): the template file farewell.md is missing\n",
		"used         SRC/index.json\n",
		"skipped      SRC/LICENSE: not a template declared in index.json\n",
		"jinja-index: imported 2, not imported 3, attached 0, used 1, skipped 1 of 7 source items from SRC; 2 module files converted; 0 findings\n",
		"Blank lines and spaces at the start and end of each text, such as its final line break, are not kept (a module's text is trimmed); those inside it are, also around an include.\n",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, b.String())
		}
	}
}

// A description is plain text, in every format: placeholders and braces in
// the one the source gives come through as written (never read as
// placeholders, fields or Jinja, never escaped, never refused); one derived
// from the text shows literal text as the model reads it (no \{{ escape).
func TestDescriptionsArePlainText(t *testing.T) {
	const given = `Fills {name}, {{name}}, {{{x}}}, {{ y|upper }}, {% if z %} and \{{w}} in JSON {"a": {"b": 1}}.`
	for _, c := range []struct {
		format Format
		files  map[string]string
		module string
		want   string
	}{
		{FormatMaiBot, map[string]string{
			"en-US/given.prompt": "Text {topic}.\n",
			"en-US/.meta.toml":   "[given]\ndisplay_name = \"Given\"\ndescription = '''" + given + "'''\n",
		}, "modules/en-US/aux-given.md", given},
		{FormatWeKnora, map[string]string{
			"t.yaml": "templates:\n  - id: given\n    name: Given\n    description: '" + given + "'\n    content: Text {{topic}}.\n",
		}, "modules/en-US/aux-given.md", given},
		{FormatSkills, map[string]string{
			"given/SKILL.md": "---\nname: given\ndescription: '" + given + "'\n---\nText.\n",
		}, "modules/en-US/task-given.md", given},
		// Derived from the text: the literal {{user}} (MaiBot {{{{user}}}},
		// written \{{user}} in the module) is shown as it renders; the
		// placeholder stays as the module names it.
		{FormatMaiBot, map[string]string{
			"en-US/derived.prompt": "Keep the marker {{{{user}}}} for {topic} as {{\"a\": 1}}.\n",
		}, "modules/en-US/aux-derived.md", `Keep the marker {{user}} for {{topic}} as {"a": 1}.`},
	} {
		t.Run(string(c.format)+"/"+path.Base(c.module), func(t *testing.T) {
			res := run(t, c.format, writeTree(t, c.files), Options{})
			wantCounts(t, res, 1, 0, res.Counts()[StatusUsed], 0)
			if m := parsed(t, res, c.module); m.Description != c.want {
				t.Errorf("description %q, want %q", m.Description, c.want)
			}
			loadAndRender(t, res)
		})
	}
}

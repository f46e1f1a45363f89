package importer

import (
	"slices"
	"strings"
	"testing"
)

// A MaiBot tree as MaiBot reads it: category subfolders, the four forms
// of metadata, an include only MaiBot's default locale (zh-CN) has, an
// include of a prompt that was refused (testdata/maibot-tree).
func TestMaiBotTree(t *testing.T) {
	res := run(t, FormatMaiBot, "testdata/maibot-tree", Options{})
	var report strings.Builder
	res.Report(&report, ".")

	// Subfolder prompts come in, their module named after the path.
	for src, mod := range map[string]string{
		"prompts/zh-CN/chat/replyer.prompt": "modules/zh-CN/aux-chat.replyer.md",
		"prompts/en-US/chat/replyer.prompt": "modules/en-US/aux-chat.replyer.md",
		"prompts/zh-CN/only_zh.prompt":      "modules/zh-CN/aux-only_zh.md",
		"prompts/en-US/wraps.prompt":        "modules/en-US/aux-wraps.md",
		"prompts/en-US/en_only.prompt":      "modules/en-US/aux-en_only.md",
	} {
		o := outcome(t, res, src, "")
		if o.Status != StatusImported || !slices.Equal(o.Modules, []string{mod}) {
			t.Errorf("%s: %s %v %v, want imported → %s\n%s", src, o.Status, o.Modules, o.Reasons, mod, report.String())
		}
	}
	// A field names a prompt by its file name, wherever it is filed.
	if got := moduleText(t, res, "modules/en-US/aux-wraps.md"); !strings.Contains(got, "title: \"Wrapper\"\ndescription: \"Wraps the replyer.\"\n---\nWrap: {{aux.chat.replyer}}\n") {
		t.Errorf("aux.wraps ([templates.wraps], include of the subfolder prompt):\n%s", got)
	}
	// Each metadata form gives the title and description.
	if got := moduleText(t, res, "modules/en-US/aux-chat.replyer.md"); !strings.Contains(got, "title: \"Replyer\"\ndescription: \"Writes the reply.\"\n") {
		t.Errorf("replyer.meta.json not read:\n%s", got)
	}
	zhReplyer := moduleText(t, res, "modules/zh-CN/aux-chat.replyer.md")
	zhOnly := moduleText(t, res, "modules/zh-CN/aux-only_zh.md")
	if !strings.Contains(zhReplyer, "description: \"\u5199\u51fa\u56de\u590d\u3002\"\n") || !strings.Contains(zhOnly, "title: \"\u53ea\u6709\u4e2d\u6587\"\n") {
		t.Errorf("replyer.meta.toml or .meta.json not read:\n%s\n%s", zhReplyer, zhOnly)
	}
	wantNote(t, outcome(t, res, "prompts/en-US/chat/replyer.prompt", ""), 4, "advanced = true has no place in the module format")
	for _, src := range []string{"prompts/en-US/chat/replyer.meta.json", "prompts/zh-CN/chat/replyer.meta.toml", "prompts/zh-CN/.meta.json", "prompts/en-US/.meta.toml"} {
		if o := outcome(t, res, src, ""); o.Status != StatusUsed {
			t.Errorf("%s: %s %v, want used", src, o.Status, o.Reasons)
		}
	}

	// MaiBot fills {only_zh} in en-US from zh-CN, its default locale;
	// promptdesk would serve en-US there, which has none: refused now,
	// not at render.
	uses := outcome(t, res, "prompts/en-US/uses_zh.prompt", "")
	if uses.Status != StatusNotImported || !hasNote(uses, 1, "field {only_zh}: there is no en-US prompt only_zh, so MaiBot inserts the one of its default locale zh-CN (prompts/zh-CN/only_zh.prompt)", "has no module to serve there", "--fallback-locale zh-CN") {
		t.Errorf("uses_zh: %s %v", uses.Status, uses.Reasons)
	}
	// Neither ja-JP nor zh-CN has en_only: MaiBot cannot fill it.
	if o := outcome(t, res, "prompts/ja-JP/uses_en.prompt", ""); o.Status != StatusNotImported || !hasNote(o, 1, "names the prompt en_only, which has no ja-JP file and none in MaiBot's default locale zh-CN") {
		t.Errorf("uses_en: %s %v", o.Status, o.Reasons)
	}
	// {stray} names a prompt that was refused (not in a locale folder):
	// refused too, rather than made a variable.
	if o := outcome(t, res, "prompts/en-US/uses_stray.prompt", ""); o.Status != StatusNotImported || !hasNote(o, 1, "includes the prompt stray (prompts/drafts/stray.prompt), which was not imported") {
		t.Errorf("uses_stray: %s %v", o.Status, o.Reasons)
	}
	loadAndRender(t, res)
}

// Served with zh-CN as promptdesk's fallback locale, the include MaiBot
// fills from zh-CN is filled the same way: imported.
func TestMaiBotDefaultLocaleMatchesFallback(t *testing.T) {
	res := run(t, FormatMaiBot, "testdata/maibot-tree", Options{FallbackLocale: "zh-CN"})
	if o := outcome(t, res, "prompts/en-US/uses_zh.prompt", ""); o.Status != StatusImported {
		t.Errorf("uses_zh: %s %v, want imported", o.Status, o.Reasons)
	}
	if got := moduleText(t, res, "modules/en-US/aux-uses_zh.md"); !strings.Contains(got, "Head {{aux.only_zh}}\n tail.") {
		t.Errorf("aux.uses_zh:\n%s", got)
	}
	if _, err := Import(FormatMaiBot, nil, Options{MaiBotLocale: "not a locale"}); err == nil || !strings.Contains(err.Error(), "--maibot-locale") {
		t.Errorf("a bad --maibot-locale: %v", err)
	}
}

// A tree whose prompts are all in category folders is imported file by
// file (it was refused whole).
func TestMaiBotOnlySubfolders(t *testing.T) {
	res := run(t, FormatMaiBot, "testdata/maibot-sub", Options{})
	if o := outcome(t, res, "prompts/zh-CN/chat/replyer.prompt", ""); o.Status != StatusImported || !slices.Equal(o.Modules, []string{"modules/zh-CN/aux-chat.replyer.md"}) {
		t.Errorf("replyer: %s %v %v", o.Status, o.Modules, o.Reasons)
	}
}

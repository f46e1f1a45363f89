package importer

import (
	"slices"
	"strings"
	"testing"
)

// A skills repository as published: skills with scripts and references,
// translated copies under locale folders, a hidden .claude folder, null
// fields and conflict markers shown in a code block (testdata/skills-tree).
func TestSkillsTree(t *testing.T) {
	res := run(t, FormatSkills, "testdata/skills-tree", Options{})
	var report strings.Builder
	res.Report(&report, ".")

	// The original keeps en-US; each translation takes the locale of its
	// folder, whatever its script says.
	for src, mod := range map[string]string{
		"skills/pdf/SKILL.md":            "modules/en-US/task-pdf.md",
		"docs/es/skills/pdf/SKILL.md":    "modules/es/task-pdf.md",
		"docs/zh-TW/skills/pdf/SKILL.md": "modules/zh-TW/task-pdf.md",
		"i18n/ko/pdf/SKILL.md":           "modules/ko-KR/task-pdf.md",
		// No locale folder: the script decides, code blocks not counted.
		"skills/hangul-notes/SKILL.md": "modules/ko-KR/task-hangul-notes.md",
		"skills/tw-notes/SKILL.md":     "modules/zh-TW/task-tw-notes.md",
		"skills/git-merge/SKILL.md":    "modules/en-US/task-git-merge.md",
		"skills/nulls/SKILL.md":        "modules/en-US/task-nulls.md",
	} {
		o := outcome(t, res, src, "")
		if o.Status != StatusImported || !slices.Equal(o.Modules, []string{mod}) {
			t.Errorf("%s: %s %v %v, want imported → %s", src, o.Status, o.Modules, o.Reasons, mod)
		}
	}
	wantNote(t, outcome(t, res, "docs/es/skills/pdf/SKILL.md", ""), 0, "locale es from the folder docs/es")
	wantNote(t, outcome(t, res, "i18n/ko/pdf/SKILL.md", ""), 0, "locale ko-KR from the folder i18n/ko")

	// An English copy under docs/en sorts before skills/ but never takes
	// the original's module.
	if o := outcome(t, res, "docs/en/skills/pdf/SKILL.md", ""); o.Status != StatusNotImported || !hasNote(o, 0, "already produced from skills/pdf/SKILL.md") {
		t.Errorf("docs/en copy: %s %v, want not imported, already produced from the original", o.Status, o.Reasons)
	}

	// Scripts and references come with their skill: attached, no failure.
	for _, src := range []string{"skills/pdf/scripts/fill.py", "skills/pdf/references/fields.md"} {
		if o := outcome(t, res, src, ""); o.Status != StatusAttached || !hasNote(o, 0, "a resource of the skill in skills/pdf") {
			t.Errorf("%s: %s %v, want attached", src, o.Status, o.Reasons)
		}
	}

	// name: null is no name (the folder's is used, a finding says so);
	// an empty description is no description.
	nulls := outcome(t, res, "skills/nulls/SKILL.md", "")
	wantNote(t, nulls, 2, `no field name: the folder name "nulls" is used`)
	wantFindings(t, nulls, "line 2: no name: the Agent Skills specification requires one")
	if o := outcome(t, res, "skills/no-desc/SKILL.md", ""); o.Status != StatusNotImported || !hasNote(o, 2, "no description: promptdesk shows it") {
		t.Errorf("no-desc: %s %v, want not imported for no description", o.Status, o.Reasons)
	}

	// Markers in a code block are an example; outside one, the reason
	// cites the SKILL.md's own line.
	if got := moduleText(t, res, "modules/en-US/task-git-merge.md"); !strings.Contains(got, "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> feature\n```") {
		t.Errorf("the example lost its markers:\n%s", got)
	}
	if o := outcome(t, res, "skills/conflicted/SKILL.md", ""); o.Status != StatusNotImported || !hasNote(o, 7, "unresolved merge", "lines 7, 9 and 11") {
		t.Errorf("conflicted: %s %v, want not imported at line 7 of SKILL.md", o.Status, o.Reasons)
	}

	// The hidden folder is listed, not read.
	if o := outcome(t, res, ".claude/", ""); o.Status != StatusSkipped || !hasNote(o, 0, "--hidden reads it") {
		t.Errorf(".claude/: %s %v", o.Status, o.Reasons)
	}
	n := res.Counts()
	if n[StatusImported] != 8 || n[StatusNotImported] != 3 || n[StatusAttached] != 2 || n[StatusSkipped] != 1 {
		t.Errorf("counts %v\n%s", n, report.String())
	}
	if len(loadAndRender(t, res)) != 8 {
		t.Errorf("the 8 modules do not all render")
	}
}

// With Hidden the .claude folder is read (a .git folder never is).
func TestSkillsHidden(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".claude/skills/helper/SKILL.md": "---\nname: helper\ndescription: Helps with the build.\n---\nAnswer about the build.\n",
		".git/HEAD":                      "ref: refs/heads/main\n",
	})
	res := run(t, FormatSkills, dir, Options{Hidden: true})
	if o := outcome(t, res, ".claude/skills/helper/SKILL.md", ""); o.Status != StatusImported || !slices.Equal(o.Modules, []string{"modules/en-US/task-helper.md"}) {
		t.Errorf("helper: %s %v %v", o.Status, o.Modules, o.Reasons)
	}
	if o := outcome(t, res, ".git/", ""); o.Status != StatusSkipped || !hasNote(o, 0, "a git repository's own folder") {
		t.Errorf(".git/: %s %v", o.Status, o.Reasons)
	}
}

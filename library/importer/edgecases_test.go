package importer

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Windows files: a source whose text files are CR-LF with a UTF-8 BOM
// imports exactly like its LF twin without one, in every format: the same
// outcomes and the same module files, no CR or BOM in any of them. The
// report says so once per file read, first among the notes of the file's
// first item: the BOM removed (line 1), the CR-LF line endings read as LF.
func TestWindowsSourceFilesImportLikeTheirTwins(t *testing.T) {
	for _, c := range []struct {
		format Format
		dir    string
	}{
		{FormatSkills, "testdata/skills"},
		{FormatMaiBot, "testdata/maibot"},
		{FormatWeKnora, "testdata/weknora"},
		{FormatJinjaIndex, "testdata/jinja-index"},
	} {
		t.Run(string(c.format), func(t *testing.T) {
			twin := t.TempDir()
			err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				rel, err := filepath.Rel(c.dir, p)
				if err != nil {
					return err
				}
				dst := filepath.Join(twin, rel)
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return err
				}
				return os.WriteFile(dst, []byte("\uFEFF"+strings.ReplaceAll(string(data), "\n", "\r\n")), 0o644)
			})
			if err != nil {
				t.Fatal(err)
			}
			want, got := run(t, c.format, c.dir, Options{}), run(t, c.format, twin, Options{})
			noted := map[string]bool{}
			for k, o := range got.Outcomes {
				if len(o.Notes) >= 2 && o.Notes[0] == windowsNotes[0] && o.Notes[1] == windowsNotes[1] {
					if noted[o.Source] {
						t.Errorf("%s: noted twice", o.Source)
					}
					noted[o.Source] = true
					got.Outcomes[k].Notes = o.Notes[2:]
				}
			}
			for _, o := range got.Outcomes {
				if (o.Status == StatusImported || o.Status == StatusUsed) && !noted[o.Source] {
					t.Errorf("%s (%s): no notes on how it was read, want %v", o.Source, o.Status, windowsNotes)
				}
			}
			var wantReport, gotReport strings.Builder
			want.Report(&wantReport, "SRC")
			got.Report(&gotReport, "SRC")
			if gotReport.String() != wantReport.String() {
				t.Errorf("the CR-LF + BOM twin reports, without the notes on how each file was read,\n%s\nwant\n%s", gotReport.String(), wantReport.String())
			}
			if len(got.Modules) != len(want.Modules) || len(got.Modules) == 0 {
				t.Fatalf("%d modules, want %d", len(got.Modules), len(want.Modules))
			}
			for k, m := range got.Modules {
				if m.Path != want.Modules[k].Path || m.Text != want.Modules[k].Text {
					t.Errorf("%s:\n%q\nwant %s:\n%q", m.Path, m.Text, want.Modules[k].Path, want.Modules[k].Text)
				}
				if strings.ContainsAny(m.Text, "\r\uFEFF") {
					t.Errorf("%s holds a CR or a BOM", m.Path)
				}
			}
		})
	}
}

// windowsNotes are the notes on a file read with a BOM and CR-LF line
// endings throughout.
var windowsNotes = []Note{
	{Line: 1, Msg: "the file begins with a UTF-8 byte order mark (BOM): removed"},
	{Msg: "the file's line endings are CR-LF: read as LF"},
}

// A file whose line endings are only partly CR-LF is read as LF, and the
// note counts them, on the line of the first; a file with none has no
// note. The text is the same as the LF file's.
func TestMixedLineEndingsAreNoted(t *testing.T) {
	const lf = "---\nname: mixed\ndescription: Mixed line endings.\n---\nOne.\nTwo.\n"
	res := run(t, FormatSkills, writeTree(t, map[string]string{
		"mixed/SKILL.md": "---\nname: mixed\ndescription: Mixed line endings.\r\n---\nOne.\r\nTwo.\n",
		"plain/SKILL.md": strings.ReplaceAll(lf, "mixed", "plain"),
	}), Options{})
	wantCounts(t, res, 2, 0, 0, 0)
	if got, want := outcome(t, res, "mixed/SKILL.md", "").Notes, (Note{Line: 3, Msg: "2 of the file's 6 line endings are CR-LF, the first on this line: read as LF"}); len(got) == 0 || got[0] != want {
		t.Errorf("mixed: notes %v, want first %v", got, want)
	}
	for _, n := range outcome(t, res, "plain/SKILL.md", "").Notes {
		if strings.Contains(n.Msg, "CR-LF") || strings.Contains(n.Msg, "BOM") {
			t.Errorf("plain: note %v", n)
		}
	}
	if got := moduleText(t, res, "modules/en-US/task-mixed.md"); !strings.HasSuffix(got, "---\nOne.\nTwo.\n") || strings.Contains(got, "\r") {
		t.Errorf("mixed module:\n%q", got)
	}
}

// Braces that are not placeholders: JSON, `{{ }}` and `{{#each items}}`
// come through every format that can hold them byte for byte; with a value
// for name only the name changes, and the imported folder loads and lints
// without errors.
func TestBracesThatAreNotPlaceholders(t *testing.T) {
	const text = `Reply as JSON like {"answer": "...", "refs": [{"id": 1}]}. Handlebars users write {{ }} or {{#each items}}. Greet `
	want := text + value("name") + "."
	for _, c := range []struct {
		format Format
		files  map[string]string
		module string
		vars   int
		want   string
	}{
		{FormatWeKnora, map[string]string{"t.yaml": "templates:\n  - id: reply\n    name: Reply\n    description: Replies as JSON.\n    content: |\n      " + text + "{{name}}.\n"},
			"modules/en-US/aux-reply.md", 1, want},
		{FormatMaiBot, map[string]string{"en-US/reply.prompt": `Reply as JSON like {{"answer": "...", "refs": [{{"id": 1}}]}}. Handlebars users write {{{{ }}}} or {{{{#each items}}}}. Greet {name}.` + "\n"},
			"modules/en-US/aux-reply.md", 1, want},
		// A skill has no variables: its literal {{name}} is written
		// \{{name}} and renders as written.
		{FormatSkills, map[string]string{"reply/SKILL.md": "---\nname: reply\ndescription: Replies as JSON.\n---\n" + text + "{{name}}.\n"},
			"modules/en-US/task-reply.md", 0, text + "{{name}}."},
	} {
		t.Run(string(c.format), func(t *testing.T) {
			res := run(t, c.format, writeTree(t, c.files), Options{})
			wantCounts(t, res, 1, 0, 0, 0)
			if m := parsed(t, res, c.module); len(m.Variables) != c.vars {
				t.Errorf("variables %v, want %d", m.Variables, c.vars)
			}
			if got := loadAndRender(t, res)[c.module]; got != c.want {
				t.Errorf("renders\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// Frontmatter fences in a SKILL.md follow the module format's rule: only
// a line that is exactly --- (trailing blanks allowed) opens or closes the
// block. A --- thematic break in the body stays in the body; `----` and
// `---x` are text; an opening --- never closed is "frontmatter not closed"
// on line 1; an empty block leaves the name and description missing.
func TestSkillFrontmatterFences(t *testing.T) {
	res := run(t, FormatSkills, writeTree(t, map[string]string{
		"ruled/SKILL.md":    "---  \nname: ruled\ndescription: Keeps its rule.\n---\t\nAbove.\n\n---\n\nBelow.\n",
		"dashes/SKILL.md":   "---\nname: dashes\ndescription: Four dashes are text.\n----\n---x\n---\nBody.\n",
		"unclosed/SKILL.md": "---\nname: unclosed\ndescription: Never closed.\nBody.\n",
		"empty/SKILL.md":    "---\n---\nBody\n",
	}), Options{})
	wantCounts(t, res, 1, 3, 0, 0)
	if got := moduleText(t, res, "modules/en-US/task-ruled.md"); !strings.HasSuffix(got, "description: \"Keeps its rule.\"\n---\nAbove.\n\n---\n\nBelow.\n") {
		t.Errorf("ruled:\n%s", got)
	}
	// `----` and `---x` are read as frontmatter lines, which are no YAML
	// key: value, so the block does not parse.
	if o := outcome(t, res, "dashes/SKILL.md", ""); o.Status != StatusNotImported || hasNote(o, 0, "not closed") {
		t.Errorf("dashes: %s %v", o.Status, o.Reasons)
	}
	if o := outcome(t, res, "unclosed/SKILL.md", ""); o.Status != StatusNotImported || len(o.Reasons) != 1 || o.Reasons[0].String() != "line 1: frontmatter not closed: no line --- after the opening one" {
		t.Errorf("unclosed: %s %v", o.Status, o.Reasons)
	}
	empty := outcome(t, res, "empty/SKILL.md", "")
	wantFindings(t, empty, "line 2: no name: the Agent Skills specification requires one", "line 2: no description: the Agent Skills specification requires one")
	if empty.Status != StatusNotImported || !hasNote(empty, 0, "no description") {
		t.Errorf("empty: %s %v", empty.Status, empty.Reasons)
	}
}

// YAML typing: scalars a YAML 1.1 reader turns into booleans or numbers
// are the text written, in a SKILL.md and in a WeKnora template alike.
func TestSourceScalarsAreTheirText(t *testing.T) {
	res := run(t, FormatSkills, writeTree(t, map[string]string{
		"on/SKILL.md": "---\nname: on\ndescription: no, off, yes\n---\nBody.\n",
		"v/SKILL.md":  "---\nname: v\ndescription: 1.10\n---\nBody.\n",
	}), Options{})
	wantCounts(t, res, 2, 0, 0, 0)
	if m := parsed(t, res, "modules/en-US/task-on.md"); m.Title != "on" || m.Description != "no, off, yes" {
		t.Errorf("title %q, description %q; want \"on\", \"no, off, yes\"", m.Title, m.Description)
	}
	if m := parsed(t, res, "modules/en-US/task-v.md"); m.Description != "1.10" {
		t.Errorf("description %q, want \"1.10\"", m.Description)
	}
	wk := run(t, FormatWeKnora, writeTree(t, map[string]string{
		"t.yaml": "templates:\n  - id: yes\n    name: off\n    description: no\n    content: Text.\n",
	}), Options{})
	wantCounts(t, wk, 1, 0, 0, 0)
	if m := parsed(t, wk, "modules/en-US/aux-yes.md"); m.Title != "off" || m.Description != "no" {
		t.Errorf("weknora: id %s, title %q, description %q; want aux.yes, \"off\", \"no\"", m.ID, m.Title, m.Description)
	}
}

// Large and broken input: a text over the module size limit, invalid
// UTF-8 and a control character are each one clear reason, with the line
// where there is one; the other items still come in.
func TestOversizedAndBrokenSources(t *testing.T) {
	big := strings.Repeat("A line of a very long prompt.\n", 3<<20/30)
	res := run(t, FormatMaiBot, writeTree(t, map[string]string{
		"en-US/big.prompt":     big,
		"en-US/latin1.prompt":  "Fine.\nCaf\xe9 {x}.\n",
		"en-US/control.prompt": "Fine.\nStill fine.\nBell \x07 here.\n",
		"en-US/ok.prompt":      "Fine {x}.\n",
	}), Options{})
	wantCounts(t, res, 1, 3, 0, 0)
	o := outcome(t, res, "en-US/big.prompt", "")
	if o.Status != StatusNotImported || len(o.Reasons) != 1 || !strings.HasSuffix(o.Reasons[0].Msg, "bytes; the limit is 262144 bytes (256 KiB)") {
		t.Errorf("big: %s %v", o.Status, o.Reasons)
	}
	for src, want := range map[string]string{
		"en-US/latin1.prompt":  "line 2: the text is not valid UTF-8",
		"en-US/control.prompt": "line 3: the text contains the control character U+0007; module text may use only tabs and line breaks",
	} {
		if o := outcome(t, res, src, ""); o.Status != StatusNotImported || len(o.Reasons) != 1 || o.Reasons[0].String() != want {
			t.Errorf("%s: %s %v, want %q", src, o.Status, o.Reasons, want)
		}
	}
}

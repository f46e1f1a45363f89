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
// outcomes and the same module files, no CR or BOM in any of them.
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
			var wantReport, gotReport strings.Builder
			want.Report(&wantReport, "SRC")
			got.Report(&gotReport, "SRC")
			if gotReport.String() != wantReport.String() {
				t.Errorf("the CR-LF + BOM twin reports\n%s\nwant\n%s", gotReport.String(), wantReport.String())
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

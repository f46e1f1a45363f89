package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
)

// sources are the four formats' source folders: the real corpora beside
// the repository when present, and the project's own fixtures always.
func importSources(t *testing.T) map[string][2]string {
	t.Helper()
	srcs := map[string][2]string{
		"fixture skills":      {"skills", fixture(t, "skills")},
		"fixture maibot":      {"maibot", fixture(t, "maibot")},
		"fixture weknora":     {"weknora", fixture(t, "weknora")},
		"fixture jinja-index": {"jinja-index", fixture(t, "jinja-index")},
	}
	corpora, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "cases", "corpora"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(corpora); err != nil {
		t.Logf("the real corpora at %s are absent (%v): only the project's fixtures run", corpora, err)
		return srcs
	}
	for format, dir := range map[string]string{"skills": "anthropic-skills", "maibot": "maibot-prompts",
		"weknora": "weknora-prompt-templates", "jinja-index": "oh-mai-agent-templates"} {
		srcs["corpus "+format] = [2]string{format, filepath.Join(corpora, dir)}
	}
	return srcs
}

// An imported folder with --with-builtin is a whole library: it lints
// without format errors, loads, and assembles the example requests as a
// --library folder, every imported module in its locale being served
// from the folder (source file).
func TestImportedFolderLintsAndAssembles(t *testing.T) {
	request := filepath.Join("..", "..", "assembler", "examples", "minutes-zh.json")
	for name, src := range importSources(t) {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			stdout, err := cliRun(t, "import", "--from", src[0], src[1], "--out", out, "--with-builtin")
			var ee *exitError
			if err != nil && !strings.Contains(err.Error(), "not imported") && !errors.As(err, &ee) {
				t.Fatalf("import: %v\n%s", err, stdout)
			}
			if !strings.Contains(stdout, "builtin library files to") {
				t.Errorf("import --with-builtin wrote no builtin files:\n%s", stdout)
			}

			lintOut, err := cliRun(t, "lint", "--format", "json", out)
			var rep struct {
				Modules int `json:"modules"`
				Counts  struct {
					Errors, Warnings int
				} `json:"counts"`
			}
			if jerr := json.Unmarshal([]byte(lintOut), &rep); jerr != nil {
				t.Fatalf("lint JSON: %v\n%s", jerr, lintOut)
			}
			if rep.Counts.Errors != 0 || errors.As(err, &ee) && ee.code == lintExitErrors {
				t.Errorf("lint of the imported folder: %d format errors (%v)\n%s", rep.Counts.Errors, err, lintOut)
			}

			asmOut, err := cliRun(t, "--library", out, "assemble", "--builtin-only", "--request", request)
			if err != nil {
				t.Fatalf("assemble --library: %v", err)
			}
			var res assembler.Result
			if err := json.Unmarshal([]byte(asmOut), &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Segments) == 0 || res.Text == "" || res.Report[0].Kind != "library" || !strings.Contains(res.Report[0].Line, out) {
				t.Errorf("assemble: %d segments, report starts %+v", len(res.Segments), res.Report[0])
			}
			for _, e := range res.Report {
				if e.Kind == assembler.KindPrompt && e.Source != assembler.SourceFile {
					t.Errorf("%s served from %s, want file (the folder)", e.Module, e.Source)
				}
			}
			t.Logf("%s: %d modules linted (%d warnings), assembled %d bytes in %d segments", name, rep.Modules, rep.Counts.Warnings, len(res.Text), len(res.Segments))
		})
	}
}

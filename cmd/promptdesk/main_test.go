package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

type cliResult struct {
	Segments []struct {
		Layer   string   `json:"layer"`
		Text    string   `json:"text"`
		Modules []string `json:"modules"`
	} `json:"segments"`
	Text   string `json:"text"`
	Report []struct {
		Kind     string `json:"kind"`
		Module   string `json:"module"`
		Version  int    `json:"version"`
		Source   string `json:"source"`
		Locale   string `json:"locale"`
		Fallback bool   `json:"fallback"`
		Reason   string `json:"reason"`
		Tokens   int    `json:"tokens"`
		Line     string `json:"line"`
	} `json:"report"`
}

func assembleCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), append([]string{"assemble"}, args...), &out, &errOut); err != nil {
		t.Fatalf("assemble %v: %v\n%s", args, err, errOut.String())
	}
	var res cliResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	return res
}

func (r cliResult) lines() string {
	var b strings.Builder
	for _, e := range r.Report {
		b.WriteString(e.Line + "\n")
	}
	return b.String()
}

func TestAssembleBuiltinOnlyExamples(t *testing.T) {
	cases := map[string][]string{
		"minutes-zh.json":         {"prompt(task.doc-minutes v1 · intent:纪要)", "prompt(env.knowledge v1 · knowledge-bases:2)"},
		"command-minutes-zh.json": {"prompt(task.doc-minutes v1 · command:/minutes)"},
		"translate-en.json":       {"prompt(env.pure-agent v1 · no-knowledge-base)", "prompt(task.translate v1 · intent:translate)"},
		"fallback-ja.json":        {"prompt(base.identity v1 · default · fallback:en-US)"},
	}
	for file, want := range cases {
		t.Run(file, func(t *testing.T) {
			res := assembleCLI(t, "--request", filepath.Join("..", "..", "assembler", "examples", file), "--builtin-only")
			for _, line := range want {
				if !strings.Contains(res.lines(), line+"\n") {
					t.Errorf("report lacks %s:\n%s", line, res.lines())
				}
			}
			if res.Text == "" || len(res.Segments) == 0 || res.Segments[0].Layer != "base" {
				t.Errorf("segments %+v", res.Segments)
			}
		})
	}
}

// The shared real scenarios, when the shared cases folder is beside the
// project (it is not in a user's clone).
func TestAssembleSharedScenarios(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "cases", "scenarios")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("%s not found: the real-scenario checks need the shared cases folder beside the project", dir)
	}
	res := assembleCLI(t, "--request", filepath.Join(dir, "rag-minutes-zh.json"), "--builtin-only")
	if !strings.Contains(res.lines(), "prompt(task.doc-minutes v1 · intent:纪要)\n") {
		t.Errorf("rag-minutes-zh:\n%s", res.lines())
	}
	res = assembleCLI(t, "--request", filepath.Join(dir, "command-no-attachment-zh.json"), "--builtin-only")
	if !strings.Contains(res.lines(), "prompt(task.doc-minutes v1 · command:/minutes)\n") {
		t.Errorf("command-no-attachment-zh:\n%s", res.lines())
	}
	res = assembleCLI(t, "--request", filepath.Join(dir, "pure-translate-en.json"), "--builtin-only")
	if !strings.Contains(res.lines(), "prompt(env.pure-agent v1 · no-knowledge-base)\n") || strings.Contains(res.lines(), "env.knowledge") {
		t.Errorf("pure-translate-en:\n%s", res.lines())
	}
	res = assembleCLI(t, "--request", filepath.Join(dir, "fallback-locale-ja.json"), "--builtin-only")
	for _, e := range res.Report {
		if e.Kind == "prompt" && (!e.Fallback || e.Locale != "en-US") {
			t.Errorf("fallback-locale-ja: %s served from %s, fallback %v", e.Module, e.Locale, e.Fallback)
		}
	}
}

func TestAssembleBadRequestNamesField(t *testing.T) {
	file := filepath.Join(t.TempDir(), "req.json")
	if err := os.WriteFile(file, []byte(`{"locale": "en-US", "knowledgeBases": [{"id": "k", "name": "K", "type": "wiki"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"assemble", "--request", file, "--builtin-only"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "knowledgeBases[0].type") || !strings.Contains(err.Error(), file) {
		t.Fatalf("got %v, want an error naming the file and knowledgeBases[0].type", err)
	}
}

// --skill-budget is the server's skill budget for every command that
// assembles: with 1 token no builtin skill fits, and each is reported cut.
func TestAssembleSkillBudget(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hello.json")
	if err := os.WriteFile(file, []byte(`{"locale":"en-US","message":"hello"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := assembleCLI(t, "--request", file, "--builtin-only", "--skill-budget", "1").lines()
	for _, id := range []string{"task.code-review", "task.data-analysis", "task.doc-minutes", "task.summarize", "task.translate"} {
		if !strings.Contains(lines, "skill-cut("+id+" · budget)\n") {
			t.Errorf("report lacks skill-cut(%s · budget):\n%s", id, lines)
		}
	}
	if strings.Contains(lines, "skill-listed(") {
		t.Errorf("skills listed over a budget of 1 token:\n%s", lines)
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"assemble", "--request", file, "--builtin-only", "--skill-budget=-1"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "--skill-budget -1") {
		t.Errorf("a negative budget: error %v, want one naming --skill-budget -1", err)
	}
}

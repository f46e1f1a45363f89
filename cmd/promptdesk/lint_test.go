package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/lint"
)

// lintCLI runs `promptdesk lint args…` and returns stdout and the exit
// status main would use.
func lintCLI(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"lint"}, args...), &out, &errOut)
	return out.String(), exitStatus(err), err
}

// lintLibrary writes a library folder with the given module files
// (path under modules/ → text).
func lintLibrary(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		full := filepath.Join(dir, "modules", p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A task module that follows the checklist except for naming common
// mistakes (rule 5): one warning on its body's first line, 8.
const lintWarnModule = `---
id: task.notes
layer: task
version: 1
title: Notes
description: Short notes from a text
---
You are the note taker of this workspace: you turn the text the user gives you into short notes and answer for every note being in the text.

Do not add facts the text does not give. If the text does not cover a point, write "not in the text".

Level of detail: at most five bullets. Output only the notes.
`

func TestLintBuiltinIsClean(t *testing.T) {
	out, code, err := lintCLI(t, "--builtin")
	if code != 0 || err != nil {
		t.Fatalf("exit %d (%v):\n%s", code, err, out)
	}
	if out != "lint: 70 modules checked: 0 errors, 0 warnings, 0 notices\n" {
		t.Errorf("output:\n%s", out)
	}
}

func TestLintExitStatus(t *testing.T) {
	warn := lintLibrary(t, map[string]string{"en-US/task-notes.md": lintWarnModule})
	out, code, _ := lintCLI(t, warn)
	wantLine := filepath.ToSlash(filepath.Join(warn, "modules/en-US/task-notes.md")) + ":8: warning [rule 5] body: the body names no common mistakes to avoid"
	if code != 2 || !strings.HasPrefix(out, wantLine) || !strings.HasSuffix(out, "lint: 1 module checked: 0 errors, 1 warning, 0 notices\n") {
		t.Errorf("warnings only: exit %d, output:\n%s\nwant exit 2 and a line starting %q", code, out, wantLine)
	}

	broken := lintLibrary(t, map[string]string{
		"en-US/task-notes.md":  lintWarnModule,
		"en-US/task-other.md":  strings.Replace(lintWarnModule, "id: task.notes", "id: task.wrong", 1),
		"en-US/base-broken.md": "---\nid: base.broken\n---\nno fields\n",
	})
	out, code, err := lintCLI(t, broken)
	if code != 1 || err == nil || !strings.Contains(err.Error(), "5 format errors, 2 checklist warnings") {
		t.Errorf("format errors: exit %d, %v", code, err)
	}
	for _, want := range []string{
		// Every error of a file at once, not the first only.
		"modules/en-US/base-broken.md:1: error [format] layer: missing required field layer",
		"modules/en-US/base-broken.md:1: error [format] version: missing required field version",
		"modules/en-US/base-broken.md:1: error [format] title: missing required field title",
		"modules/en-US/base-broken.md:1: error [format] description: missing required field description",
		`modules/en-US/task-other.md:2: error [format] id: id "task.wrong" does not match the file name task-other.md`,
		// One broken file hides nothing: both task files get their warning.
		"modules/en-US/task-notes.md:8: warning [rule 5]",
		"modules/en-US/task-other.md:8: warning [rule 5]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	for _, args := range [][]string{{}, {"--builtin", warn}} {
		if _, code, err := lintCLI(t, args...); code != 1 || err == nil || !strings.Contains(err.Error(), "--builtin") {
			t.Errorf("lint %v: exit %d, %v; want 1 saying to give DIR or --builtin", args, code, err)
		}
	}
	if _, code, err := lintCLI(t, filepath.Join(warn, "nowhere")); code != 1 || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing folder: exit %d, %v", code, err)
	}
	if _, _, err := lintCLI(t, "--format", "xml", "--builtin"); err == nil || !strings.Contains(err.Error(), "--format") {
		t.Errorf("--format xml: %v", err)
	}
}

func TestLintJSON(t *testing.T) {
	dir := lintLibrary(t, map[string]string{
		"en-US/task-notes.md": lintWarnModule,
		"ja-JP/task-notes.md": lintWarnModule,
	})
	out, code, _ := lintCLI(t, "--format", "json", dir)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	var r lint.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.Modules != 2 || r.Counts != (lint.Counts{Warnings: 1, Notices: 1}) || len(r.Findings) != 2 {
		t.Fatalf("report %+v", r)
	}
	w, n := r.Findings[0], r.Findings[1]
	if w.Rule != "5" || w.Line != 8 || w.Field != "body" || w.Severity != library.SeverityWarning || !strings.HasSuffix(w.File, "modules/en-US/task-notes.md") {
		t.Errorf("warning %+v", w)
	}
	if n.Rule != library.RuleCues || n.Severity != library.SeverityNotice || !strings.HasSuffix(n.File, "modules/ja-JP") {
		t.Errorf("notice %+v", n)
	}
	for _, key := range []string{`"findings"`, `"counts"`, `"errors": 0`, `"warnings": 1`, `"severity": "warning"`, `"rule": "5"`} {
		if !strings.Contains(out, key) {
			t.Errorf("JSON lacks %s", key)
		}
	}

	// Every finding carries field, "" when it concerns no field.
	var raw struct {
		Findings []map[string]any `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"body", ""} {
		if f, ok := raw.Findings[i]["field"]; !ok || f != want {
			t.Errorf("finding %d: field %v (present: %t), want %q", i, f, ok, want)
		}
	}

	out, code, _ = lintCLI(t, "--format", "json", "--builtin")
	if code != 0 || !strings.Contains(out, `"findings": []`) {
		t.Errorf("clean JSON: exit %d\n%s", code, out)
	}
}

func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errHelp, 0},
		{errors.New("boom"), 1},
		{&exitError{2, errors.New("warnings")}, 2},
		{&exitError{1, errors.New("errors")}, 1},
	} {
		if got := exitStatus(c.err); got != c.want {
			t.Errorf("exitStatus(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

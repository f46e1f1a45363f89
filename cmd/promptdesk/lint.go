package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/lint"
)

// Exit statuses of lint (documented in its --help and README.md): 0 when
// clean (notices allowed), 1 for format errors (or when lint could not
// run at all), 2 for checklist warnings only.
const (
	lintExitErrors   = 1
	lintExitWarnings = 2
)

// lint checks a library folder, or the embedded library with --builtin,
// against the module format and the checklist (docs/lint.md), and prints
// the findings as text (`path:line: severity [rule N] field: message`,
// sorted, then a summary line) or as JSON (lint.Report: findings, modules,
// counts). It needs no database.
func (a *app) lint() error {
	opts := a.cli.Lint
	var (
		r   lint.Report
		err error
	)
	switch {
	case opts.Builtin && opts.Dir != "":
		return errors.New("lint: give a library folder DIR or --builtin, not both")
	case opts.Builtin:
		r, err = lint.Builtin()
	case opts.Dir != "":
		r, err = lint.LintDir(opts.Dir)
	default:
		return errors.New("lint: give a library folder DIR (with modules/<locale>/*.md) or --builtin")
	}
	if err != nil {
		return fmt.Errorf("lint: %w", err)
	}
	if opts.Format == "json" {
		if r.Findings == nil {
			r.Findings = []library.Finding{}
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		for _, f := range r.Findings {
			fmt.Fprintln(a.stdout, f)
		}
		fmt.Fprintf(a.stdout, "lint: %s checked: %s, %s, %s\n", count("count.modules", r.Modules),
			count("count.errors", r.Counts.Errors), count("count.warnings", r.Counts.Warnings), count("count.notices", r.Counts.Notices))
	}
	switch {
	case r.Counts.Errors > 0:
		return &exitError{lintExitErrors, fmt.Errorf("lint: %s, %s", count("count.format_errors", r.Counts.Errors), count("count.checklist_warnings", r.Counts.Warnings))}
	case r.Counts.Warnings > 0:
		return &exitError{lintExitWarnings, fmt.Errorf("lint: %s", count("count.checklist_warnings", r.Counts.Warnings))}
	}
	return nil
}

// count is n with its noun in the CLI's language (library.Count).
func count(base string, n int) string { return library.Count(library.UILocale, base, n) }

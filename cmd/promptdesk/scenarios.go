package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/state"
)

// Exit statuses of scenarios check.
const (
	checkChanged     = 1 // an output changed, or a scenario does not assemble
	checkNotCompared = 2 // nothing changed, but some scenarios have no accepted output
)

// Layout of the scenario lines: unchanged lines shown around each change
// of a diff, and the width of the id column.
const (
	checkDiffContext  = 3
	scenarioNameWidth = 16
)

// scenarioService opens the store and returns the scenario service over
// what is served: the library (embedded or --library, strictly) with
// the published overrides and profiles from the database.
func (a *app) scenarioService(ctx context.Context) (*state.Scenarios, func(), error) {
	snap, asm, err := a.parts(true)
	if err != nil {
		return nil, nil, err
	}
	log := a.logger()
	st, closeStore, err := a.openStore(ctx, log)
	if err != nil {
		return nil, nil, err
	}
	served, err := state.Load(ctx, st, snap, log)
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	return &state.Scenarios{Store: st, Served: served, Assembler: asm}, closeStore, nil
}

// scenariosCheck runs every scenario and prints each one's status, the
// diffs of the changed ones and the errors of the failed ones, then a
// summary. See the exit statuses on the command's help.
func (a *app) scenariosCheck(ctx context.Context) error {
	svc, closeStore, err := a.scenarioService(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	runs, err := svc.RunAll(ctx)
	if err != nil {
		return err
	}
	counts := map[state.RunStatus]int{}
	for _, r := range runs {
		counts[r.Status]++
		printRun(a.stdout, r)
	}
	v := svc.Served.Current()
	fmt.Fprintf(a.stdout, "\n%d scenarios on library %s (generation %d) with %d published overrides: %d changed, %d failed, %d never accepted, %d unchanged\n",
		len(runs), v.Library.Source, v.Library.Generation, v.State.Overrides.Len(),
		counts[state.RunChanged], counts[state.RunFailed], counts[state.RunNeverAccepted], counts[state.RunUnchanged])
	switch {
	case counts[state.RunChanged]+counts[state.RunFailed] > 0:
		fmt.Fprintln(a.stdout, "Review the differences; if they are intended, accept them: promptdesk scenarios accept ID… (or on the console's Scenarios page).")
		return &exitError{code: checkChanged, err: fmt.Errorf("scenarios check: %d changed, %d failed", counts[state.RunChanged], counts[state.RunFailed])}
	case len(runs) == 0:
		return &exitError{code: checkNotCompared, err: errors.New("scenarios check: no scenarios saved, nothing was compared (the console seeds the examples on its first start; save previews as scenarios)")}
	case counts[state.RunNeverAccepted] > 0:
		fmt.Fprintln(a.stdout, "Scenarios without an accepted output were not compared: accept their outputs (promptdesk scenarios accept ID…) to guard them.")
		return &exitError{code: checkNotCompared, err: fmt.Errorf("scenarios check: %d never accepted, not compared", counts[state.RunNeverAccepted])}
	}
	return nil
}

// printRun writes one run: "status  id  name (tokens)", then for a
// changed one the diffs of its text and report lines, for a failed one
// its error.
func printRun(w io.Writer, r state.ScenarioRun) {
	sc := r.Scenario
	switch r.Status {
	case state.RunFailed:
		fmt.Fprintf(w, "%-15s %-*s %s\n", r.Status, scenarioNameWidth, sc.ID, sc.Name)
		fmt.Fprintf(w, "    does not assemble: %v\n", r.Err)
	case state.RunChanged:
		fmt.Fprintf(w, "%-15s %-*s %s (%d → %d tokens)\n", r.Status, scenarioNameWidth, sc.ID, sc.Name, sc.Accepted.Tokens, r.Output.Tokens)
		if ins, del := linediff.Count(r.TextDiff); ins+del > 0 {
			fmt.Fprintf(w, "    full text (accepted → now, +%d −%d lines):\n", ins, del)
			printDiff(w, r.TextDiff)
		}
		if ins, del := linediff.Count(r.ReportDiff); ins+del > 0 {
			fmt.Fprintf(w, "    composition report (accepted → now, +%d −%d lines):\n", ins, del)
			printDiff(w, r.ReportDiff)
		}
	default:
		fmt.Fprintf(w, "%-15s %-*s %s (%d tokens)\n", r.Status, scenarioNameWidth, sc.ID, sc.Name, r.Output.Tokens)
	}
}

// printDiff writes a line diff folded around its changes, one line each:
// "- " deleted, "+ " inserted, "  " unchanged, and "  … N unchanged
// lines" for a fold.
func printDiff(w io.Writer, d []linediff.Line) {
	for _, l := range linediff.Fold(d, checkDiffContext) {
		var line string
		switch l.Op {
		case linediff.Insert:
			line = "    + " + l.Text
		case linediff.Delete:
			line = "    - " + l.Text
		case linediff.Folded:
			line = fmt.Sprintf("    … %d unchanged lines", l.Count)
		default:
			line = "      " + l.Text
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// scenariosAccept accepts the output of the named scenarios, or of all,
// as served now; unchanged ones stay as they are.
func (a *app) scenariosAccept(ctx context.Context) error {
	svc, closeStore, err := a.scenarioService(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	var runs []state.ScenarioRun
	if ids := a.cli.Scenarios.Accept.IDs; len(ids) > 0 {
		for _, id := range ids {
			r, err := svc.Run(ctx, id)
			if errors.Is(err, library.ErrNotFound) {
				return fmt.Errorf("scenarios accept: no scenario %q (promptdesk scenarios check lists them)", id)
			}
			if err != nil {
				return err
			}
			runs = append(runs, r)
		}
	} else if runs, err = svc.RunAll(ctx); err != nil {
		return err
	}
	ctx = domain.WithActor(ctx, cliActor)
	var failed []string
	accepted := 0
	for _, r := range runs {
		sc := r.Scenario
		switch r.Status {
		case state.RunUnchanged:
			fmt.Fprintf(a.stdout, "unchanged       %-*s %s\n", scenarioNameWidth, sc.ID, sc.Name)
			continue
		case state.RunFailed:
			fmt.Fprintf(a.stdout, "not accepted    %-*s %s: does not assemble: %v\n", scenarioNameWidth, sc.ID, sc.Name, r.Err)
			failed = append(failed, sc.ID)
			continue
		}
		// The fingerprint holds the accept to the output just compared.
		if _, err := svc.Accept(ctx, sc.ID, r.Fingerprint); err != nil {
			fmt.Fprintf(a.stdout, "not accepted    %-*s %s: %v\n", scenarioNameWidth, sc.ID, sc.Name, err)
			failed = append(failed, sc.ID)
			continue
		}
		accepted++
		fmt.Fprintf(a.stdout, "accepted        %-*s %s (%d tokens)\n", scenarioNameWidth, sc.ID, sc.Name, r.Output.Tokens)
	}
	fmt.Fprintf(a.stdout, "%d accepted, %d not\n", accepted, len(failed))
	if len(failed) > 0 {
		return fmt.Errorf("scenarios accept: not accepted: %s", strings.Join(failed, ", "))
	}
	return nil
}

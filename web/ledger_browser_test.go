package web

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/state/ledger"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/web/browsertest"
)

// ledgerV1 and ledgerV2 are two versions of a small catalogue: v2
// changes tool-bash, tool-read, tool-notebook and style-terse.
var (
	ledgerV1 = []ledger.Fragment{
		{Name: "tool-bash", Kind: "tool-description", Version: "2.0.1", Text: "Run a shell command.\nAlways quote paths that contain spaces."},
		{Name: "tool-read", Kind: "tool-description", Version: "2.0.1", Text: "Read a file."},
		{Name: "tool-notebook", Kind: "tool-description", Version: "2.0.1", Text: "Edit a Jupyter notebook."},
		{Name: "mode-plan", Kind: "system-prompt", Version: "2.0.1", Text: "Plan before acting."},
		{Name: "style-terse", Kind: "output-style", Version: "2.0.1", Text: "Be terse."},
	}
	ledgerV2 = []ledger.Fragment{
		{Name: "tool-bash", Kind: "tool-description", Version: "2.0.2", Text: "Run a shell command.\nAlways quote paths that contain blanks."},
		{Name: "tool-read", Kind: "tool-description", Version: "2.0.2", Text: "Read a file or an image."},
		{Name: "tool-notebook", Kind: "tool-description", Version: "2.0.2", Text: "Edit a notebook cell."},
		{Name: "mode-plan", Kind: "system-prompt", Version: "2.0.2", Text: "Plan before acting."},
		{Name: "style-terse", Kind: "output-style", Version: "2.0.2", Text: "Be very terse."},
	}
)

// TestE2ELedgerRoundTrip drives the porting ledger in headless Chromium:
// a decision refused for a module that does not exist keeps what was
// typed, then is recorded; the filter narrows the table; the Markdown
// export holds the decisions; after a sync of a changed catalogue exactly
// the changed ported or merged entries are marked upstream-drifted (the
// changed refusal for a second look), and the entry shows the upstream
// diff with its changed words marked. A viewer reads without the form.
func TestE2ELedgerRoundTrip(t *testing.T) {
	t.Parallel()
	var svc *state.Ledger
	srv, st := newServer(t, func(ctx context.Context, st *store.Store, lib *library.Snapshot) {
		svc = &state.Ledger{Store: st, Exists: func(id string) bool { return lib.Has(id) }}
		if _, err := svc.Sync(domain.WithActor(ctx, "cli"), "claude-code", ledgerV1); err != nil {
			t.Fatal(err)
		}
	})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Close(ctx)
	})
	p := browsertest.Open(t, srv.URL(), testUser, testPassword)
	ctx := p.Ctx
	step := p.Step
	rows := func() map[string]string {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll('[data-testid="ledger-row"]')]
			.map(r => [r.dataset.name, r.dataset.decision + " " + [...r.querySelectorAll('[data-testid="ledger-flag"]')].map(f => f.dataset.flag).join(",")]))`))
		step("read the ledger rows", err)
		return got
	}
	decide := func(name, decision, module, reason string) {
		t.Helper()
		p.Navigate("/ledger", `[data-testid="ledger-row"]`)
		step("open "+name, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="ledger-row"][data-name="`+name+`"] a`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="ledger-decide-form"]`))))
		values, _ := json.Marshal([]string{decision, module, reason})
		step("decide "+name, chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`(() => { const v = `+string(values)+`;
				document.querySelector('[data-testid="ledger-decision-select"]').value = v[0];
				document.querySelector('[data-testid="ledger-module-input"]').value = v[1];
				document.querySelector('[data-testid="ledger-reason-input"]').value = v[2]; })()`),
			chromedp.Click(chromedp.CSS(`[data-testid="ledger-decide"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"], [data-testid="field-error"]`)),
		))
	}

	p.Navigate("/ledger", `[data-testid="ledger-row"]`)
	if got := rows(); len(got) != 5 || got["tool-bash"] != "undecided undecided" {
		t.Fatalf("first sync: rows %v; want 5 undecided", got)
	}

	// A module that does not exist is refused on its field; the choices
	// stay as typed.
	decide("tool-bash", domain.DecisionPort, "tool.no-such", "Our shell tool.")
	if msg := p.Text(`[data-testid="field-error"][data-field="module"]`); !strings.Contains(msg, `no module "tool.no-such"`) {
		t.Errorf("module error %q", msg)
	}
	if v, m, r := p.Value(`[data-testid="ledger-decision-select"]`), p.Value(`[data-testid="ledger-module-input"]`), p.Value(`[data-testid="ledger-reason-input"]`); v != "port" || m != "tool.no-such" || r != "Our shell tool." {
		t.Errorf("the form after the refusal: %q %q %q; want what was typed", v, m, r)
	}
	decide("tool-bash", domain.DecisionPort, "base.caution", "Our shell tool.")
	if f := p.Text(`[data-testid="flash"]`); !strings.Contains(f, "tool-bash: port → base.caution") {
		t.Errorf("flash %q", f)
	}
	decide("tool-read", domain.DecisionMerge, "base.behavior", "")
	decide("mode-plan", domain.DecisionPort, "base.identity", "")
	decide("tool-notebook", domain.DecisionDoNotPort, "", "We have no notebook tool | none planned.")
	want := map[string]string{"tool-bash": "port ", "tool-read": "merge ", "mode-plan": "port ", "tool-notebook": "do-not-port ", "style-terse": "undecided undecided"}
	p.Navigate("/ledger", `[data-testid="ledger-row"]`)
	if got := rows(); !maps.Equal(got, want) {
		t.Errorf("after deciding: %v, want %v", got, want)
	}

	// The filter narrows the table.
	// The filtered page is the one whose select has port selected (as an
	// attribute: the page before only had its value set).
	step("filter port", chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#f-decision"), "port"), chromedp.Click(chromedp.CSS(`[data-testid="ledger-filter"]`)),
		chromedp.WaitReady(chromedp.CSS(`#f-decision option[value="port"][selected]`))))
	if got := sortedKeys(rows()); !slices.Equal(got, []string{"mode-plan", "tool-bash"}) {
		t.Errorf("decision port: %v", got)
	}
	p.Navigate("/ledger?catalogue=claude-code&q=NOTEBOOK", `[data-testid="ledger-row"]`)
	if got := sortedKeys(rows()); !slices.Equal(got, []string{"tool-notebook"}) {
		t.Errorf("search notebook: %v", got)
	}

	// The export is the Markdown of the whole ledger.
	p.Navigate("/ledger", `[data-testid="ledger-row"]`)
	md, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('[data-testid="ledger-export"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	step("download the export", err)
	for _, line := range []string{
		"# Porting ledger: claude-code",
		"| tool-bash | tool-description | 2.0.1 | port | `base.caution` | Our shell tool. | " + testUser + ", ",
		"| tool-notebook | tool-description | 2.0.1 | do-not-port |  | We have no notebook tool \\| none planned. | ",
		"| style-terse | output-style | 2.0.1 | undecided |  |  |  |  |",
	} {
		if !strings.Contains(md, line) {
			t.Errorf("the export lacks %q:\n%s", line, md)
		}
	}

	// A sync of the changed catalogue: exactly the changed ported or
	// merged entries are upstream-drifted, the changed refusal is up for a
	// second look, the unchanged port and the undecided entry are not.
	plan, err := svc.Sync(domain.WithActor(t.Context(), "cli"), "claude-code", ledgerV2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plan.Drifted, []string{"tool-bash", "tool-read"}) || !slices.Equal(plan.SecondLook, []string{"tool-notebook"}) {
		t.Errorf("sync: drifted %v, second look %v", plan.Drifted, plan.SecondLook)
	}
	p.Navigate("/ledger", `[data-testid="ledger-row"]`)
	want = map[string]string{"tool-bash": "port upstream-drifted", "tool-read": "merge upstream-drifted", "mode-plan": "port ",
		"tool-notebook": "do-not-port second-look", "style-terse": "undecided undecided"}
	if got := rows(); !maps.Equal(got, want) {
		t.Errorf("after the sync: %v, want %v", got, want)
	}
	p.Navigate("/ledger?catalogue=claude-code&flag=upstream-drifted", `[data-testid="ledger-row"]`)
	if got := sortedKeys(rows()); !slices.Equal(got, []string{"tool-bash", "tool-read"}) {
		t.Errorf("flag upstream-drifted: %v", got)
	}

	// The entry shows the upstream diff, decided → now, with the changed
	// words marked; deciding again clears the flag.
	p.Navigate("/ledger/entry?catalogue=claude-code&name=tool-bash", `[data-testid="ledger-upstream-diff"]`)
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="ledger-upstream-diff"] del, [data-testid="ledger-upstream-diff"] ins')].map(e => e.tagName.toLowerCase() + ":" + e.textContent)`))
	step("read the diff's marks", err)
	if !slices.Equal(marks, []string{"del:spaces", "ins:blanks"}) {
		t.Errorf("diff marks %q, want del:spaces, ins:blanks", marks)
	}
	p.Shot("ledger-drift")
	decide("tool-bash", domain.DecisionPort, "base.caution", "Quoting taken over.")
	p.Navigate("/ledger?catalogue=claude-code&flag=upstream-drifted", `[data-testid="ledger-count"]`)
	if got := sortedKeys(rows()); !slices.Equal(got, []string{"tool-read"}) {
		t.Errorf("upstream-drifted after deciding tool-bash again: %v, want tool-read only", got)
	}

	// A viewer reads the entry but gets no form.
	newUser(t, st, "vera", domain.RoleViewer)
	v := browsertest.Open(t, srv.URL(), "vera", testPassword)
	v.Navigate("/ledger/entry?catalogue=claude-code&name=tool-read", `[data-testid="ledger-read-only"]`)
	if n, err := chromedp.Run(v.Ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="ledger-decide-form"]').length`)); err != nil || n != 0 {
		t.Errorf("a viewer sees %d decision forms (%v)", n, err)
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

package web

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/web/browsertest"
)

// consolePages are the console's pages as an admin sees them on the
// seeded server of startSeeded; a new page is one line here.
var consolePages = []browsertest.Checked{
	{Path: "/", WaitFor: `[data-testid="module-row"]`},
	{Path: "/?page=9", WaitFor: `[data-testid="page-past-end"]`},
	{Path: "/modules/base.caution", WaitFor: `[data-testid="module-id"]`},
	{Path: "/modules/base.caution/override/en-US", WaitFor: `[data-testid="save"]`},
	{Path: "/modules/base.caution/override/en-US/history", WaitFor: `[data-testid="history-id"]`},
	{Path: "/overrides/new", WaitFor: "main form"},
	{Path: "/drift", WaitFor: `[data-testid="drift-row"]`},
	{Path: "/drift/base.caution/en-US"},
	{Path: "/drift/base.caution/en-US/keep-mine", WaitFor: "main form"},
	{Path: "/requests"},
	{Path: "/preview", WaitFor: `[data-testid="scenario-select"]`},
	{Path: "/preview?scenario=minutes-zh", WaitFor: `[data-testid="preview-result"]`},
	{Path: "/scenarios", WaitFor: `[data-testid="scenario-summary"]`},
	{Path: "/scenarios/translate-en"},
	{Path: "/profiles", WaitFor: `[data-testid="profile-row"]`},
	{Path: "/profiles/support"},
	{Path: "/profiles/new"},
	{Path: "/ledger", WaitFor: `[data-testid="ledger-row"]`},
	{Path: "/ledger/entry?catalogue=claude-code&name=tool-bash", WaitFor: `[data-testid="ledger-upstream-diff"]`},
	{Path: "/audit"},
	{Path: "/users"},
	{Path: "/tokens"},
	{Path: "/webhooks"},
	{Path: "/account/password"},
	{Path: "/modules/no.such.module", WaitFor: `[data-testid="error-page"]`},
}

// startSeeded starts a server whose pages all have something to show:
// a drifted published override of base.caution (drift list, review and
// history), a profile, a webhook, an API token and a porting ledger with
// an upstream-drifted entry.
func startSeeded(t *testing.T) *Server {
	t.Helper()
	srv, st := newServer(t, func(ctx context.Context, st *store.Store, lib *library.Snapshot) {
		m, _ := lib.Module("base.caution", "en-US")
		text := strings.Replace(m.Text, "\n---\n", "\n---\nDouble-check every destructive action.\n\n", 1)
		if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: m.ID, Locale: "en-US", Text: text, Title: m.Title, Version: m.Version,
			BasedOnVersion: m.Version, BaseSnapshot: "an older builtin text", Author: "alice", Publish: true}, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateProfile(ctx, domain.Profile{ID: "support", Name: "Support desk", Locale: "zh-CN", Model: "gpt-4o",
			TimeZone: "Asia/Shanghai", PromptModules: []string{"base.identity", "base.behavior", "style.learning"},
			SystemPrompt: "Keep answers short.", SkillDisclosure: true, TokenBudget: 8000}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateWebhook(ctx, domain.Webhook{URL: "https://receiver.example.com/hook", Secret: "0123456789abcdef"}); err != nil {
			t.Fatal(err)
		}
		seedLedger(t, ctx, st)
	})
	newToken(t, st, "ci", domain.ScopeAssemble)
	startServer(t, srv)
	return srv
}

// TestAxeEveryPage runs axe-core (web/browsertest/axe) over every
// console page in the light theme and then in the dark one, and the
// login page after logging out: no page has a violation.
func TestAxeEveryPage(t *testing.T) {
	t.Parallel()
	srv := startSeeded(t)
	p := browsertest.Open(t, srv.URL(), testUser, testPassword)
	n := p.CheckAxe(consolePages...)
	p.Dark()
	n += p.CheckAxe(consolePages...)
	_, err := chromedp.RunResponse(p.Ctx, chromedp.Click(chromedp.CSS(`[data-testid="logout-form"] button`)))
	p.Step("log out", err)
	n += p.CheckAxe(browsertest.Checked{Path: "/login", WaitFor: `[data-testid="login-form"]`})
	if n != 0 {
		t.Errorf("%d axe violations on %d pages", n, 2*len(consolePages)+1)
	}
}

// TestAxeReviewPages runs axe-core, in both themes, over the pages of
// change review: a draft's publish confirmation, which under review asks
// for approval, the list of open requests and one request's page.
func TestAxeReviewPages(t *testing.T) {
	t.Parallel()
	srv, _ := newServerWith(t, func(ctx context.Context, st *store.Store, lib *library.Snapshot) {
		ctx = domain.WithActor(ctx, "alice")
		for _, id := range []string{"base.caution", "base.identity"} {
			m, _ := lib.Module(id, "en-US")
			text := strings.Replace(m.Text, "\n---\n", "\n---\nAsk before deleting anything.\n\n", 1)
			if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: id, Locale: "en-US", Text: text, Title: m.Title, Version: m.Version,
				BasedOnVersion: m.Version, BaseSnapshot: m.Text, Author: "alice"}, 0); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.RequestChange(domain.WithNote(ctx, "Safer deletes."), domain.ChangeRequest{ModuleID: "base.caution", Locale: "en-US", Action: domain.ActionPublish, Revision: 1}); err != nil {
			t.Fatal(err)
		}
	}, func(c *Config) { c.ChangeReview = true })
	startServer(t, srv)
	pages := []browsertest.Checked{
		{Path: "/modules/base.identity/override/en-US/publish", WaitFor: "main form"},
		{Path: "/requests", WaitFor: `main table`},
		{Path: "/requests/1", WaitFor: "main form"},
	}
	p := browsertest.Open(t, srv.URL(), testUser, testPassword)
	n := p.CheckAxe(pages...)
	p.Dark()
	n += p.CheckAxe(pages...)
	if n != 0 {
		t.Errorf("%d axe violations on %d pages", n, 2*len(pages))
	}
}

// seedLedger fills the porting ledger of claude-code: tool-bash ported
// to base.caution and then changed upstream (upstream-drifted), tool-web
// not ported, style-terse undecided.
func seedLedger(t *testing.T, ctx context.Context, st *store.Store) {
	t.Helper()
	up := func(name, version, text string) domain.LedgerUpstream {
		return domain.LedgerUpstream{Name: name, Kind: "tool-description", Version: version, Text: text}
	}
	if err := st.SyncLedger(ctx, "claude-code", []domain.LedgerUpstream{up("tool-bash", "2.0.1", "Run a shell command.\nQuote paths."),
		up("tool-web", "2.0.1", "Fetch a page."), up("style-terse", "2.0.1", "Be terse.")}, nil, "seed"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DecideLedger(ctx, "claude-code", "tool-bash", domain.DecisionPort, "base.caution", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DecideLedger(ctx, "claude-code", "tool-web", domain.DecisionDoNotPort, "", "We have no web tool.", ""); err != nil {
		t.Fatal(err)
	}
	if err := st.SyncLedger(ctx, "claude-code", []domain.LedgerUpstream{up("tool-bash", "2.0.2", "Run a shell command.\nQuote every path.")}, nil, "seed"); err != nil {
		t.Fatal(err)
	}
}

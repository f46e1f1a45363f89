package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/lint"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
)

// Every caller that assembles — the CLI, the runtime API, a saved
// scenario's run and the impact of an edit — goes through
// state.Assembly, so for one request and mode they give one answer, the
// profile and the published override included; builtin only leaves the
// override out and keeps the profile everywhere.
func TestOneAssemblyForEveryCaller(t *testing.T) {
	ctx := context.Background()
	dbURL := storetest.NewDatabase(t)
	st := openStore(t, dbURL)
	snap, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := snap.Module("task.doc-minutes", "zh-CN")
	if !ok {
		t.Fatal("no task.doc-minutes in zh-CN")
	}
	const overrideLine = "An operator's line that only the override has."
	if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: m.ID, Locale: "zh-CN", Text: strings.TrimRight(m.Text, "\n") + "\n\n" + overrideLine + "\n",
		Title: m.Title, Version: m.Version, BasedOnVersion: m.Version, BaseSnapshot: m.Text, BaseHash: domain.TextHash(m.Text), Publish: true}, 0); err != nil {
		t.Fatal(err)
	}
	const profileLine = "A line that only the profile adds."
	if _, err := st.CreateProfile(ctx, domain.Profile{ID: "desk", Name: "Desk", SystemPrompt: profileLine, PromptModules: []string{}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "assembler", "examples", "minutes-zh.json"))
	if err != nil {
		t.Fatal(err)
	}
	var reqObj map[string]any
	if err := json.Unmarshal(unwrapScenario(data), &reqObj); err != nil {
		t.Fatal(err)
	}
	reqObj["profile"] = "desk"
	body, _ := json.Marshal(reqObj)
	if _, err := st.CreateScenario(ctx, domain.Scenario{ID: "one-assembly", Name: "One assembly", Request: body}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}

	srv, err := web.New(ctx, web.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store: st, Library: reload.Fixed(snap), Assembler: assembler.New(assembler.Config{}), Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	_, token, err := st.CreateToken(ctx, "one-assembly", []string{domain.ScopeAssemble})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", dbURL)

	cli := func(extra ...string) string {
		res := assembleCLI(t, append([]string{"--request", file}, extra...)...)
		return res.Text
	}
	api := func(query string) string {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/api/v1/assemble"+query, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res struct{ Text string }
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &res) != nil {
			t.Fatalf("assemble%s: %d\n%s", query, resp.StatusCode, raw)
		}
		return res.Text
	}
	run := func() string {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/api/v1/scenarios/one-assembly/run", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res struct{ Output struct{ Text string } }
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &res) != nil {
			t.Fatalf("scenario run: %d\n%s", resp.StatusCode, raw)
		}
		return res.Output.Text
	}
	served, err := state.Load(ctx, st, snap, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	impact := func() string {
		ovr := &state.Overrides{Store: st, Served: served, Assembler: assembler.New(assembler.Config{}), Checklist: lint.Lint}
		e, err := ovr.Effect(ctx, state.Change{ID: "task.translate", Locale: "zh-CN", Remove: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range e.Scenarios {
			if sc.ID == "one-assembly" {
				if sc.BeforeErr != nil {
					t.Fatal(sc.BeforeErr)
				}
				return sc.Before
			}
		}
		t.Fatal("impact did not run the scenario")
		return ""
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	csrf := setupEditor(t, client, srv.URL(), dbURL)
	fullText := regexp.MustCompile(`(?s)data-testid="full-text">(.*?)</pre>`)
	preview := func(builtinOnly string) string {
		resp, err := client.PostForm(srv.URL()+"/preview", url.Values{"request": {string(body)}, "builtinOnly": {builtinOnly}, "_csrf": {csrf}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		m := fullText.FindSubmatch(raw)
		if resp.StatusCode != http.StatusOK || m == nil {
			t.Fatalf("preview: %d\n%s", resp.StatusCode, raw)
		}
		return html.UnescapeString(string(m[1]))
	}

	published := map[string]string{"cli": cli(), "api": api(""), "preview": preview(""), "scenario run": run(), "impact": impact()}
	for caller, text := range published {
		if !strings.Contains(text, overrideLine) || !strings.Contains(text, profileLine) {
			t.Errorf("%s: the text lacks the published override or the profile:\n%s", caller, text)
		}
		if text != published["api"] {
			t.Errorf("%s and the API give different texts for the same request", caller)
		}
	}
	builtin := map[string]string{"cli": cli("--builtin-only"), "api": api("?builtinOnly=true"), "preview": preview("on")}
	for caller, text := range builtin {
		if strings.Contains(text, overrideLine) || !strings.Contains(text, profileLine) {
			t.Errorf("%s builtin only: want the profile and not the override:\n%s", caller, text)
		}
	}
	for caller, text := range builtin {
		if text != builtin["api"] {
			t.Errorf("builtin only: %s and the API give different texts", caller)
		}
	}
}

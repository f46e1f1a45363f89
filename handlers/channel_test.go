package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/state"
)

// A token of the staging channel is served the pending draft, and its
// composition report names the channel; the production token is served
// what is published, with no channel entry.
func TestStagingTokenSeesTheDraft(t *testing.T) {
	t.Parallel()
	a := setup(t)
	_, staging, err := a.store.CreateToken(domain.WithActor(t.Context(), "test"), "staging-runtime", []string{domain.ScopeAssemble, domain.ChannelStaging})
	if err != nil {
		t.Fatal(err)
	}
	a.saveOverride("base.identity", "en-US", identityText(t, a, "You are the published assistant."), 0)
	a.saveDraft("base.identity", "en-US", identityText(t, a, "You are the staged assistant."), 1)

	body := `{"message":"hello","locale":"en-US"}`
	prod := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", body))
	stage := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", body, "Authorization", "Bearer "+staging))
	if !strings.Contains(prod.Text, "You are the published assistant.") || strings.Contains(prod.Text, "staged") {
		t.Errorf("production token: the text is not the published one:\n%.300s", prod.Text)
	}
	if !strings.Contains(stage.Text, "You are the staged assistant.") {
		t.Errorf("staging token: the draft is not served:\n%.300s", stage.Text)
	}
	channel := func(res assembler.Result) string {
		for _, e := range res.Report {
			if e.Module == state.ChannelModule {
				return e.Reason
			}
		}
		return ""
	}
	if got := channel(stage); got != "channel:staging" {
		t.Errorf("staging report channel entry %q, want channel:staging", got)
	}
	if got := channel(prod); got != "" {
		t.Errorf("production report has a channel entry %q", got)
	}
	if e := reportEntry(stage, "base.identity"); e.Revision != 2 || !strings.HasSuffix(e.Reason, state.DraftSuffix) {
		t.Errorf("staging report entry of base.identity: %+v; want revision 2 marked as a draft", e)
	}
	// A pinned published revision serves as itself, not as the draft.
	pinned := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", `{"message":"hello","locale":"en-US","revisions":{"base.identity@en-US":1}}`, "Authorization", "Bearer "+staging))
	if e := reportEntry(pinned, "base.identity"); e.Revision != 1 || strings.HasSuffix(e.Reason, state.DraftSuffix) || !strings.Contains(pinned.Text, "You are the published assistant.") {
		t.Errorf("staging, revision 1 pinned: entry %+v; want revision 1, not marked as a draft", e)
	}
}

// Under change review, the staging channel serves what every open
// request would make serve: an open delete request's override is gone
// there (the builtin serves) while production still serves it; render
// follows the same channel; with builtinOnly there is no channel entry.
func TestStagingAppliesOpenRemovals(t *testing.T) {
	t.Parallel()
	a := setupReview(t)
	_, staging, err := a.store.CreateToken(domain.WithActor(t.Context(), "test"), "staging-runtime", []string{domain.ScopeAssemble, domain.ChannelStaging})
	if err != nil {
		t.Fatal(err)
	}
	newUser(t, a.store, "eve", domain.RoleEditor)
	a.saveDraft("base.identity", "en-US", identityText(t, a, "You are the published assistant."), 0)
	if rec := a.api(http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=en-US", "", "If-Match", "1"); rec.Code != http.StatusAccepted {
		t.Fatalf("publish request: %d %s", rec.Code, rec.Body.String())
	}
	a.as("eve").post("/requests/1/approve", url.Values{}).want(t, http.StatusSeeOther)
	bearer := []string{"Authorization", "Bearer " + staging}
	body := `{"message":"hello","locale":"en-US"}`
	render := `{"module":"base.identity","locale":"en-US"}`
	if s := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", body, bearer...)); !strings.Contains(s.Text, "You are the published assistant.") {
		t.Fatalf("staging before the request: the published override does not serve:\n%.300s", s.Text)
	}
	if rec := a.api(http.MethodDelete, "/api/v1/overrides/base.identity?locale=en-US", "", "If-Match", "1"); rec.Code != http.StatusAccepted {
		t.Fatalf("delete request: %d %s", rec.Code, rec.Body.String())
	}
	prod := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", body))
	stage := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", body, bearer...))
	if !strings.Contains(prod.Text, "You are the published assistant.") {
		t.Errorf("production serves the removal before its approval:\n%.300s", prod.Text)
	}
	if strings.Contains(stage.Text, "You are the published assistant.") || reportEntry(stage, "base.identity").Source != assembler.SourceBuiltin {
		t.Errorf("staging still serves the override an open delete request removes: %+v", reportEntry(stage, "base.identity"))
	}
	stageRender := decode[assembler.Rendered](t, a.api(http.MethodPost, "/api/v1/render", render, bearer...))
	prodRender := decode[assembler.Rendered](t, a.api(http.MethodPost, "/api/v1/render", render))
	if stageRender.Source != assembler.SourceBuiltin || len(stageRender.Report) != 1 || stageRender.Report[0].Reason != "channel:staging" {
		t.Errorf("staging render: source %s, report %+v; want the builtin and the channel entry", stageRender.Source, stageRender.Report)
	}
	if prodRender.Source == assembler.SourceBuiltin || len(prodRender.Report) != 0 {
		t.Errorf("production render: source %s, report %+v; want the override and no report", prodRender.Source, prodRender.Report)
	}
	builtin := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble?builtinOnly=true", body, bearer...))
	for _, e := range builtin.Report {
		if e.Module == state.ChannelModule {
			t.Errorf("builtinOnly on the staging channel still reports %q", e.Reason)
		}
	}
}

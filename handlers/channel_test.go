package handlers_test

import (
	"net/http"
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

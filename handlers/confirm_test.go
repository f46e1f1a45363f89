package handlers_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
)

// minutesLine is the line the tests add to task.doc-minutes (zh-CN),
// which the two seeded minutes scenarios enter.
const minutesLine = "每条行动项都写明负责人和截止日期。"

// minutesText is the builtin zh-CN text of task.doc-minutes with line
// added at the end of its body.
func minutesText(t *testing.T, a *app, line string) string {
	t.Helper()
	m := builtinText(t, a.lib, "task.doc-minutes", "zh-CN")
	return strings.TrimRight(m.Text, "\n") + "\n\n" + line + "\n"
}

const minutesEditor = "/modules/task.doc-minutes/override/zh-CN"

// scenarioIDs are the data-id of the elements with testid id.
func (r response) scenarioIDs(id string) []string {
	var out []string
	r.find(id).Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-id", "")) })
	return out
}

// Show impact: htmx gets the panel alone, listing the two minutes
// scenarios with their diffs and token changes; without JavaScript the
// editor comes back with the panel and the text; nothing is stored.
func TestImpactOfAnUnsavedEdit(t *testing.T) {
	t.Parallel()
	a := setup(t)
	text := minutesText(t, a, minutesLine)

	editor := a.get(minutesEditor).want(t, http.StatusOK)
	button := editor.find("show-impact")
	if button.AttrOr("formaction", "") != minutesEditor+"/impact" || button.AttrOr("hx-post", "") != minutesEditor+"/impact" {
		t.Fatalf("Show impact button: formaction %q, hx-post %q", button.AttrOr("formaction", ""), button.AttrOr("hx-post", ""))
	}

	form := url.Values{"text": {text}, "revision": {"0"}}
	panel := a.do(http.MethodPost, minutesEditor+"/impact", form, "HX-Request", "true").want(t, http.StatusOK)
	if panel.doc.Find("html body main").Length() != 0 || panel.find("editor-form").Length() != 0 {
		t.Fatal("the htmx answer is a whole page, not the panel")
	}
	p := panel.find("impact-panel")
	if p.AttrOr("hx-trigger", "") != "text-changed from:#f-text delay:500ms" || p.AttrOr("hx-post", "") != minutesEditor+"/impact" {
		t.Errorf("the panel does not refresh on text-changed: trigger %q post %q", p.AttrOr("hx-trigger", ""), p.AttrOr("hx-post", ""))
	}
	if got := strings.Join(panel.scenarioIDs("impact-scenario"), ","); got != "command-minutes-zh,minutes-zh" {
		t.Errorf("changed scenarios %q, want the two minutes scenarios", got)
	}
	if got := panel.find("impact-count").Text(); got != "2 of 5 change" {
		t.Errorf("count %q", got)
	}
	panel.find("impact-scenario").Each(func(_ int, s *goquery.Selection) {
		delta, _ := strconv.Atoi(s.Find(`[data-testid="impact-tokens"]`).AttrOr("data-delta", ""))
		if delta <= 0 {
			t.Errorf("%s: token change %d, want more tokens", s.AttrOr("data-id", ""), delta)
		}
		if ins := s.Find(`[data-kind="insert"]`).Text(); !strings.Contains(ins, minutesLine) {
			t.Errorf("%s: the diff inserts %q", s.AttrOr("data-id", ""), ins)
		}
	})
	if u := panel.find("impact-unchanged").Text(); !strings.Contains(u, "Translate a release note") {
		t.Errorf("unchanged %q", u)
	}

	// Without JavaScript: the editor page, text and revision kept.
	page := a.post(minutesEditor+"/impact", form).want(t, http.StatusOK)
	if page.textarea("text") != text || page.find("revision").AttrOr("value", "") != "0" || page.find("impact-scenario").Length() != 2 {
		t.Errorf("no-JS impact page: text kept %v, revision %q, %d scenarios", page.textarea("text") == text,
			page.find("revision").AttrOr("value", ""), page.find("impact-scenario").Length())
	}

	// A text with an error: 422, the panel names the line.
	bad := strings.Replace(text, "version: 1\n", "version: one\n", 1)
	refused := a.do(http.MethodPost, minutesEditor+"/impact", url.Values{"text": {bad}}, "HX-Request", "true").want(t, http.StatusUnprocessableEntity)
	if msg := refused.find("alert-message").Text(); !strings.HasPrefix(msg, "line 4: version") {
		t.Errorf("invalid text message %q", msg)
	}
	if _, err := a.store.GetOverride(context.Background(), "task.doc-minutes", "zh-CN"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("Show impact stored something: %v", err)
	}
	// A viewer may not ask.
	newUser(t, a.store, "vic", domain.RoleViewer)
	a.as("vic").post(minutesEditor+"/impact", form).want(t, http.StatusForbidden)
}

// Publish goes through its confirmation: the module page links to it;
// it shows the served text now → the draft and the draft's impact, and
// posts the draft's revision. Discard's confirmation shows that nothing
// served changes and the draft that is thrown away.
func TestConfirmPublishAndDiscard(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.saveDraft("task.doc-minutes", "zh-CN", minutesText(t, a, minutesLine), 0)

	card := a.get("/modules/task.doc-minutes").want(t, http.StatusOK).doc.Find(`[data-testid="locale"][data-locale="zh-CN"]`)
	if href := card.Find(`[data-testid="publish-draft"]`).AttrOr("href", ""); href != minutesEditor+"/publish" {
		t.Errorf("publish leads to %q, want its confirmation", href)
	}
	if href := card.Find(`[data-testid="discard-draft"]`).AttrOr("href", ""); href != minutesEditor+"/discard" {
		t.Errorf("discard leads to %q, want its confirmation", href)
	}

	c := a.get(minutesEditor+"/publish").want(t, http.StatusOK)
	if c.find("confirm-publish").Length() != 1 || c.find("confirm-form").Find(`input[name="revision"]`).AttrOr("value", "") != "1" {
		t.Fatal("the confirmation has no publish form for revision 1")
	}
	if got := c.find("confirm-sources").Text(); !strings.Contains(got, "Now: builtin zh-CN v1.") || !strings.Contains(got, "After: draft revision 1 (zh-CN).") {
		t.Errorf("sources %q", got)
	}
	if ins := c.find("confirm-diff").Find(`[data-kind="insert"] .dt`).Text(); ins != minutesLine {
		t.Errorf("the diff inserts %q, want the draft's line", ins)
	}
	if got := strings.Join(c.scenarioIDs("impact-scenario"), ","); got != "command-minutes-zh,minutes-zh" {
		t.Errorf("impact lists %q", got)
	}
	if got := c.find("confirm-counts").Text(); got != "The served text changes: +2 −0 lines; saved scenarios whose output changes: 2 of 5." {
		t.Errorf("counts %q", got)
	}
	if head, _ := a.store.GetOverride(context.Background(), "task.doc-minutes", "zh-CN"); !head.Draft {
		t.Fatal("the confirmation page published")
	}
	a.post(minutesEditor+"/publish", url.Values{"revision": {"1"}}).want(t, http.StatusSeeOther)
	if b := a.get(minutesEditor+"/publish").want(t, http.StatusOK); b.find("confirm-blocked").Length() != 1 || b.find("confirm-publish").Length() != 0 {
		t.Error("with nothing to publish the confirmation still offers to publish")
	}

	// Discard: what serves stays; the draft's change is shown.
	a.saveDraft("task.doc-minutes", "zh-CN", minutesText(t, a, "草稿里的一句话。"), 1)
	d := a.get(minutesEditor+"/discard").want(t, http.StatusOK)
	if d.find("confirm-same").Length() != 1 || d.find("confirm-discard").Length() != 1 {
		t.Fatalf("discard confirmation: same %d, button %d", d.find("confirm-same").Length(), d.find("confirm-discard").Length())
	}
	dropped := d.find("dropped-diff")
	if ins, del := dropped.Find(`[data-kind="insert"] .dt`).Text(), dropped.Find(`[data-kind="delete"] .dt`).Text(); ins != "草稿里的一句话。" || del != minutesLine {
		t.Errorf("the dropped draft: inserts %q, deletes %q", ins, del)
	}
	if !strings.Contains(d.find("confirm-summary").Text(), "published revision 1 serves on") {
		t.Errorf("summary %q", d.find("confirm-summary").Text())
	}
	a.post(minutesEditor+"/discard", url.Values{"revision": {"2"}}).want(t, http.StatusSeeOther)
	if b := a.get(minutesEditor+"/discard").want(t, http.StatusOK); b.find("confirm-blocked").Length() != 1 || b.find("confirm-discard").Length() != 0 {
		t.Error("with nothing to discard the confirmation still offers to discard")
	}
}

// Delete's confirmation shows the override that goes, the builtin that
// comes back and the scenarios that change.
func TestConfirmDelete(t *testing.T) {
	t.Parallel()
	a := setup(t)
	const line = "Sign every answer as the research desk."
	a.saveOverride("base.identity", "en-US", strings.TrimRight(builtinText(t, a.lib, "base.identity", "en-US").Text, "\n")+"\n\n"+line+"\n", 0)

	c := a.get("/modules/base.identity/override/en-US/delete").want(t, http.StatusOK)
	if del := c.find("confirm-diff").Find(`[data-kind="delete"] .dt`).Text(); del != line {
		t.Errorf("the delete removes %q from what serves", del)
	}
	if got := c.find("confirm-sources").Text(); !strings.Contains(got, "Now: override revision 1 (en-US).") || !strings.Contains(got, "After: builtin en-US v1.") {
		t.Errorf("sources %q", got)
	}
	// base.identity enters every scenario; only the en-US ones (ja-JP
	// falls back to en-US) serve this override.
	if got := strings.Join(c.scenarioIDs("impact-scenario"), ","); got != "fallback-ja,support-faq-en,translate-en" {
		t.Errorf("impact lists %q", got)
	}
	if c.find("confirm-delete").AttrOr("class", "") != "btn-danger" {
		t.Error("delete is not marked dangerous")
	}
}

// Take builtin goes through its confirmation from the drift review: the
// override that goes, the builtin now that serves after, and a form
// posting the revision and builtin the page showed.
func TestConfirmTakeBuiltin(t *testing.T) {
	t.Parallel()
	d := newDrifted(t, mineOpening, upstreamClosing)
	link := d.after.get(reviewPath).want(t, http.StatusOK).find("take-builtin")
	if href := link.AttrOr("href", ""); href != reviewPath+"/take-builtin" {
		t.Fatalf("take builtin leads to %q", href)
	}
	c := d.after.get(reviewPath+"/take-builtin").want(t, http.StatusOK)
	diff := c.find("confirm-diff")
	if ins, del := diff.Find(`[data-kind="insert"]`).Text(), diff.Find(`[data-kind="delete"]`).Text(); !strings.Contains(ins, "When a question about yourself") || !strings.Contains(del, "research desk") {
		t.Errorf("take builtin: inserts %q, deletes %q", ins, del)
	}
	form := url.Values{}
	c.find("confirm-form").Find(`input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		form.Set(s.AttrOr("name", ""), s.AttrOr("value", ""))
	})
	if form.Get("action") != "take-builtin" || form.Get("base") != "1" || form.Get("builtin") != domain.TextHash(d.builtin.Text) {
		t.Fatalf("confirmation form %v", form)
	}
	if c.find("impact-scenario").Length() == 0 {
		t.Error("no scenario changes when the override goes")
	}
	if _, err := d.after.store.GetOverride(context.Background(), "base.identity", "en-US"); err != nil {
		t.Fatalf("the confirmation page took the builtin: %v", err)
	}
	d.after.follow(d.after.post(reviewPath, form).wantRedirect(t, "/drift")).want(t, http.StatusOK)
	if _, err := d.after.store.GetOverride(context.Background(), "base.identity", "en-US"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("after the confirmed take builtin: %v", err)
	}
}

// The module page says where the module is used: profiles naming it and
// the saved scenarios it enters, with the report's reason.
func TestModuleWhereUsed(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.post("/profiles", profileForm("minutes-desk", "base.identity", "task.doc-minutes")).want(t, http.StatusSeeOther)

	r := a.get("/modules/task.doc-minutes").want(t, http.StatusOK)
	if p := r.find("used-profile"); p.Length() != 1 || p.AttrOr("data-id", "") != "minutes-desk" || !strings.Contains(p.Text(), "promptModules #2") {
		t.Errorf("profiles: %d %q", p.Length(), p.Text())
	}
	reasons := map[string]string{}
	r.find("used-scenario").Each(func(_ int, s *goquery.Selection) {
		reasons[s.AttrOr("data-id", "")] = s.Find(`[data-testid="used-reason"]`).AttrOr("data-reason", "")
	})
	if len(reasons) != 2 || reasons["command-minutes-zh"] != "command:/minutes" || !strings.HasPrefix(reasons["minutes-zh"], "intent:") {
		t.Errorf("scenarios and reasons %v", reasons)
	}
	if n := a.get("/modules/task.code-review").want(t, http.StatusOK).find("used-no-scenario").Length(); n != 1 {
		t.Error("task.code-review is said to be used")
	}

	// A module included by another is used by its includer: the en-US
	// override of base.identity includes a user module, so the scenarios
	// served in en-US (ja-JP falls back to it) enter it by base.identity.
	sig := "---\nid: aux.signature\nlayer: aux\nversion: 1\ntitle: Signature\ndescription: The closing line\n---\nEnd with the team's name.\n"
	a.post("/overrides/new", url.Values{"id": {"aux.signature"}, "locale": {"en-US"}, "text": {sig}}).want(t, http.StatusSeeOther)
	a.post("/modules/aux.signature/override/en-US/publish", url.Values{"revision": {"1"}}).want(t, http.StatusSeeOther)
	a.saveOverride("base.identity", "en-US", strings.TrimRight(builtinText(t, a.lib, "base.identity", "en-US").Text, "\n")+"\n\n{{aux.signature}}\n", 0)
	r = a.get("/modules/aux.signature").want(t, http.StatusOK)
	var got []string
	r.find("used-scenario").Each(func(_ int, s *goquery.Selection) {
		e := s.Find(`[data-testid="used-reason"]`)
		got = append(got, s.AttrOr("data-id", "")+" "+e.AttrOr("data-kind", "")+" "+e.AttrOr("data-reason", ""))
	})
	if strings.Join(got, ", ") != "fallback-ja include by:base.identity, support-faq-en include by:base.identity, translate-en include by:base.identity" {
		t.Errorf("aux.signature is used in %q", got)
	}
}

// A draft saved after a delete has nothing published under it: the
// delete serves nothing, the builtin does. The Publish confirmation and
// the API both say so.
func TestDraftAfterDeleteServesNoRevision(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.saveOverride("task.doc-minutes", "zh-CN", minutesText(t, a, minutesLine), 0)
	a.post(minutesEditor+"/delete", url.Values{"revision": {"1"}}).want(t, http.StatusSeeOther)
	a.saveDraft("task.doc-minutes", "zh-CN", minutesText(t, a, "删除之后的草稿。"), 2)

	c := a.get(minutesEditor+"/publish").want(t, http.StatusOK)
	if got := c.find("confirm-head").Text(); !strings.HasSuffix(got, ": a draft; no revision of this override serves, the builtin does.") {
		t.Errorf("head line %q", got)
	}
	if got := c.find("confirm-sources").Text(); !strings.Contains(got, "Now: builtin zh-CN v1.") {
		t.Errorf("sources %q", got)
	}
	drafts := decode[[]handlers.APIOverrideEntry](t, a.api(http.MethodGet, "/api/v1/overrides?status=draft", ""))
	if len(drafts) != 1 || drafts[0].Revision != 3 || drafts[0].PublishedRevision != 0 {
		t.Errorf("drafts: %+v", drafts)
	}
}

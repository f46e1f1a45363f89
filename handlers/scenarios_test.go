package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
)

// saveScenario posts the preview's "Save as scenario" form and expects
// the redirect to the new scenario's page; it returns that page.
func (a *app) saveScenario(name, request, locale string, accept bool) response {
	a.t.Helper()
	form := url.Values{"name": {name}, "description": {"made by a test"}, "request": {request}, "locale": {locale}}
	if accept {
		form.Set("accept", "on")
	}
	r := a.post("/scenarios", form).want(a.t, http.StatusSeeOther)
	return a.get(r.Header().Get("Location")).want(a.t, http.StatusOK)
}

// runCard is the card of the scenario id on /scenarios.
func runCard(r response, id string) *goquery.Selection {
	return r.doc.Find(`[data-testid="scenario-run"][data-id="` + id + `"]`)
}

// tid finds the elements with data-testid id under sel.
func tid(sel *goquery.Selection, id string) *goquery.Selection {
	return sel.Find(`[data-testid="` + id + `"]`)
}

func TestScenarioSaveFromPreview(t *testing.T) {
	t.Parallel()
	a := setup(t)
	// The preview shows the form to an editor (the admin here), carrying
	// the request that ran and the locale field.
	page := a.post("/preview", url.Values{"request": {enRequest}, "locale": {"zh-CN"}}).want(t, http.StatusOK)
	form := page.find("save-scenario-form")
	if form.Length() != 1 || form.Find(`input[name="request"]`).AttrOr("value", "") != enRequest || form.Find(`input[name="locale"]`).AttrOr("value", "") != "zh-CN" {
		t.Fatalf("save form %d, request %q", form.Length(), form.Find(`input[name="request"]`).AttrOr("value", ""))
	}
	if _, ok := form.Find(`input[name="accept"]`).Attr("checked"); !ok {
		t.Error("accept is not checked by default")
	}

	detail := a.saveScenario("Translate, zh", enRequest, "zh-CN", true)
	if got := detail.find("flash").Text(); !strings.Contains(got, "Scenario Translate, zh saved (id translate-zh).") || !strings.Contains(got, "is accepted") {
		t.Errorf("flash %q", got)
	}
	if got := detail.find("run-status").Text(); got != "unchanged" {
		t.Errorf("status %q, want unchanged", got)
	}
	sc, err := a.store.GetScenario(context.Background(), "translate-zh")
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	json.Unmarshal(sc.Request, &req)
	if req["locale"] != "zh-CN" || req["now"] != "2026-11-29T15:45:00Z" || sc.Accepted == nil || sc.Accepted.By != testUser || sc.Description != "made by a test" {
		t.Errorf("stored %s, accepted %+v", sc.Request, sc.Accepted)
	}

	// Without accept: never accepted.
	a.saveScenario("Translate, zh", enRequest, "", false)
	if sc, err := a.store.GetScenario(context.Background(), "translate-zh-2"); err != nil || sc.Accepted != nil {
		t.Errorf("second save: %+v, %v", sc, err)
	}

	// A missing name answers 422 with the preview, its result and the
	// form as typed.
	r := a.post("/scenarios", url.Values{"name": {" "}, "description": {"kept"}, "request": {enRequest}, "accept": {"on"}}).want(t, http.StatusUnprocessableEntity)
	if r.find("preview-result").Length() != 1 || r.doc.Find(`[data-testid="field-error"][data-field="name"]`).Length() != 1 ||
		r.find("save-description").AttrOr("value", "") != "kept" || r.textarea("request") != enRequest {
		t.Errorf("refused save page:\n%.3000s", r.Body.String())
	}
	// A request that does not decode is the preview's own error.
	r = a.post("/scenarios", url.Values{"name": {"x"}, "request": {`{"colour": 1}`}}).want(t, http.StatusUnprocessableEntity)
	if !strings.Contains(r.find("alert").Text(), "colour") {
		t.Errorf("bad request: alert %q", r.find("alert").Text())
	}

	// A viewer sees no save form and no accept buttons.
	newUser(t, a.store, "vera", domain.RoleViewer)
	v := a.as("vera")
	if got := v.post("/preview", url.Values{"request": {enRequest}}).want(t, http.StatusOK); got.find("save-scenario-form").Length() != 0 || got.find("preview-result").Length() != 1 {
		t.Error("a viewer's preview offers the save form")
	}
	list := v.get("/scenarios").want(t, http.StatusOK)
	if list.find("scenario-run").Length() != 7 || list.find("accept-form").Length() != 0 {
		t.Errorf("viewer's list: %d runs, %d accept forms", list.find("scenario-run").Length(), list.find("accept-form").Length())
	}
	if d := v.get("/scenarios/translate-zh").want(t, http.StatusOK); d.find("scenario-form").Length() != 0 || d.find("scenario-request").Length() != 1 {
		t.Error("a viewer's scenario page offers the edit form, or lacks the request")
	}
}

func TestScenarioListChangedAccept(t *testing.T) {
	t.Parallel()
	a := setup(t)
	examples, _ := assembler.Examples()
	a.saveScenario("English", enRequest, "", true)

	list := a.get("/scenarios").want(t, http.StatusOK)
	if got := list.find("scenario-run").Length(); got != len(examples)+1 {
		t.Fatalf("%d runs, want %d", got, len(examples)+1)
	}
	if got := tid(runCard(list, "english"), "run-status").Text(); got != "unchanged" {
		t.Errorf("english is %q", got)
	}
	if got := list.find("count-never-accepted").Text(); got != itoa(len(examples))+" never accepted" {
		t.Errorf("summary %q", got)
	}
	// htmx re-run gets the runs only.
	if part := a.get("/scenarios", "HX-Request", "true").want(t, http.StatusOK); part.find("scenario-summary").Length() != 1 || part.find("topnav").Length() != 0 {
		t.Error("the htmx answer is not the runs alone")
	}

	const line = "You are the assistant of the scenarios page test."
	a.saveOverride("base.identity", "en-US", identityText(t, a, line), 0)
	list = a.get("/scenarios").want(t, http.StatusOK)
	card := runCard(list, "english")
	if got := tid(card, "run-status").Text(); got != "changed" {
		t.Fatalf("after the override english is %q", got)
	}
	// Changed and failed runs come first.
	if first := list.find("scenario-run").First().AttrOr("data-id", ""); first != "english" {
		t.Errorf("first run %q, want the changed one", first)
	}
	if ins := card.Find(`[data-testid="text-diff"] [data-kind="insert"]`).Text(); !strings.Contains(ins, line) {
		t.Errorf("the text diff inserts %q", ins)
	}
	if del := card.Find(`[data-testid="report-diff"] [data-kind="delete"]`).Text(); !strings.Contains(del, "prompt(base.identity v1 · default)") {
		t.Errorf("the report diff deletes %q", del)
	}
	shown := card.Find(`[data-testid="accept-form"] input[name="fingerprint"]`).AttrOr("value", "")

	// Another publish after the page was rendered: accepting what it
	// showed is refused (409) with the page as it is now, re-run, whose
	// accept form carries the new output's fingerprint.
	const line2 = "You are the assistant of the scenarios page test, published again."
	a.saveOverride("base.identity", "en-US", identityText(t, a, line2), 1)
	r := a.post("/scenarios/english/accept", url.Values{"fingerprint": {shown}}).want(t, http.StatusConflict)
	fingerprint := r.doc.Find(`[data-testid="accept-form"] input[name="fingerprint"]`).AttrOr("value", "")
	if !strings.Contains(r.find("alert").Text(), "The output changed since that page was loaded") || r.find("run-status").Text() != "changed" ||
		!strings.Contains(r.find("text-diff").Text(), line2) || fingerprint == "" || fingerprint == shown {
		t.Errorf("stale accept page: %q, fingerprint %q (shown %q)", r.find("alert").Text(), fingerprint, shown)
	}
	// A malformed or missing fingerprint is refused (422), nothing accepted.
	for _, bad := range []string{"", "not-a-fingerprint", strings.ToUpper(fingerprint), fingerprint + "0"} {
		r := a.post("/scenarios/english/accept", url.Values{"fingerprint": {bad}}).want(t, http.StatusUnprocessableEntity)
		if !strings.Contains(r.find("alert").Text(), "fingerprint is missing or malformed") {
			t.Errorf("fingerprint %q: alert %q", bad, r.find("alert").Text())
		}
	}
	if sc, err := a.store.GetScenario(context.Background(), "english"); err != nil || strings.Contains(sc.Accepted.Text, "scenarios page test") {
		t.Fatalf("refused accepts changed the accepted output: %v", err)
	}
	r = a.post("/scenarios/english/accept", url.Values{"fingerprint": {fingerprint}, "back": {"list"}}).want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != "/scenarios" {
		t.Errorf("accept from the list goes to %q", loc)
	}
	list = a.get("/scenarios").want(t, http.StatusOK)
	if got := tid(runCard(list, "english"), "run-status").Text(); got != "unchanged" || !strings.Contains(list.find("flash").Text(), "Accepted the output of English") {
		t.Errorf("after accepting: %q, flash %q", got, list.find("flash").Text())
	}
	entries, err := a.store.ListAudit(context.Background(), domain.AuditFilter{Action: domain.ActionAccept, SubjectID: "english"})
	if err != nil || len(entries) != 2 || entries[0].Actor != testUser || !strings.Contains(entries[0].After, line2) {
		t.Errorf("accept audit: %d entries, %v", len(entries), err)
	}
	audit := a.get("/audit?subject=scenario&action=accept").want(t, http.StatusOK)
	if audit.doc.Find(`a[href="/scenarios/english"]`).Length() == 0 {
		t.Error("the audit page does not link the scenario")
	}

	// A scenario naming a missing profile fails, with its error; accepting
	// it answers 422.
	a.saveScenario("Ghost", `{"profile": "ghost"}`, "", true)
	list = a.get("/scenarios").want(t, http.StatusOK)
	ghost := runCard(list, "ghost")
	if tid(ghost, "run-status").Text() != "failed" || tid(ghost, "accept-form").Length() != 0 {
		t.Errorf("ghost card: status %q, %d accept forms; want failed and none", tid(ghost, "run-status").Text(), tid(ghost, "accept-form").Length())
	}
	if got, want := strings.Join(strings.Fields(tid(ghost, "run-error").Text()), " "), `It does not assemble. The request's field profile: profile "ghost" does not exist. not_found`; got != want {
		t.Errorf("ghost error %q, want %q", got, want)
	}
	if got := tid(ghost, "error-code").AttrOr("data-code", ""); got != "not_found" {
		t.Errorf("ghost error code %q, want not_found", got)
	}
	a.post("/scenarios/ghost/accept", url.Values{}).want(t, http.StatusUnprocessableEntity)
	a.post("/scenarios/nope/accept", url.Values{}).want(t, http.StatusNotFound)
}

func TestScenarioEditDeleteRequest(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.saveScenario("English", enRequest, "", true)
	page := a.get("/scenarios/english").want(t, http.StatusOK)
	if page.find("scenario-name").Text() != "English" || page.find("open-preview").AttrOr("href", "") != "/preview?scenario=english" {
		t.Errorf("page: %q, preview link %q", page.find("scenario-name").Text(), page.find("open-preview").AttrOr("href", ""))
	}
	// The permalink runs it in the preview.
	if p := a.get("/preview?scenario=english").want(t, http.StatusOK); p.find("preview-result").Length() != 1 || !strings.Contains(p.textarea("request"), `"gpt-4o"`) {
		t.Error("/preview?scenario=english does not run it")
	}
	// The request as JSON, for the preview's script.
	r := a.get("/scenarios/english/request").want(t, http.StatusOK)
	var req map[string]any
	if err := json.Unmarshal(r.Body.Bytes(), &req); err != nil || req["model"] != "gpt-4o" || !strings.HasPrefix(r.Header().Get("Content-Type"), "application/json") {
		t.Errorf("request JSON %q (%v)", r.Body.String(), err)
	}
	a.get("/scenarios/nope/request").want(t, http.StatusNotFound)
	a.get("/scenarios/nope").want(t, http.StatusNotFound)

	// A bad edit keeps what was typed, the error under the request.
	bad := `{"locale": "en-US", "knowledgeBases": [{"id": "k", "name": "K", "type": "wiki"}]}`
	r = a.post("/scenarios/english", url.Values{"name": {"Renamed"}, "description": {"d2"}, "request": {bad}}).want(t, http.StatusUnprocessableEntity)
	if r.textarea("request") != bad || r.find("scenario-form").Find(`input[name="name"]`).AttrOr("value", "") != "Renamed" ||
		!strings.Contains(r.doc.Find(`[data-testid="field-error"][data-field="request"]`).Text(), "knowledgeBases[0].type") {
		t.Errorf("refused edit:\n%.2000s", r.Body.String())
	}
	// A good one saves; the request change shows as a changed output.
	a.post("/scenarios/english", url.Values{"name": {"Renamed"}, "description": {"d2"}, "request": {`{"locale": "zh-CN", "now": "2026-11-29T15:45:00Z"}`}}).want(t, http.StatusSeeOther)
	r = a.get("/scenarios/english").want(t, http.StatusOK)
	if r.find("scenario-name").Text() != "Renamed" || r.find("run-status").Text() != "changed" || r.find("output-accepted").Length() != 1 {
		t.Errorf("after the edit: %q %q", r.find("scenario-name").Text(), r.find("run-status").Text())
	}

	confirm := a.get("/scenarios/english/delete").want(t, http.StatusOK)
	if confirm.find("scenario-delete").Length() != 1 {
		t.Fatal("no confirmation form")
	}
	if _, err := a.store.GetScenario(context.Background(), "english"); err != nil {
		t.Fatal("the confirmation page deleted it")
	}
	a.post("/scenarios/english/delete", url.Values{}).want(t, http.StatusSeeOther)
	a.get("/scenarios/english").want(t, http.StatusNotFound)
	a.wantDeletedAgain(t, a.post("/scenarios/english/delete", url.Values{}), "/scenarios", "Scenario english")
	a.post("/scenarios/never-saved/delete", url.Values{}).want(t, http.StatusNotFound)
	// The seeded examples are ordinary scenarios: deletable too.
	a.post("/scenarios/minutes-zh/delete", url.Values{}).want(t, http.StatusSeeOther)
}

func TestPreviewBudgetChatMessagesAndDrafts(t *testing.T) {
	t.Parallel()
	a := setup(t)
	// A profile whose prompt holds HTML characters and whose budget the
	// text exceeds.
	a.post("/profiles", url.Values{"id": {"tight"}, "name": {"Tight"}, "systemPrompt": {"Answer <briefly> & kindly."}, "tokenBudget": {"100"}, "skillDisclosure": {"on"}}).want(t, http.StatusSeeOther)
	request := `{"profile": "tight", "locale": "en-US", "message": "hi", "now": "2026-11-29T15:45:00Z"}`
	r := a.post("/preview", url.Values{"request": {request}}).want(t, http.StatusOK)
	res := decode[assembler.Result](t, a.api(http.MethodPost, "/api/v1/assemble", request))
	if got := r.find("budget-warning").Text(); got != "over the 100-token budget by "+itoa(res.Tokens-100) {
		t.Errorf("budget warning %q (tokens %d)", got, res.Tokens)
	}
	chat := r.find("chat-messages").Text()
	var msgs []struct{ Role, Content string }
	if err := json.Unmarshal([]byte(chat), &msgs); err != nil || len(msgs) != 1 || msgs[0].Role != "system" || msgs[0].Content != res.Text {
		t.Errorf("chat messages %.300q (%v), want one system message with the API's text", chat, err)
	}
	if !strings.Contains(chat, "Answer <briefly> & kindly.") {
		t.Errorf("the chat messages JSON escapes HTML: %.300q", chat)
	}
	if r.find("copy-text").Length() != 1 || r.find("copy-chat").Length() != 1 {
		t.Error("no copy buttons")
	}
	if src := r.doc.Find("#full-text-source").Text(); src != res.Text {
		t.Errorf("the copy source differs from the API's text")
	}
	// Within budget it says so.
	a.post("/profiles/tight", url.Values{"name": {"Tight"}, "systemPrompt": {"x"}, "tokenBudget": {"100000"}}).want(t, http.StatusSeeOther)
	if got := a.post("/preview", url.Values{"request": {request}}).want(t, http.StatusOK).find("budget").Text(); got != "within the 100000-token budget" {
		t.Errorf("budget %q", got)
	}

	// With drafts: the served text against the one with drafts.
	const line = "You are the assistant of the drafts preview test."
	a.saveDraft("base.identity", "en-US", identityText(t, a, line), 0)
	r = a.post("/preview", url.Values{"request": {enRequest}, "includeDrafts": {"on"}}).want(t, http.StatusOK)
	if ins := r.doc.Find(`[data-testid="drafts-diff"] [data-kind="insert"]`).Text(); !strings.Contains(ins, line) {
		t.Errorf("drafts diff inserts %q", ins)
	}
	if !strings.Contains(r.find("drafts-changed").Text(), "+1") {
		t.Errorf("drafts summary %q", r.find("drafts-changed").Text())
	}
	// A request the drafts do not touch says so.
	r = a.post("/preview", url.Values{"request": {`{"locale": "zh-CN", "now": "2026-11-29T15:45:00Z"}`}, "includeDrafts": {"on"}}).want(t, http.StatusOK)
	if r.find("drafts-same").Length() != 1 {
		t.Error("a preview the drafts do not change does not say so")
	}
	// Without drafts, no comparison.
	if r = a.post("/preview", url.Values{"request": {enRequest}}).want(t, http.StatusOK); r.find("drafts-vs-served").Length() != 0 {
		t.Error("the comparison shows without drafts")
	}
}

// The preview's save form takes an id: given, the scenario gets it;
// taken, the form comes back (422) keeping what was typed and saying
// which field; empty, a Chinese name's id is its pinyin.
func TestSaveScenarioWithID(t *testing.T) {
	t.Parallel()
	a := setup(t)
	form := url.Values{"id": {"billing-check"}, "name": {"Billing check"}, "request": {`{"locale": "en-US"}`}}
	r := a.post("/scenarios", form).want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != "/scenarios/billing-check" {
		t.Errorf("saved with a given id, it leads to %q", loc)
	}
	again := a.post("/scenarios", form).want(t, http.StatusUnprocessableEntity)
	if got := again.doc.Find(`[data-testid="field-error"][data-field="id"]`).Text(); !strings.Contains(got, "billing-check exists already") {
		t.Errorf("a taken id: field error %q", got)
	}
	if got, name := again.find("save-id").AttrOr("value", ""), again.find("save-name").AttrOr("value", ""); got != "billing-check" || name != "Billing check" {
		t.Errorf("a taken id: the form keeps id %q and name %q", got, name)
	}
	bad := a.post("/scenarios", url.Values{"id": {"Billing Check"}, "name": {"x"}, "request": {`{}`}}).want(t, http.StatusUnprocessableEntity)
	if got := bad.doc.Find(`[data-testid="field-error"][data-field="id"]`).Text(); got == "" {
		t.Error("an id with capitals and a space has no field error")
	}
	zh := a.post("/scenarios", url.Values{"name": {"\u4f1a\u8bae\u7eaa\u8981"}, "request": {`{}`}}).want(t, http.StatusSeeOther)
	if loc := zh.Header().Get("Location"); loc != "/scenarios/hui-yi-ji-yao" {
		t.Errorf("a Chinese name without an id leads to %q, want its pinyin", loc)
	}
	// The form posted twice leads to the one scenario it saved, and says so;
	// the same name with another request is another scenario.
	twice := a.post("/scenarios", url.Values{"name": {"\u4f1a\u8bae\u7eaa\u8981"}, "request": {`{}`}}).want(t, http.StatusSeeOther)
	if loc := twice.Header().Get("Location"); loc != "/scenarios/hui-yi-ji-yao" {
		t.Errorf("the form posted twice leads to %q, want the scenario it saved", loc)
	}
	if flash := a.follow(twice).find("flash").Text(); !strings.Contains(flash, "saved already (id hui-yi-ji-yao)") {
		t.Errorf("flash after the form posted twice: %q", flash)
	}
	other := a.post("/scenarios", url.Values{"name": {"\u4f1a\u8bae\u7eaa\u8981"}, "request": {`{"locale": "zh-CN"}`}}).want(t, http.StatusSeeOther)
	if loc := other.Header().Get("Location"); loc != "/scenarios/hui-yi-ji-yao-2" {
		t.Errorf("the same name with another request leads to %q, want a new id", loc)
	}
}

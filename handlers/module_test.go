package handlers_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
)

func TestModulePageShowsFieldsAndLocales(t *testing.T) {
	t.Parallel()
	a := setup(t)
	en := builtinText(t, a.lib, "base.identity", "en-US")
	r := a.get("/modules/base.identity").want(t, http.StatusOK)

	for id, want := range map[string]string{
		"module-id":                  "base.identity",
		"field-layer":                "base",
		"field-version":              strconv.Itoa(en.Version),
		"field-title":                en.Title,
		"field-description":          en.Description,
		"field-requires-attachments": "false",
	} {
		if got := strings.TrimSpace(r.find(id).Text()); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	locales := r.find("locale")
	if locales.Length() != 2 {
		t.Fatalf("%d locale cards, want 2", locales.Length())
	}
	for i, loc := range []string{"en-US", "zh-CN"} {
		card := locales.Eq(i)
		if card.AttrOr("data-locale", "") != loc || card.AttrOr("data-source", "") != "builtin" {
			t.Errorf("card %d: locale %q source %q, want %s builtin", i, card.AttrOr("data-locale", ""), card.AttrOr("data-source", ""), loc)
		}
		b := builtinText(t, a.lib, "base.identity", loc)
		// The HTML parser drops one leading newline of a <pre>.
		if got := card.Find(`[data-testid="body"]`).Text(); got != strings.TrimPrefix(b.Body, "\n") {
			t.Errorf("%s body differs:\n%s", loc, got)
		}
		if href := card.Find(`[data-testid="create-override"]`).AttrOr("href", ""); href != "/modules/base.identity/override/"+loc {
			t.Errorf("%s override link %q", loc, href)
		}
	}
}

func TestModulePageTriggersAndVariables(t *testing.T) {
	t.Parallel()
	a := setup(t)
	m := builtinText(t, a.lib, "task.doc-minutes", "en-US")
	r := a.get("/modules/task.doc-minutes").want(t, http.StatusOK)
	if got := r.find("trigger").Length(); got != len(m.Triggers) {
		t.Errorf("%d trigger rows, want %d", got, len(m.Triggers))
	}
	for i, tr := range m.Triggers {
		row := r.find("trigger").Eq(i)
		if got := strings.TrimSpace(row.Find("td").First().Text()); got != string(tr.Kind) {
			t.Errorf("trigger %d kind %q, want %q", i, got, tr.Kind)
		}
	}
	if got := r.find("variable").Length(); got != len(m.Variables) {
		t.Errorf("%d variable rows, want %d", got, len(m.Variables))
	}
}

func TestModulePageUnknownIDIs404(t *testing.T) {
	t.Parallel()
	a := setup(t)
	r := a.get("/modules/base.nope").want(t, http.StatusNotFound)
	if !strings.Contains(r.find("error-message").Text(), `"base.nope"`) {
		t.Errorf("error page does not name the module: %q", r.find("error-message").Text())
	}
	a.get("/modules/base.nope/override/en-US").want(t, http.StatusNotFound)
	a.get("/no/such/page").want(t, http.StatusNotFound)
}

// A module that names its upstream source shows it on its page and in
// the runtime API's listing and detail; one that names none shows nothing.
func TestModuleUpstreamIsShown(t *testing.T) {
	t.Parallel()
	a := setup(t)
	text := "---\nid: tool.tool-description-bash\nlayer: tool\nversion: 1\ntitle: \"Tool Description: Bash\"\ndescription: Runs shell commands\n" +
		"upstream: {source: claude-code, name: \"Tool Description: Bash\", version: \"2.1.240\"}\n---\nRun shell commands.\n"
	a.post("/overrides/new", url.Values{"id": {"tool.tool-description-bash"}, "locale": {"en-US"}, "text": {text}}).want(t, http.StatusSeeOther)
	a.post("/modules/tool.tool-description-bash/override/en-US/publish", url.Values{"revision": {"1"}}).want(t, http.StatusSeeOther)

	r := a.get("/modules/tool.tool-description-bash").want(t, http.StatusOK)
	if got := strings.TrimSpace(r.find("module-upstream").Text()); got != "Upstream: claude-code · Tool Description: Bash · 2.1.240" {
		t.Errorf("upstream line %q", got)
	}
	if n := a.get("/modules/base.identity").want(t, http.StatusOK).find("module-upstream").Length(); n != 0 {
		t.Errorf("a module without upstream shows %d upstream lines", n)
	}
	want := &library.Upstream{Source: "claude-code", Name: "Tool Description: Bash", Version: "2.1.240"}
	d := decode[handlers.APIModuleDetail](t, a.api(http.MethodGet, "/api/v1/modules/tool.tool-description-bash", ""))
	if d.Upstream == nil || *d.Upstream != *want {
		t.Errorf("detail upstream %+v, want %+v", d.Upstream, want)
	}
	for _, m := range decode[[]handlers.APIModule](t, a.api(http.MethodGet, "/api/v1/modules", "")) {
		if got := m.Upstream; m.ID == "tool.tool-description-bash" && (got == nil || *got != *want) || m.ID != "tool.tool-description-bash" && got != nil {
			t.Errorf("%s: upstream %+v", m.ID, got)
		}
	}
	raw := a.api(http.MethodGet, "/api/v1/modules/base.identity", "").Body.String()
	if strings.Contains(raw, "upstream") {
		t.Errorf("a module without upstream has the key: %s", raw)
	}
}

package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
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

package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/library"
)

func TestLibraryListsEveryModuleUnderItsLayer(t *testing.T) {
	t.Parallel()
	a := setup(t)
	r := a.get("/").want(t, http.StatusOK)

	groups := r.find("layer-group")
	if groups.Length() != len(library.Layers) {
		t.Fatalf("%d layer groups, want %d", groups.Length(), len(library.Layers))
	}
	want := map[string][]string{}
	for _, id := range a.lib.IDs() {
		m, _ := a.lib.Any(id)
		want[string(m.Layer)] = append(want[string(m.Layer)], id)
	}
	groups.Each(func(i int, g *goquery.Selection) {
		layer := string(library.Layers[i])
		if got := g.AttrOr("data-layer", ""); got != layer {
			t.Errorf("group %d is %q, want %q (assembly order)", i, got, layer)
		}
		if got := g.Find(`[data-testid="layer-count"]`).Text(); got != strconv.Itoa(len(want[layer])) {
			t.Errorf("layer %s count %q, want %d", layer, got, len(want[layer]))
		}
		var ids []string
		g.Find(`[data-testid="module-row"]`).Each(func(_ int, row *goquery.Selection) {
			ids = append(ids, row.AttrOr("data-id", ""))
			if s := row.AttrOr("data-status", ""); s != "builtin" {
				t.Errorf("%s status %q, want builtin", row.AttrOr("data-id", ""), s)
			}
		})
		if strings.Join(ids, " ") != strings.Join(want[layer], " ") {
			t.Errorf("layer %s lists %v, want %v", layer, ids, want[layer])
		}
	})
	if got, want := r.find("module-row").Length(), len(a.lib.IDs()); got != want {
		t.Errorf("%d rows, want %d", got, want)
	}
	identity := r.doc.Find(`[data-testid="module-row"][data-id="base.identity"]`)
	if got := identity.Find(`[data-testid="module-locale"]`).Text(); got != "en-USzh-CN" {
		t.Errorf("base.identity locales %q, want en-US and zh-CN", got)
	}
	if href := identity.Find("a").AttrOr("href", ""); href != "/modules/base.identity" {
		t.Errorf("base.identity links to %q", href)
	}
}

func TestLibraryFilters(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ids := func(r response) []string {
		var out []string
		r.find("module-row").Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-id", "")) })
		return out
	}

	r := a.get("/?layer=task").want(t, http.StatusOK)
	if n := r.find("layer-group").Length(); n != 1 {
		t.Errorf("layer filter shows %d groups, want 1", n)
	}
	for _, id := range ids(r) {
		if !strings.HasPrefix(id, "task.") {
			t.Errorf("layer=task lists %s", id)
		}
	}
	if len(ids(r)) == 0 {
		t.Error("layer=task lists nothing")
	}

	r = a.get("/?q=IDENTITY").want(t, http.StatusOK)
	if got := ids(r); len(got) == 0 || got[0] != "base.identity" {
		t.Errorf("q=IDENTITY lists %v, want base.identity first", got)
	}
	// The search also reads titles and descriptions in every locale.
	zh := builtinText(t, a.lib, "task.doc-minutes", "zh-CN")
	r = a.get("/?q="+url.QueryEscape(zh.Title)).want(t, http.StatusOK)
	if got := ids(r); !slices.Contains(got, "task.doc-minutes") {
		t.Errorf("q=%s lists %v, want task.doc-minutes", zh.Title, got)
	}

	r = a.get("/?status=overridden").want(t, http.StatusOK)
	if got := ids(r); len(got) != 0 {
		t.Errorf("status=overridden lists %v before any override", got)
	}
	r = a.get("/?locale=zh-CN&status=builtin").want(t, http.StatusOK)
	if got := len(ids(r)); got != len(a.lib.IDs()) {
		t.Errorf("locale=zh-CN lists %d modules, want %d", got, len(a.lib.IDs()))
	}

	// status=draft lists the modules with an unpublished draft.
	if got := ids(a.get("/?status=draft").want(t, http.StatusOK)); len(got) != 0 {
		t.Errorf("status=draft lists %v before any draft", got)
	}
	ident := builtinText(t, a.lib, "base.identity", "en-US")
	a.saveDraft("base.identity", "en-US", withLine(ident.Text, "You are Lumen."), 0)
	if got := ids(a.get("/?status=draft").want(t, http.StatusOK)); !slices.Equal(got, []string{"base.identity"}) {
		t.Errorf("status=draft lists %v, want [base.identity]", got)
	}
	if got := ids(a.get("/?status=draft&locale=zh-CN").want(t, http.StatusOK)); len(got) != 0 {
		t.Errorf("status=draft&locale=zh-CN lists %v, want none (the draft is en-US)", got)
	}
	// A draft in a locale the library lacks makes that locale a filter option.
	a.saveDraft("base.identity", "ja-JP", withLine(ident.Text, "You are Lumen."), 0)
	r = a.get("/?status=draft&locale=ja-JP").want(t, http.StatusOK)
	if got := ids(r); !slices.Equal(got, []string{"base.identity"}) {
		t.Errorf("status=draft&locale=ja-JP lists %v, want [base.identity]", got)
	}
	if r.doc.Find(`select[name="locale"] option[value="ja-JP"]`).Length() != 1 {
		t.Errorf("the locale filter does not offer ja-JP after a ja-JP draft")
	}

	for _, q := range []string{"layer=bogus", "status=bogus", "locale=xx-YY"} {
		r := a.get("/?"+q).want(t, http.StatusUnprocessableEntity)
		if r.find("error-page").Length() != 1 {
			t.Errorf("%s: no error page", q)
		}
	}

	// htmx gets only the list fragment.
	r = a.get("/?layer=base", "HX-Request", "true").want(t, http.StatusOK)
	if strings.Contains(r.Body.String(), "<html") || r.find("layer-group").Length() != 1 {
		t.Errorf("htmx response is not the list fragment:\n%.300s", r.Body.String())
	}
}

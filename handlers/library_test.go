package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/librarytest"
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

// A library of 250 ids is listed 100 rows a page: the pages together list
// every module once, in the order of the unpaged list (layer, then id);
// the counts are those of every module the filter selects, not of the
// page; the pager's links keep the filter; a page past the last shows the
// last, saying so with a link to the first, and a page that is not a number is refused.
func TestLibraryPages(t *testing.T) {
	t.Parallel()
	snap, err := librarytest.Library(250)
	if err != nil {
		t.Fatal(err)
	}
	a := setup(t, snap)
	ids := func(r response) []string {
		var out []string
		r.find("module-row").Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-id", "")) })
		return out
	}
	var want []string
	for _, l := range library.Layers {
		for _, id := range snap.IDs() {
			if m, _ := snap.Any(id); m.Layer == l {
				want = append(want, id)
			}
		}
	}

	var got []string
	for p, rows := range map[int]int{1: 100, 2: 100, 3: 50} {
		r := a.get("/?page="+strconv.Itoa(p)).want(t, http.StatusOK)
		page := ids(r)
		if len(page) != rows {
			t.Errorf("page %d lists %d rows, want %d", p, len(page), rows)
		}
		if got := r.find("page-current").Text(); got != strconv.Itoa(p) {
			t.Errorf("page %d: the pager marks page %q", p, got)
		}
		if got := strings.Join(strings.Fields(r.find("page-range").Text()), " "); got != fmt.Sprintf("%d–%d, page %d of 3", (p-1)*100+1, (p-1)*100+rows, p) {
			t.Errorf("page %d: range %q", p, got)
		}
		// Counts are of the whole library on every page.
		if got := r.doc.Find(`[data-testid="layer-total"][data-name="task"]`).AttrOr("data-n", ""); got != strconv.Itoa(len(slices.DeleteFunc(slices.Clone(want), func(id string) bool { return !strings.HasPrefix(id, "task.") }))) {
			t.Errorf("page %d: task count %s", p, got)
		}
		if got := r.doc.Find(`[data-testid="status-total"][data-name="builtin"]`).AttrOr("data-n", ""); got != "250" {
			t.Errorf("page %d: builtin count %s, want 250", p, got)
		}
		got = append(got, page...)
	}
	slices.SortStableFunc(got, func(x, y string) int {
		return slices.Index(want, x) - slices.Index(want, y)
	})
	if !slices.Equal(got, want) {
		t.Errorf("the three pages list %d ids, want the %d of the library once each", len(got), len(want))
	}
	r := a.get("/?page=2").want(t, http.StatusOK)
	if got := ids(r); !slices.Equal(got, want[100:200]) {
		t.Errorf("page 2 lists %v…, want %v…", got[:3], want[100:103])
	}
	past := a.get("/?page=99").want(t, http.StatusOK)
	if got := ids(past); !slices.Equal(got, want[200:]) {
		t.Errorf("page 99 lists %d rows, want the last page's 50", len(got))
	}
	if got := strings.Join(strings.Fields(past.find("page-past-end").Text()), " "); !strings.HasPrefix(got, "There is no page 99: the list has 3 pages, and the last is shown below.") {
		t.Errorf("page 99 says %q", got)
	}
	if got := past.find("page-first").AttrOr("href", ""); got != "/" {
		t.Errorf("page 99 links back to %q, want /", got)
	}
	if n := r.find("page-past-end").Length(); n != 0 {
		t.Errorf("page 2 says it is past the end")
	}
	for _, p := range []string{"0", "-1", "two"} {
		a.get("/?page="+p).want(t, http.StatusUnprocessableEntity)
	}

	// A filter: the counts are of what it selects, and the pager keeps it.
	r = a.get("/?layer=task&q=invoice").want(t, http.StatusOK)
	var match []string
	for _, id := range want {
		if strings.HasPrefix(id, "task.") && strings.Contains(id, "invoice") {
			match = append(match, id)
		}
	}
	if got := ids(r); !slices.Equal(got, match) {
		t.Errorf("layer=task&q=invoice lists %v, want %v", got, match)
	}
	if got := r.doc.Find(`[data-testid="layer-total"]`).Length(); got != 1 {
		t.Errorf("%d layer counts for one layer", got)
	}
	if r.find("pager").Length() != 0 {
		t.Error("a pager for one page")
	}
	r = a.get("/?q=e&page=2", "HX-Request", "true").want(t, http.StatusOK)
	if strings.Contains(r.Body.String(), "<html") {
		t.Error("htmx gets the whole page")
	}
	next := r.find("page-next")
	if href, hx := next.AttrOr("href", ""), next.AttrOr("hx-get", ""); href != "/?page=3&q=e" || hx != href {
		t.Errorf("next page links to %q (hx-get %q), want /?page=3&q=e", href, hx)
	}
	if href := r.find("page-prev").AttrOr("href", ""); href != "/?q=e" {
		t.Errorf("previous page links to %q, want /?q=e", href)
	}
}

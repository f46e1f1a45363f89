package handlers_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/handlers"
)

func moduleIDs(list []handlers.APIModule) []string {
	ids := make([]string, len(list))
	for i, m := range list {
		ids[i] = m.ID
	}
	return ids
}

// TestAPIModulesFilters: layer, locale, status and q filter the module
// list as on the library page; limit and cursor page it.
func TestAPIModulesFilters(t *testing.T) {
	t.Parallel()
	a := setup(t)
	all := decode[[]handlers.APIModule](t, a.api(http.MethodGet, "/api/v1/modules", ""))
	a.publishAPI("base.identity", "en-US", identityText(t, a, "You are the listing test's assistant."), 0)
	a.putText("/api/v1/overrides/base.behavior?locale=zh-CN", strings.Replace(builtinText(t, a.lib, "base.behavior", "zh-CN").Text, "\n", "\n\n", 1)+"\n草稿。\n", "")

	for _, c := range []struct {
		query string
		want  func(m handlers.APIModule) bool
	}{
		{"layer=task", func(m handlers.APIModule) bool { return m.Layer == "task" }},
		{"locale=zh-cn", func(m handlers.APIModule) bool { return slices.Contains(m.Locales, "zh-CN") }},
		{"status=overridden", func(m handlers.APIModule) bool { return m.ID == "base.identity" }},
		{"status=draft", func(m handlers.APIModule) bool { return m.ID == "base.behavior" }},
		{"status=draft&locale=en-US", func(m handlers.APIModule) bool { return false }},
		{"q=MINUTES", func(m handlers.APIModule) bool {
			return strings.Contains(m.ID, "minutes") || strings.Contains(strings.ToLower(m.Title+m.Description), "minutes")
		}},
		{"layer=base&q=identity", func(m handlers.APIModule) bool { return m.ID == "base.identity" }},
	} {
		rec := a.api(http.MethodGet, "/api/v1/modules?"+c.query, "")
		got := decode[[]handlers.APIModule](t, rec)
		var want []string
		for _, m := range all {
			if c.want(m) {
				want = append(want, m.ID)
			}
		}
		if rec.Code != http.StatusOK || !slices.Equal(moduleIDs(got), want) && len(want)+len(got) > 0 {
			t.Errorf("?%s: %d %v, want %v", c.query, rec.Code, moduleIDs(got), want)
		}
	}

	// Pages of 7 put together are the whole list.
	var paged []string
	next := "/api/v1/modules?limit=7"
	for pages := 0; next != ""; pages++ {
		if pages > len(all) {
			t.Fatal("the pages do not end")
		}
		rec := a.api(http.MethodGet, next, "")
		page := decode[[]handlers.APIModule](t, rec)
		if rec.Code != http.StatusOK || len(page) > 7 || len(page) == 0 {
			t.Fatalf("%s: %d, %d modules", next, rec.Code, len(page))
		}
		paged = append(paged, moduleIDs(page)...)
		next = ""
		if link := rec.Header().Get("Link"); link != "" {
			cursor := rec.Header().Get(handlers.HeaderNextCursor)
			next = strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
			if cursor == "" || !strings.Contains(next, "cursor="+cursor) || !strings.Contains(next, "limit=7") {
				t.Errorf("Link %q, cursor %q", link, cursor)
			}
		}
	}
	if !slices.Equal(paged, moduleIDs(all)) {
		t.Errorf("paged %v\nwant %v", paged, moduleIDs(all))
	}

	wantError(t, "layer", a.api(http.MethodGet, "/api/v1/modules?layer=nope", ""), http.StatusUnprocessableEntity, "invalid_request", "layer", "nope")
	wantError(t, "status", a.api(http.MethodGet, "/api/v1/modules?status=nope", ""), http.StatusUnprocessableEntity, "invalid_request", "status", "builtin")
	wantError(t, "locale", a.api(http.MethodGet, "/api/v1/modules?locale=x_y!", ""), http.StatusUnprocessableEntity, "invalid_request", "locale")
	wantError(t, "limit 0", a.api(http.MethodGet, "/api/v1/modules?limit=0", ""), http.StatusUnprocessableEntity, "invalid_request", "limit", `"0" is not a whole number from 1 to 500`)
	wantError(t, "limit abc", a.api(http.MethodGet, "/api/v1/modules?limit=abc", ""), http.StatusUnprocessableEntity, "invalid_request", "limit", `"abc" is not a whole number from 1 to 500`)
	wantError(t, "limit 501", a.api(http.MethodGet, "/api/v1/modules?limit=501", ""), http.StatusUnprocessableEntity, "invalid_request", "limit", `"501" is not a whole number from 1 to 500`)
	wantError(t, "cursor", a.api(http.MethodGet, "/api/v1/modules?cursor=***", ""), http.StatusUnprocessableEntity, "invalid_request", "cursor")
}

// TestAPIOverridesAndProfiles: GET /api/v1/overrides lists overrides and
// drafts with their status, revision and drift; GET /api/v1/profiles the
// profiles.
func TestAPIOverridesAndProfiles(t *testing.T) {
	t.Parallel()
	a := setup(t)
	if got := decode[[]handlers.APIOverrideEntry](t, a.api(http.MethodGet, "/api/v1/overrides", "")); len(got) != 0 {
		t.Errorf("no overrides: %+v", got)
	}
	a.publishAPI("base.identity", "en-US", identityText(t, a, "You are the first listed assistant."), 0)
	a.putText(identityURL, identityText(t, a, "You are the second listed assistant."), "1")
	a.putText("/api/v1/overrides/base.identity?locale=zh-CN", strings.Replace(builtinText(t, a.lib, "base.identity", "zh-CN").Text, "\n", "\n\n", 1)+"\n草稿。\n", "")

	list := decode[[]handlers.APIOverrideEntry](t, a.api(http.MethodGet, "/api/v1/overrides", ""))
	actor := handlers.TokenActor(testToken)
	if len(list) != 2 {
		t.Fatalf("overrides: %+v", list)
	}
	if e := list[0]; e.ID != "base.identity" || e.Locale != "en-US" || e.Kind != "override" || e.Status != "draft" || e.Revision != 2 ||
		e.PublishedRevision != 1 || e.Drifted || e.Drift != nil || e.Broken || e.Author != actor || e.UpdatedAt.IsZero() {
		t.Errorf("en-US: %+v", e)
	}
	if e := list[1]; e.Locale != "zh-CN" || e.Status != "draft" || e.Revision != 1 || e.PublishedRevision != 0 {
		t.Errorf("zh-CN: %+v", e)
	}
	if got := decode[[]handlers.APIOverrideEntry](t, a.api(http.MethodGet, "/api/v1/overrides?status=published", "")); len(got) != 0 {
		t.Errorf("published heads: %+v", got)
	}
	if got := decode[[]handlers.APIOverrideEntry](t, a.api(http.MethodGet, "/api/v1/overrides?status=draft", "")); len(got) != 2 {
		t.Errorf("drafts: %+v", got)
	}
	wantError(t, "status", a.api(http.MethodGet, "/api/v1/overrides?status=nope", ""), http.StatusUnprocessableEntity, "invalid_request", "status")

	a.post("/profiles", profileForm("support", "base.identity", "style.learning")).want(t, http.StatusSeeOther)
	rec := a.api(http.MethodGet, "/api/v1/profiles", "")
	ps := decode[[]handlers.APIProfile](t, rec)
	if rec.Code != http.StatusOK || rec.Header().Get("ETag") == "" {
		t.Errorf("profiles: %d, ETag %q", rec.Code, rec.Header().Get("ETag"))
	}
	i := slices.IndexFunc(ps, func(p handlers.APIProfile) bool { return p.ID == "support" })
	if i < 0 || !slices.Equal(ps[i].PromptModules, []string{"base.identity", "style.learning"}) || ps[i].SkillBudget != 3000 || ps[i].UpdatedAt.IsZero() {
		t.Errorf("profiles: %+v", ps)
	}
	if !slices.IsSortedFunc(ps, func(x, y handlers.APIProfile) int { return strings.Compare(x.ID, y.ID) }) {
		t.Errorf("profiles not sorted by id: %+v", ps)
	}
}

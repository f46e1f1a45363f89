package handlers_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// TestPagesShowOnlyWhatTheRoleMayUse walks every page that offers a
// change as a viewer, an editor and an admin: a viewer sees none of the
// edit actions (they would answer 403), an editor sees them all, and
// only an admin sees the users and tokens pages in the navigation.
func TestPagesShowOnlyWhatTheRoleMayUse(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	before := setupOn(t, dbURL)
	newUser(t, before.store, "vera", domain.RoleViewer)
	newUser(t, before.store, "ed", domain.RoleEditor)
	// base.identity en-US: two published revisions (one to restore),
	// drifted below; base.caution en-US: a draft to publish or discard;
	// one profile.
	before.saveOverride("base.identity", "en-US", identityText(t, before, "You are the first assistant."), 0)
	before.saveOverride("base.identity", "en-US", identityText(t, before, "You are the second assistant."), 1)
	before.saveDraft("base.caution", "en-US", withLine(builtinText(t, before.lib, "base.caution", "en-US").Text, "Be careful."), 0)
	before.post("/profiles", profileForm("support", "base.identity")).want(t, http.StatusSeeOther)

	after := setupOn(t, dbURL, bumpedLibrary(t, "base.identity"))
	clients := map[string]*app{domain.RoleViewer: after.as("vera"), domain.RoleEditor: after.as("ed"), domain.RoleAdmin: after}

	// Each check: a page, an element on it, and the least role that
	// sees it.
	checks := []struct {
		page, sel, role string
	}{
		{"/", `[data-testid="new-user-module"]`, domain.RoleEditor},
		{"/modules/base.identity", `[data-locale="en-US"] [data-testid="edit-override"]`, domain.RoleEditor},
		{"/modules/base.identity", `[data-locale="en-US"] [data-testid="delete-override"]`, domain.RoleEditor},
		{"/modules/base.identity", `[data-locale="zh-CN"] [data-testid="create-override"]`, domain.RoleEditor},
		{"/modules/base.identity", `[data-testid="override-new-locale"]`, domain.RoleEditor},
		{"/modules/base.identity", `[data-locale="en-US"] [data-testid="history-link"]`, domain.RoleViewer},
		{"/modules/base.identity", `[data-testid="review-drift"]`, domain.RoleViewer},
		{"/modules/base.caution", `[data-testid="draft"]`, domain.RoleViewer},
		{"/modules/base.caution", `[data-testid="publish-draft"]`, domain.RoleEditor},
		{"/modules/base.caution", `[data-testid="discard-draft"]`, domain.RoleEditor},
		{"/modules/base.identity/override/en-US/history", `[data-testid="revision"]`, domain.RoleViewer},
		{"/modules/base.identity/override/en-US/history", `[data-testid="restore-form"]`, domain.RoleEditor},
		{"/modules/base.identity/override/en-US/history", `[data-testid="edit-override"]`, domain.RoleEditor},
		{"/drift", `[data-testid="review-link"]`, domain.RoleViewer},
		{"/drift", `[data-testid="drift-row"] [data-testid="edit-override"]`, domain.RoleEditor},
		{"/drift/base.identity/en-US", `[data-testid="three-texts"]`, domain.RoleViewer},
		{"/drift/base.identity/en-US", `[data-testid="review-actions"]`, domain.RoleEditor},
		{"/profiles", `[data-testid="profile-row"]`, domain.RoleViewer},
		{"/profiles", `[data-testid="new-profile"]`, domain.RoleEditor},
		{"/profiles/support", `[data-testid="save-profile"]`, domain.RoleEditor},
		{"/profiles/support", `[data-testid="delete-profile"]`, domain.RoleEditor},
		{"/profiles/support", `[data-testid="profile-form"] fieldset:not([disabled]) input[name="name"]`, domain.RoleEditor},
		{"/", `[data-testid="topnav"] a[href="/users"]`, domain.RoleAdmin},
		{"/", `[data-testid="topnav"] a[href="/tokens"]`, domain.RoleAdmin},
	}
	pages := map[string]map[string]response{}
	for role, c := range clients {
		pages[role] = map[string]response{}
		for _, ch := range checks {
			if _, ok := pages[role][ch.page]; !ok {
				pages[role][ch.page] = c.get(ch.page).want(t, http.StatusOK)
			}
		}
	}
	for _, ch := range checks {
		for role := range clients {
			got := pages[role][ch.page].doc.Find(ch.sel).Length() > 0
			if want := domain.RoleAtLeast(role, ch.role); got != want {
				t.Errorf("%s on %s: %s shown %v, want %v (needs %s)", role, ch.page, ch.sel, got, want, ch.role)
			}
		}
	}

	// What a viewer sees instead: the fields of a profile, not editable,
	// and a word on the review page; and the hidden actions are refused.
	viewer := clients[domain.RoleViewer]
	prof := pages[domain.RoleViewer]["/profiles/support"]
	if v := prof.doc.Find(`fieldset[disabled] input[name="name"]`).AttrOr("value", ""); v != "Support desk" {
		t.Errorf("viewer's profile page shows the name %q in a disabled fieldset, want Support desk", v)
	}
	if pages[domain.RoleViewer]["/drift/base.identity/en-US"].find("review-read-only").Length() != 1 {
		t.Error("viewer's drift review does not say why there are no actions")
	}
	viewer.get("/modules/base.identity/override/zh-CN").want(t, http.StatusForbidden)
	viewer.post("/drift/base.identity/en-US", url.Values{"action": {"keep-mine"}}).want(t, http.StatusForbidden)
	clients[domain.RoleEditor].get("/users").want(t, http.StatusForbidden)
}

// TestPasswordRuleShownBesideTheField checks that the setup, account
// and users pages state the store's rule, and that the minimum counts
// characters, not bytes.
func TestPasswordRuleShownBesideTheField(t *testing.T) {
	t.Parallel()
	a := setup(t)
	minChars, maxBytes := strconv.Itoa(domain.MinPasswordLength), strconv.Itoa(domain.MaxPasswordBytes)
	wantRule := func(page string, r response) {
		t.Helper()
		rule := r.find("password-rule").Text()
		if !strings.Contains(rule, "at least "+minChars+" characters") || !strings.Contains(rule, "at most "+maxBytes+" bytes") {
			t.Errorf("%s: password rule %q, want at least %s characters and at most %s bytes", page, rule, minChars, maxBytes)
		}
	}
	acct := a.get("/account/password").want(t, http.StatusOK)
	wantRule("account", acct)
	if id := acct.doc.Find(`input[name="password"]`).AttrOr("aria-describedby", ""); id != acct.find("password-rule").AttrOr("id", "") || id == "" {
		t.Errorf("account: the new-password field is described by %q, not the rule", id)
	}
	wantRule("users", a.get("/users").want(t, http.StatusOK))

	added := a.post("/users", url.Values{"name": {"newbie"}, "role": {domain.RoleViewer}}).want(t, http.StatusOK)
	link := added.find("setup-link").Find("code").Text()
	path := link[strings.Index(link, "/setup/"):]
	anon := a.anonymous()
	wantRule("setup", anon.get(path).want(t, http.StatusOK))

	// Five two-byte characters are ten bytes but five characters: refused,
	// the rule shown again with the error and the name kept.
	short := strings.Repeat("é", domain.MinPasswordLength/2)
	r := anon.post(path, url.Values{"password": {short}, "password2": {short}}).want(t, http.StatusUnprocessableEntity)
	if msg := r.find("setup-error").Text(); !strings.Contains(msg, "at least "+minChars+" characters") {
		t.Errorf("setup error %q, want the minimum", msg)
	}
	wantRule("setup after an error", r)
	long := strings.Repeat("é", domain.MinPasswordLength)
	anon.post(path, url.Values{"password": {long}, "password2": {long}}).want(t, http.StatusSeeOther)
}

// TestLibraryEmptyStates checks that a filter without a match shows one
// empty state naming the filter, with a link that clears it, in the page
// and in the htmx fragment; unfiltered, every layer shows.
func TestLibraryEmptyStates(t *testing.T) {
	t.Parallel()
	a := setup(t)
	for _, tc := range []struct {
		query, want string
		header      []string
	}{
		{"q=no-such-module", "No module matches \u201cno-such-module\u201d.", nil},
		{"q=no-such-module", "No module matches \u201cno-such-module\u201d.", []string{"HX-Request", "true"}},
		{"layer=style&status=drifted", "No module matches layer style, status drifted.", nil},
		{"q=zzz&locale=zh-CN", "No module matches \u201czzz\u201d in locale zh-CN.", nil},
	} {
		r := a.get("/?"+tc.query, tc.header...).want(t, http.StatusOK)
		empty := r.find("library-empty")
		if empty.Length() != 1 {
			t.Errorf("%s: %d empty states, want 1", tc.query, empty.Length())
			continue
		}
		if got := strings.Join(strings.Fields(empty.Find("p").First().Text()), " "); got != tc.want {
			t.Errorf("%s: empty state %q, want %q", tc.query, got, tc.want)
		}
		if href := r.find("clear-filter").AttrOr("href", ""); href != "/" {
			t.Errorf("%s: clear link %q, want /", tc.query, href)
		}
		if n := r.find("layer-group").Length() + r.find("layer-empty").Length(); n != 0 {
			t.Errorf("%s: %d layer groups or per-layer empty states beside the one empty state", tc.query, n)
		}
	}

	// A filter with matches shows only the layers that have some.
	r := a.get("/?q=identity").want(t, http.StatusOK)
	if r.find("library-empty").Length() != 0 || r.find("layer-empty").Length() != 0 {
		t.Error("q=identity shows an empty state though base.identity matches")
	}
	r.find("layer-group").Each(func(_ int, g *goquery.Selection) {
		if g.Find(`[data-testid="module-row"]`).Length() == 0 {
			t.Errorf("q=identity shows the empty layer %s", g.AttrOr("data-layer", ""))
		}
	})
	if r := a.get("/").want(t, http.StatusOK); r.find("library-empty").Length() != 0 {
		t.Error("the unfiltered library shows the no-match state")
	}
}

// Inviting a name that differs only in case from a pending setup link is
// refused (422) under the name field, the form keeping what was typed,
// and no second link is shown.
func TestAddUserNameTakenIgnoringCase(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.post("/users", url.Values{"name": {"alice"}, "role": {domain.RoleViewer}}).want(t, http.StatusOK)
	r := a.post("/users", url.Values{"name": {"ALICE"}, "role": {domain.RoleEditor}}).want(t, http.StatusUnprocessableEntity)
	if msg := r.find("user-add-form").Find(`[data-testid="user-add-error"]`).Text(); !strings.Contains(msg, "a setup link for alice is pending already") {
		t.Errorf("add error %q, want the pending link named", msg)
	}
	form := r.find("user-add-form")
	if form.Find(`input[name="name"]`).AttrOr("value", "") != "ALICE" || form.Find(`option[selected]`).AttrOr("value", "") != domain.RoleEditor {
		t.Error("the form lost what was typed")
	}
	if r.find("setup-link").Length() != 0 || r.find("setup-link-row").Length() != 1 {
		t.Errorf("links: shown %d, pending %d; want none shown and alice's pending", r.find("setup-link").Length(), r.find("setup-link-row").Length())
	}
}

// An admin's own row on the users page shows their role as text with a
// note, not a role form the server would refuse; every other row keeps
// its form.
func TestUsersPageOwnRoleIsNotAForm(t *testing.T) {
	t.Parallel()
	a := setup(t)
	newUser(t, a.store, "vera", domain.RoleViewer)
	newUser(t, a.store, "boss", domain.RoleAdmin)
	r := a.get("/users").want(t, http.StatusOK)
	row := func(name string) *goquery.Selection {
		t.Helper()
		s := r.doc.Find(`[data-testid="user-row"][data-name="` + name + `"]`)
		if s.Length() != 1 {
			t.Fatalf("%d rows for %s, want 1", s.Length(), name)
		}
		return s
	}
	own := row(testUser)
	if n := own.Find(`[data-testid="role-form"], form[action$="/role"], select[name="role"]`).Length(); n != 0 {
		t.Errorf("own row has %d role form elements, want none", n)
	}
	if got := own.Find(`[data-testid="own-role"]`).Text(); got != domain.RoleAdmin {
		t.Errorf("own role shown as %q, want %q", got, domain.RoleAdmin)
	}
	if got := own.Find(`[data-testid="own-role-note"]`).Text(); got != "(you — another admin can change your role)" {
		t.Errorf("own role note %q", got)
	}
	for name, role := range map[string]string{"vera": domain.RoleViewer, "boss": domain.RoleAdmin} {
		form := row(name).Find(`[data-testid="role-form"]`)
		if form.Length() != 1 || form.AttrOr("action", "") != "/users/"+name+"/role" {
			t.Errorf("%s: %d role forms (action %q), want one posting to /users/%s/role", name, form.Length(), form.AttrOr("action", ""), name)
			continue
		}
		if got := form.Find(`option[selected]`).AttrOr("value", ""); got != role {
			t.Errorf("%s: role form selects %q, want %q", name, got, role)
		}
		if row(name).Find(`[data-testid="own-role-note"]`).Length() != 0 {
			t.Errorf("%s: another user's row has the own-role note", name)
		}
	}
}

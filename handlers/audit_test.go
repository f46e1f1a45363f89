package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/domain"
)

// auditRows returns the audit rows of a page as "actor action subject
// id locale revision", in page order.
func auditRows(r response) []string {
	var rows []string
	r.find("audit-row").Each(func(_ int, s *goquery.Selection) {
		cell := func(id string) string {
			return strings.TrimSpace(s.Find(`[data-testid="` + id + `"]`).Text())
		}
		rows = append(rows, strings.Join([]string{cell("audit-actor"), cell("audit-action"), cell("audit-subject"),
			cell("audit-subject-id"), cell("audit-locale"), cell("audit-revision")}, " "))
	})
	return rows
}

// withLine is a module text with one more body line.
func withLine(text, line string) string {
	return strings.Replace(text, "\n---\n", "\n---\n"+line+"\n", 1)
}

func TestAuditPageListsChangesNewestFirst(t *testing.T) {
	t.Parallel()
	a := setup(t)
	bg := context.Background()
	alice, bob := domain.WithActor(bg, "alice"), domain.WithActor(bg, "bob")
	ident := builtinText(t, a.lib, "base.identity", "en-US")
	o := domain.Override{ModuleID: "base.identity", Locale: "en-US", Title: ident.Title, Version: ident.Version,
		BasedOnVersion: ident.Version, BaseSnapshot: ident.Text, BaseHash: domain.TextHash(ident.Text)}
	first := withLine(ident.Text, "You are Lumen.")
	o.Text = first
	if _, err := a.store.SaveOverride(alice, o, 0); err != nil {
		t.Fatal(err)
	}
	second := withLine(ident.Text, "You are Lumen, <the docs assistant> & more.")
	o.Text = second
	if _, err := a.store.SaveOverride(bob, o, 1); err != nil {
		t.Fatal(err)
	}
	if err := a.store.DeleteOverride(alice, "base.identity", "en-US", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.CreateProfile(bob, domain.Profile{ID: "support", Name: "Support", Locale: "en-US", TimeZone: "UTC"}); err != nil {
		t.Fatal(err)
	}

	r := a.get("/audit").want(t, http.StatusOK)
	if a := r.doc.Find(`[data-testid="topnav"] a.active`).Text(); a != "Audit" {
		t.Errorf("active nav entry %q, want Audit", a)
	}
	rows := auditRows(r)
	want := []string{
		"bob create profile support  ",
		"alice delete override base.identity en-US 3",
		"bob save override base.identity en-US 2",
		"alice create override base.identity en-US 1",
	}
	if len(rows) < len(want) || strings.Join(rows[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Fatalf("newest rows:\n%s\nwant first:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	// Newest first all the way down (the seeded scenarios come before).
	prev := int64(1 << 62)
	r.find("audit-row").Each(func(_ int, s *goquery.Selection) {
		id, _ := strconv.ParseInt(s.AttrOr("data-id", ""), 10, 64)
		if id >= prev {
			t.Errorf("row %d after row %d: not newest first", id, prev)
		}
		prev = id
	})
	if href := r.find("audit-row").Eq(1).Find(`[data-testid="audit-subject-id"] a`).AttrOr("href", ""); href != "/modules/base.identity" {
		t.Errorf("override id links to %q", href)
	}
	if at := r.find("audit-at").First().Text(); !strings.HasSuffix(at, " UTC") || len(at) != len("2006-01-02 15:04:05 UTC") {
		t.Errorf("time %q, want YYYY-MM-DD hh:mm:ss UTC", at)
	}

	// The save shows both texts, as text.
	save := r.doc.Find(`[data-testid="audit-detail"][data-id="` + r.find("audit-row").Eq(2).AttrOr("data-id", "") + `"]`)
	if got := save.Find(`[data-testid="audit-before"] [data-testid="audit-text"]`).Text(); got != first {
		t.Errorf("before:\n%q\nwant\n%q", got, first)
	}
	if got := save.Find(`[data-testid="audit-after"] [data-testid="audit-text"]`).Text(); got != second {
		t.Errorf("after:\n%q\nwant\n%q", got, second)
	}
	if !strings.Contains(r.Body.String(), "You are Lumen, &lt;the docs assistant&gt; &amp; more.") {
		t.Error("the after text is not escaped as text")
	}
	// A profile's JSON is shown one field per line.
	if got := r.find("audit-detail").Eq(0).Find(`[data-testid="audit-after"] [data-testid="audit-text"]`).Text(); !strings.HasPrefix(got, "{\n  \"id\": \"support\",\n") {
		t.Errorf("profile after:\n%s", got)
	}
	// The create has nothing before, the delete nothing after.
	if r.find("audit-detail").Eq(3).Find(`[data-testid="audit-before"] [data-testid="audit-text-empty"]`).Length() != 1 ||
		r.find("audit-detail").Eq(1).Find(`[data-testid="audit-after"] [data-testid="audit-text-empty"]`).Length() != 1 {
		t.Error("the create's before or the delete's after is not shown as empty")
	}

	// Filters select exactly, and the form keeps their values.
	filters := []struct {
		query string
		want  []string
	}{
		{"actor=bob", []string{"bob create profile support  ", "bob save override base.identity en-US 2"}},
		{"action=delete&subject=override&subject_id=base.identity", []string{"alice delete override base.identity en-US 3"}},
		{"actor=alice&action=create", []string{"alice create override base.identity en-US 1"}},
		{"subject=profile", []string{"bob create profile support  "}},
		{"subject_id=base.caution", nil},
	}
	for _, f := range filters {
		r := a.get("/audit?"+f.query).want(t, http.StatusOK)
		if got := auditRows(r); strings.Join(got, "\n") != strings.Join(f.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", f.query, strings.Join(got, "\n"), strings.Join(f.want, "\n"))
		}
		if f.want == nil {
			if empty := strings.Join(strings.Fields(r.find("audit-empty").Text()), " "); empty != "No audit entries match these filters. Clear the filters to see every entry." {
				t.Errorf("%s: empty state %q", f.query, empty)
			}
			if href := r.find("clear-filter").AttrOr("href", ""); href != "/audit" {
				t.Errorf("%s: the empty state's clear link goes to %q, want /audit", f.query, href)
			}
		}
	}
	kept := a.get("/audit?actor=bob&action=save&subject=override&subject_id=base.identity").want(t, http.StatusOK)
	for name, want := range map[string]string{"actor": "bob", "action": "save", "subject_id": "base.identity"} {
		if got := kept.doc.Find(`[data-testid="audit-filters"] input[name="`+name+`"]`).AttrOr("value", ""); got != want {
			t.Errorf("filter %s keeps %q, want %q", name, got, want)
		}
	}
	if got := kept.doc.Find(`select[name="subject"] option[selected]`).AttrOr("value", ""); got != "override" {
		t.Errorf("subject filter keeps %q", got)
	}

	a.get("/audit?subject=no-such-subject").want(t, http.StatusUnprocessableEntity)
	a.get("/audit?before=abc").want(t, http.StatusUnprocessableEntity)
}

func TestAuditPagePagesAndFoldsLongTexts(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ctx := domain.WithActor(context.Background(), "dave")
	ident := builtinText(t, a.lib, "base.identity", "en-US")
	o := domain.Override{ModuleID: "base.identity", Locale: "en-US", Title: ident.Title, Version: ident.Version,
		BasedOnVersion: ident.Version, BaseSnapshot: ident.Text}
	const saves = 53
	var long strings.Builder
	for i := range 40 {
		fmt.Fprintf(&long, "Rule %d: keep it short.\n", i+1)
	}
	for i := range saves {
		o.Text = withLine(ident.Text, fmt.Sprintf("Save %d.\n%s", i+1, long.String()))
		if _, err := a.store.SaveOverride(ctx, o, i); err != nil {
			t.Fatal(err)
		}
	}

	r := a.get("/audit?actor=dave").want(t, http.StatusOK)
	if n := r.find("audit-row").Length(); n != 50 {
		t.Fatalf("first page has %d rows, want 50", n)
	}
	if got := r.find("audit-revision").First().Text(); strings.TrimSpace(got) != strconv.Itoa(saves) {
		t.Errorf("first row is revision %s, want %d", got, saves)
	}
	if r.find("audit-newest").Length() != 0 {
		t.Error("the first page links to the newest page")
	}
	last := r.find("audit-row").Last().AttrOr("data-id", "")
	older := r.find("audit-older").AttrOr("href", "")
	if want := "/audit?actor=dave&before=" + last; older != want {
		t.Fatalf("Older links to %q, want %q", older, want)
	}

	// A long text is folded after 20 lines; the rest is one click away.
	after := r.find("audit-detail").First().Find(`[data-testid="audit-after"]`)
	head, rest := after.Find(`[data-testid="audit-text"]`).Text(), after.Find(`[data-testid="audit-text-more"]`).Text()
	if strings.Count(head, "\n") != 20 || head+rest != withLine(ident.Text, fmt.Sprintf("Save %d.\n%s", saves, long.String())) {
		t.Errorf("folded text: %d head lines, head+rest equal to the text: %v", strings.Count(head, "\n"), head+rest == o.Text)
	}
	if s := strings.TrimSpace(after.Find(`[data-testid="audit-text-rest"] summary`).Text()); !strings.HasSuffix(s, "more lines") {
		t.Errorf("fold summary %q", s)
	}

	p2 := a.get(older).want(t, http.StatusOK)
	if got := auditRows(p2); len(got) != 3 || got[0] != "dave save override base.identity en-US 3" || got[2] != "dave create override base.identity en-US 1" {
		t.Errorf("second page:\n%s", strings.Join(got, "\n"))
	}
	if p2.find("audit-older").Length() != 0 {
		t.Error("the last page links to an older one")
	}
	if href := p2.find("audit-newest").AttrOr("href", ""); href != "/audit?actor=dave" {
		t.Errorf("Newest links to %q", href)
	}
	if v := p2.doc.Find(`input[name="actor"]`).AttrOr("value", ""); v != "dave" {
		t.Errorf("second page's actor filter %q", v)
	}
}

package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

const historyPath = "/modules/base.identity/override/en-US/history"

func TestHistoryListsRevisionsWithDiffs(t *testing.T) {
	t.Parallel()
	a := setup(t)
	textA := identityText(t, a, "You are revision A.")
	textB := identityText(t, a, "You are revision B.")
	textC := strings.Replace(textB, lineClosing, "Closing changed in C.", 1)
	a.saveOverride("base.identity", "en-US", textA, 0)
	a.saveOverride("base.identity", "en-US", textB, 1)
	a.saveOverride("base.identity", "en-US", textC, 2)

	if href := a.get("/modules/base.identity").find("history-link").First().AttrOr("href", ""); href != historyPath {
		t.Errorf("module page history link %q", href)
	}
	r := a.get(historyPath).want(t, http.StatusOK)
	revs := r.find("revision")
	var got []string
	revs.Each(func(_ int, s *goquery.Selection) {
		got = append(got, s.AttrOr("data-revision", "")+":"+s.AttrOr("data-action", ""))
	})
	if want := "3:save 2:save 1:create"; strings.Join(got, " ") != want {
		t.Fatalf("revisions %v, want %s", got, want)
	}
	rev3, rev2, rev1 := revs.Eq(0), revs.Eq(1), revs.Eq(2)
	// Revision 3 changed the closing line only, with the opening folded away.
	if del, ins := kindText(rev3, "delete"), kindText(rev3, "insert"); !strings.HasPrefix(del, lineClosing) || !strings.HasPrefix(ins, "Closing changed in C. from") {
		t.Errorf("revision 3 diff: -%q +%q", del, ins)
	}
	if rev3.Find(`[data-testid="diff-folded"]`).Length() == 0 {
		t.Error("revision 3: no unchanged run folded")
	}
	if plus, minus := rev3.Find(`[data-testid="revision-plus"]`).Text(), rev3.Find(`[data-testid="revision-minus"]`).Text(); plus != "+1" || minus != "−1" {
		t.Errorf("revision 3 counts %s %s", plus, minus)
	}
	if del, ins := kindText(rev2, "delete"), kindText(rev2, "insert"); del != "You are revision A." || ins != "You are revision B." {
		t.Errorf("revision 2 diff: -%q +%q", del, ins)
	}
	// The first revision is compared with the builtin it was copied from.
	if del, ins := kindText(rev1, "delete"), kindText(rev1, "insert"); !strings.HasPrefix(del, lineOpening) || ins != "You are revision A." {
		t.Errorf("revision 1 diff: -%q +%q", del, ins)
	}
	if !strings.Contains(rev1.Text(), "the builtin v1 it was based on") {
		t.Error("revision 1 does not say it is compared with the builtin")
	}
	if rev3.Find(`[data-testid="restore"]`).Length() != 0 || rev2.Find(`[data-testid="restore"]`).Length() != 1 || rev1.Find(`[data-testid="restore"]`).Length() != 1 {
		t.Error("restore buttons: want them on every revision but the current one")
	}
	if base := rev1.Find(`input[name="base"]`).AttrOr("value", ""); base != "3" {
		t.Errorf("restore base %q, want the head 3", base)
	}

	// Restore revision 1: a new revision 4 with its text.
	restored := a.post("/modules/base.identity/override/en-US/restore", url.Values{"revision": {"1"}, "base": {"3"}}).want(t, http.StatusSeeOther)
	if loc := restored.Header().Get("Location"); loc != "/modules/base.identity#locale-en-US" {
		t.Errorf("restore leads to %q, want the en-US card of the module page", loc)
	}
	if id := a.follow(restored).doc.Find(`[data-testid="locale"][data-locale="en-US"]`).AttrOr("id", ""); id != "locale-en-US" {
		t.Errorf("the en-US card's id is %q, want locale-en-US", id)
	}
	if f := a.follow(restored).find("flash").Text(); !strings.Contains(f, "Revision 1") || !strings.Contains(f, "revision 4") {
		t.Errorf("flash %q", f)
	}
	o, err := a.store.GetOverride(context.Background(), "base.identity", "en-US")
	if err != nil || o.Revision != 4 || o.Text != textA {
		t.Fatalf("after restore: revision %d, text is revision 1's %v (%v)", o.Revision, o.Text == textA, err)
	}
	r = a.get(historyPath).want(t, http.StatusOK)
	head := r.find("revision").First()
	if head.AttrOr("data-revision", "") != "4" || head.AttrOr("data-action", "") != "restore" {
		t.Errorf("head after restore: %s %s", head.AttrOr("data-revision", ""), head.AttrOr("data-action", ""))
	}
	if audit := a.auditOf(t, "restore"); len(audit) != 1 || audit[0].Actor != testUser || audit[0].Before != textC || audit[0].After != textA {
		t.Errorf("restore audit: %+v", audit)
	}

	// A restore based on a page older than the head is refused with 409.
	r = a.post("/modules/base.identity/override/en-US/restore", url.Values{"revision": {"2"}, "base": {"3"}}).want(t, http.StatusConflict)
	if !strings.Contains(r.find("alert").Text(), "revision 4") || r.find("revision").Length() != 4 {
		t.Errorf("409 page: %q with %d revisions", r.find("alert").Text(), r.find("revision").Length())
	}
	if o, _ := a.store.GetOverride(context.Background(), "base.identity", "en-US"); o.Revision != 4 {
		t.Errorf("a stale restore saved revision %d", o.Revision)
	}
	a.post("/modules/base.identity/override/en-US/restore", url.Values{"revision": {"9"}, "base": {"4"}}).want(t, http.StatusNotFound)
}

func TestHistoryAfterDelete(t *testing.T) {
	t.Parallel()
	a := setup(t)
	if r := a.get(historyPath).want(t, http.StatusOK); r.find("no-history").Length() != 1 {
		t.Error("a builtin never overridden shows a history")
	}
	a.get("/modules/base.nope/override/en-US/history").want(t, http.StatusNotFound)
	if loc := a.get("/modules/base.identity/override/en-us/history").want(t, http.StatusMovedPermanently).Header().Get("Location"); loc != historyPath {
		t.Errorf("redirect to %q", loc)
	}

	text := identityText(t, a, "You are the deleted one.")
	a.saveOverride("base.identity", "en-US", text, 0)
	a.post("/modules/base.identity/override/en-US/delete", url.Values{"revision": {"1"}}).want(t, http.StatusSeeOther)
	r := a.get(historyPath).want(t, http.StatusOK)
	head := r.find("revision").First()
	if head.AttrOr("data-action", "") != "delete" || head.Find(`[data-testid="revision-removed"]`).Length() != 1 {
		t.Fatalf("head after delete: %s", head.AttrOr("data-action", ""))
	}
	// The deleted text comes back by restoring it.
	a.post("/modules/base.identity/override/en-US/restore", url.Values{"revision": {"1"}, "base": {"2"}}).want(t, http.StatusSeeOther)
	if o, err := a.store.GetOverride(context.Background(), "base.identity", "en-US"); err != nil || o.Text != text || o.Revision != 3 {
		t.Errorf("restored after delete: revision %d (%v)", o.Revision, err)
	}
	// A delete has no text to restore.
	a.post("/modules/base.identity/override/en-US/restore", url.Values{"revision": {"2"}, "base": {"3"}}).want(t, http.StatusUnprocessableEntity)
}

// kindText is the text of the diff lines of kind in sel, joined by "|".
func kindText(sel *goquery.Selection, kind string) string {
	var out []string
	sel.Find(`[data-testid="diff-line"][data-kind="` + kind + `"] .dt`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, s.Text())
	})
	return strings.Join(out, "|")
}

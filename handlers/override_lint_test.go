package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The editor shows the module checklist of the text: after a save
// (which it does not block), on the Check button (which stores nothing),
// and when it opens on a stored text.
func TestOverrideChecklistWarnings(t *testing.T) {
	t.Parallel()
	a := setup(t)
	const editor = "/modules/base.identity/override/en-US"
	// Line 8, the first sentence, names a role but not what it answers
	// for: rule 1. The rest of the builtin text follows the checklist.
	short := identityText(t, a, "You are Quill.")

	// Check: nothing stored, the warning under line 8, the text kept.
	r := a.post(editor, url.Values{"text": {short}, "revision": {"0"}, "check": {"1"}}).want(t, http.StatusOK)
	if got := r.find("notice").Text(); !strings.Contains(got, "Checked, nothing was saved") || !strings.Contains(got, "1 warning") {
		t.Errorf("notice %q", got)
	}
	warns := r.find("line-warning")
	if warns.Length() != 1 || warns.AttrOr("data-line", "") != "8" || !strings.HasPrefix(warns.Text(), "[rule 1] the first sentence names a role but not what it answers for") {
		t.Fatalf("warnings %d, under line %q: %q", warns.Length(), warns.AttrOr("data-line", ""), warns.Text())
	}
	if prev := warns.Prev(); prev.AttrOr("data-line", "") != "8" || !prev.HasClass("warn") {
		t.Error("the warning does not follow line 8 marked as warned")
	}
	if r.find("checklist-title").Text() != "Module checklist: 1 warning" || r.find("alert").Length() != 0 {
		t.Errorf("title %q, alerts %d", r.find("checklist-title").Text(), r.find("alert").Length())
	}
	if r.textarea("text") != short {
		t.Error("Check lost the typed text")
	}
	if n := len(a.overrides()); n != 0 {
		t.Fatalf("Check stored %d overrides", n)
	}

	// Check on a text with a format error: 422, the error, nothing stored.
	bad := strings.Replace(short, "version: 1\n", "version: one\n", 1)
	r = a.post(editor, url.Values{"text": {bad}, "revision": {"0"}, "check": {"1"}}).want(t, http.StatusUnprocessableEntity)
	if r.find("line-error").AttrOr("data-line", "") != "4" || r.find("line-warning").Length() != 0 || r.textarea("text") != bad {
		t.Errorf("format error: error under line %q, %d warnings", r.find("line-error").AttrOr("data-line", ""), r.find("line-warning").Length())
	}

	// Save: stored as a draft, back to the editor with the warning.
	r = a.post(editor, url.Values{"text": {short}, "revision": {"0"}}).want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != editor {
		t.Fatalf("a save with warnings redirects to %q, want the editor", loc)
	}
	rows := a.overrides()
	if len(rows) != 1 || rows[0].Text != short || rows[0].Revision != 1 || !rows[0].Draft {
		t.Fatalf("stored %+v, want the text as draft revision 1", rows)
	}
	ed := a.follow(r).want(t, http.StatusOK)
	if got := ed.find("flash").Text(); !strings.Contains(got, "draft saved, not served yet: revision 1") || !strings.Contains(got, "1 warning(s)") {
		t.Errorf("flash %q", got)
	}
	if got := ed.find("line-warning"); got.Length() != 1 || got.AttrOr("data-line", "") != "8" {
		t.Errorf("the editor after the save shows %d warnings (line %q)", got.Length(), got.AttrOr("data-line", ""))
	}
	if ed.textarea("text") != short || ed.find("revision").AttrOr("value", "") != "1" {
		t.Errorf("the editor holds revision %q", ed.find("revision").AttrOr("value", ""))
	}

	// A fixed text saves without warnings and leads to the module page.
	fixed := identityText(t, a, "You are Quill, the assistant of this workspace, answering for every reply it gives.")
	r = a.post(editor, url.Values{"text": {fixed}, "revision": {"1"}}).want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != "/modules/base.identity#locale-en-US" {
		t.Errorf("a clean save redirects to %q", loc)
	}
	if ed := a.get(editor).want(t, http.StatusOK); ed.find("line-warning").Length() != 0 || ed.find("numbered").Length() != 0 || ed.find("checklist-note").Length() != 0 {
		t.Error("the editor shows checklist findings for a clean text")
	}
}

// A locale without lint cue words gets a note instead of warnings; the
// builtin texts the editor starts from have no findings.
func TestOverrideChecklistNotes(t *testing.T) {
	t.Parallel()
	a := setup(t)
	for _, locale := range []string{"en-US", "zh-CN"} {
		r := a.get("/modules/task.code-review/override/"+locale).want(t, http.StatusOK)
		if r.find("line-warning").Length() != 0 || r.find("checklist-note").Length() != 0 {
			t.Errorf("%s: the builtin text has checklist findings", locale)
		}
	}
	r := a.get("/modules/base.identity/override/ja-JP").want(t, http.StatusOK)
	if got := r.find("checklist-note").Text(); !strings.Contains(got, "[cues] no lint cue words for ja-JP") {
		t.Errorf("ja-JP note %q", got)
	}
	if r.find("line-warning").Length() != 0 {
		t.Error("ja-JP text has warnings")
	}
}

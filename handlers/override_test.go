package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// identityText returns the builtin en-US base.identity file with its first
// body line replaced by line.
func identityText(t *testing.T, a *app, line string) string {
	t.Helper()
	m := builtinText(t, a.lib, "base.identity", "en-US")
	first, _, _ := strings.Cut(strings.TrimPrefix(m.Body, "\n"), "\n")
	return strings.Replace(m.Text, first, line, 1)
}

func TestOverrideEditorPrefill(t *testing.T) {
	t.Parallel()
	a := setup(t)
	en := builtinText(t, a.lib, "base.identity", "en-US")
	zh := builtinText(t, a.lib, "base.identity", "zh-CN")

	for _, c := range []struct {
		locale, want, note string
	}{
		{"en-US", en.Text, "builtin en-US"},
		{"zh-CN", zh.Text, "builtin zh-CN"},
		{"ja-JP", en.Text, "no builtin ja-JP text: prefilled from the builtin en-US"},
	} {
		r := a.get("/modules/base.identity/override/"+c.locale).want(t, http.StatusOK)
		if got := r.textarea("text"); got != c.want {
			t.Errorf("%s: textarea holds\n%s\nwant the builtin text", c.locale, got)
		}
		if got := r.find("revision").AttrOr("value", ""); got != "0" {
			t.Errorf("%s: revision %q, want 0", c.locale, got)
		}
		if got := r.find("prefill").Text(); !strings.Contains(got, c.note) {
			t.Errorf("%s: prefill note %q does not say %q", c.locale, got, c.note)
		}
	}

	r := a.get("/modules/base.identity/override/en-us").want(t, http.StatusMovedPermanently)
	if loc := r.Header().Get("Location"); loc != "/modules/base.identity/override/en-US" {
		t.Errorf("non-canonical locale redirects to %q", loc)
	}
	a.get("/modules/base.identity/override/not_a_locale!").want(t, http.StatusUnprocessableEntity)
	r = a.get("/modules/base.identity/override?locale=ja-jp").want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != "/modules/base.identity/override/ja-JP" {
		t.Errorf("locale picker redirects to %q", loc)
	}
}

func TestOverrideSaveErrorsNextToTheLine(t *testing.T) {
	t.Parallel()
	a := setup(t)
	good := identityText(t, a, "You are the test assistant.")
	cases := []struct {
		name string
		text string
		line int
		msg  string
	}{
		{"float version", strings.Replace(good, "version: 1\n", "version: 1.10\n", 1), 4, "version"},
		{"unknown field", strings.Replace(good, "title:", "colour: blue\ntitle:", 1), 5, "colour"},
		{"unclosed frontmatter", strings.Replace(good, "\n---\n", "\n", 1), 1, "not closed"},
		{"changed id", strings.Replace(good, "id: base.identity", "id: base.someone", 1), 2, "may not change the id"},
		{"changed layer", strings.Replace(good, "layer: base", "layer: task", 1), 3, "layer"},
		{"unknown placeholder", identityText(t, a, "You are {{nobody_knows}}."), 8, "{{nobody_knows}}"},
		{"leading blank line", "\n" + good, 1, "first line must be ---"},
		{"empty body", good[:strings.Index(good, "\n---\n")+5] + "\n", 8, "body is empty"},
		{"include cycle", identityText(t, a, "You are the test assistant.\n\nSee {{base.identity}}."), 10, "body: {{base.identity}} includes the module in itself: a module cannot include its own text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.post("/modules/base.identity/override/en-US", url.Values{"text": {c.text}, "revision": {"0"}}).
				want(t, http.StatusUnprocessableEntity)
			errs := r.find("line-error")
			if errs.Length() != 1 {
				t.Fatalf("%d line errors, want 1:\n%s", errs.Length(), r.find("numbered").Text())
			}
			if got := errs.AttrOr("data-line", ""); got != strconv.Itoa(c.line) {
				t.Errorf("error under line %s, want %d: %s", got, c.line, errs.Text())
			}
			if prev := errs.Prev(); prev.AttrOr("data-testid", "") != "line" || prev.AttrOr("data-line", "") != strconv.Itoa(c.line) {
				t.Errorf("the error does not follow line %d", c.line)
			}
			if !strings.Contains(errs.Text(), c.msg) {
				t.Errorf("message %q does not mention %q", errs.Text(), c.msg)
			}
			wantLine := strings.Split(c.text, "\n")[c.line-1]
			if got := r.doc.Find(`[data-testid="line"][data-line="` + strconv.Itoa(c.line) + `"] span`).Last().Text(); got != wantLine {
				t.Errorf("line %d shows %q, want %q", c.line, got, wantLine)
			}
			if got := r.textarea("text"); got != c.text {
				t.Errorf("textarea does not keep the typed text:\n%q\nwant\n%q", got, c.text)
			}
		})
	}
	// Bytes that are not UTF-8 are a 422 naming the line, never a 500.
	r := a.post("/modules/base.identity/override/en-US", url.Values{"text": {identityText(t, a, "bad \xff\xfe bytes")}, "revision": {"0"}}).
		want(t, http.StatusUnprocessableEntity)
	if errs := r.find("line-error"); errs.AttrOr("data-line", "") != "8" || !strings.Contains(errs.Text(), "UTF-8") {
		t.Errorf("invalid UTF-8: error %q under line %q, want line 8 naming UTF-8", errs.Text(), errs.AttrOr("data-line", ""))
	}
	if n := len(a.overrides()); n != 0 {
		t.Errorf("%d overrides stored by failed saves", n)
	}
}

func TestOverrideSavingTheBuiltinTextStoresNothing(t *testing.T) {
	t.Parallel()
	a := setup(t)
	en := builtinText(t, a.lib, "base.identity", "en-US")
	// A BOM and CRLF line endings do not make the text different.
	typed := "\uFEFF" + strings.ReplaceAll(en.Text, "\n", "\r\n")
	r := a.post("/modules/base.identity/override/en-US", url.Values{"text": {typed}, "revision": {"0"}}).want(t, http.StatusOK)
	if got := r.find("notice").Text(); !strings.Contains(got, "nothing was stored") {
		t.Errorf("notice %q does not say nothing was stored", got)
	}
	if n := len(a.overrides()); n != 0 {
		t.Errorf("%d overrides stored, want 0", n)
	}
}

func TestOverrideSaveServesEverywhere(t *testing.T) {
	t.Parallel()
	a := setup(t)
	en := builtinText(t, a.lib, "base.identity", "en-US")
	text := identityText(t, a, "You are Quill, the operator-tuned assistant of this test.")
	a.saveOverride("base.identity", "en-US", text, 0)

	rows := a.overrides()
	if len(rows) != 1 {
		t.Fatalf("%d overrides stored, want 1", len(rows))
	}
	o := rows[0]
	if o.ModuleID != "base.identity" || o.Locale != "en-US" || o.Text != text || o.Revision != 1 ||
		o.BasedOnVersion != en.Version || o.BaseSnapshot != en.Text || o.Author != testUser || o.Title != en.Title {
		t.Errorf("stored %+v", o)
	}

	lib := a.get("/").want(t, http.StatusOK)
	row := lib.doc.Find(`[data-testid="module-row"][data-id="base.identity"]`)
	if s := row.AttrOr("data-status", ""); s != "overridden" {
		t.Errorf("library shows base.identity as %q, want overridden", s)
	}
	if s := row.Find(`[data-testid="module-locale"][data-status="overridden"]`).Text(); s != "en-US" {
		t.Errorf("overridden locale %q, want en-US", s)
	}
	filtered := a.get("/?status=overridden").want(t, http.StatusOK)
	if n := filtered.find("module-row").Length(); n != 1 {
		t.Errorf("status=overridden lists %d modules, want 1", n)
	}

	mod := a.get("/modules/base.identity").want(t, http.StatusOK)
	card := mod.doc.Find(`[data-testid="locale"][data-locale="en-US"]`)
	if s := card.AttrOr("data-source", ""); s != "override" {
		t.Errorf("en-US served by %q, want override", s)
	}
	if meta := card.Find(`[data-testid="override-meta"]`).Text(); !strings.Contains(meta, "revision 1 by "+testUser) {
		t.Errorf("override meta %q", meta)
	}
	if !strings.Contains(card.Find(`[data-testid="body"]`).Text(), "You are Quill") {
		t.Error("module page does not show the override body")
	}
	if s := mod.doc.Find(`[data-testid="locale"][data-locale="zh-CN"]`).AttrOr("data-source", ""); s != "builtin" {
		t.Errorf("zh-CN served by %q, want builtin (locale before source)", s)
	}

	prev := a.post("/preview", url.Values{"request": {`{"locale": "en-US", "message": "hello"}`}}).want(t, http.StatusOK)
	if !strings.Contains(prev.find("full-text").Text(), "You are Quill, the operator-tuned assistant") {
		t.Error("preview does not contain the override text")
	}
	entry := prev.doc.Find(`[data-testid="report-entry"][data-module="base.identity"]`)
	if s := entry.AttrOr("data-source", ""); s != "override" {
		t.Errorf("report: base.identity source %q, want override", s)
	}
	builtinOnly := a.post("/preview", url.Values{"request": {`{"locale": "en-US", "message": "hello"}`}, "builtinOnly": {"on"}}).want(t, http.StatusOK)
	if strings.Contains(builtinOnly.find("full-text").Text(), "You are Quill") {
		t.Error("builtin-only preview contains the override text")
	}

	// Editing again starts from the override at its revision.
	ed := a.get("/modules/base.identity/override/en-US").want(t, http.StatusOK)
	if ed.textarea("text") != text || ed.find("revision").AttrOr("value", "") != "1" {
		t.Errorf("editor holds revision %s:\n%s", ed.find("revision").AttrOr("value", ""), ed.textarea("text"))
	}
	a.saveOverride("base.identity", "en-US", strings.Replace(text, "Quill", "Quill II", 1), 1)
	if o := a.overrides()[0]; o.Revision != 2 {
		t.Errorf("second save at revision %d, want 2", o.Revision)
	}
}

// A stale save shows the three texts (where the edit started, yours,
// theirs) and puts the merge of both edits in the editor, based on the
// head; nothing is stored until the merge is saved, and conflict markers
// left in it are refused.
func TestOverrideStaleRevisionIsAConflict(t *testing.T) {
	t.Parallel()
	a := setup(t)
	builtin := builtinText(t, a.lib, "base.identity", "en-US")
	theirs := identityText(t, a, "You are the assistant as colleague A wrote it.")
	mine := identityText(t, a, "You are the assistant as I wrote it.")
	a.saveOverride("base.identity", "en-US", theirs, 0)

	for _, c := range []struct{ rev, common string }{{"0", builtin.Text}, {"7", ""}} {
		r := a.post("/modules/base.identity/override/en-US", url.Values{"text": {mine}, "revision": {c.rev}}).want(t, http.StatusConflict)
		if r.find("conflict").Length() != 1 {
			t.Fatalf("revision %s: no conflict message", c.rev)
		}
		for id, want := range map[string]string{"conflict-common": c.common, "conflict-yours": mine, "conflict-current": theirs} {
			if got := r.find(id).Text(); got != want {
				t.Errorf("revision %s: %s shows\n%s\nwant\n%s", c.rev, id, got, want)
			}
		}
		// From the builtin, both changed the first line: one conflict on
		// it. Revision 7 never existed: with nothing in common, the whole
		// texts conflict.
		merged := r.textarea("text")
		ok := strings.Contains(merged, "<<<<<<< yours\nYou are the assistant as I wrote it.\n=======\nYou are the assistant as colleague A wrote it.\n>>>>>>> theirs\n")
		if c.rev == "7" {
			ok = merged == "<<<<<<< yours\n"+mine+"=======\n"+theirs+">>>>>>> theirs\n"
		}
		if r.find("merge-conflict").Length() != 1 || !ok {
			t.Errorf("revision %s: merge in the editor:\n%s", c.rev, merged)
		}
		if got := r.find("revision").AttrOr("value", ""); got != "1" {
			t.Errorf("revision %s: the form is now based on %q, want 1", c.rev, got)
		}
		if got := r.find("save-mine-form").Find(`input[name="text"]`).AttrOr("value", ""); got != mine {
			t.Errorf("revision %s: save mine carries %q", c.rev, got)
		}
	}
	if rows := a.overrides(); len(rows) != 1 || rows[0].Text != theirs || rows[0].Revision != 1 {
		t.Errorf("a stale save changed the stored override: %+v", rows)
	}

	// Saving the merge with its markers is refused under their lines.
	r := a.post("/modules/base.identity/override/en-US", url.Values{"text": {mine}, "revision": {"0"}}).want(t, http.StatusConflict)
	merged := r.textarea("text")
	refused := a.post("/modules/base.identity/override/en-US", url.Values{"text": {merged}, "revision": {"1"}, "merged": {"1"}}).want(t, http.StatusUnprocessableEntity)
	if n := refused.find("line-error").Length(); n != 1 || !strings.Contains(refused.find("line-error").Text(), "conflict markers") {
		t.Errorf("%d errors for the marker lines, want one naming the conflict markers", n)
	}
	if refused.doc.Find(`input[name="merged"]`).Length() != 1 || refused.textarea("text") != merged {
		t.Error("the refused merge lost its text or its merged field")
	}

	// Edits of different lines merge cleanly; the merge saves on the head.
	second := strings.Replace(theirs, "\n---\n", "\n---\nA line colleague A added.\n", 1)
	a.saveDraft("base.identity", "en-US", second, 1)
	mineToo := strings.TrimRight(theirs, "\n") + "\n\nA line I added at the end.\n"
	r = a.post("/modules/base.identity/override/en-US", url.Values{"text": {mineToo}, "revision": {"1"}}).want(t, http.StatusConflict)
	if r.find("merge-clean").Length() != 1 || !strings.Contains(r.find("conflict-common").Text(), "You are the assistant as colleague A wrote it.") {
		t.Fatalf("clean merge: %d, common %q", r.find("merge-clean").Length(), r.find("conflict-common").Text())
	}
	if ins := r.find("diff-yours").Find(`[data-kind="insert"]`).Text(); !strings.Contains(ins, "A line I added at the end.") {
		t.Errorf("your diff inserts %q", ins)
	}
	if ins := r.find("diff-theirs").Find(`[data-kind="insert"]`).Text(); !strings.Contains(ins, "A line colleague A added.") {
		t.Errorf("their diff inserts %q", ins)
	}
	clean := r.textarea("text")
	a.post("/modules/base.identity/override/en-US", url.Values{"text": {clean}, "revision": {r.find("revision").AttrOr("value", "")}, "merged": {"1"}}).want(t, http.StatusSeeOther)
	head := a.overrides()[0]
	if head.Revision != 3 || !strings.Contains(head.Text, "A line colleague A added.") || !strings.Contains(head.Text, "A line I added at the end.") {
		t.Errorf("after saving the merge: revision %d:\n%s", head.Revision, head.Text)
	}
}

// The back button after a save: the same text sent again on the old
// revision is no conflict; nothing is stored and the editor is based on
// the head.
func TestOverrideSaveSentAgainIsUnchanged(t *testing.T) {
	t.Parallel()
	a := setup(t)
	text := identityText(t, a, "You are the assistant saved once.")
	a.saveDraft("base.identity", "en-US", text, 0)
	r := a.post("/modules/base.identity/override/en-US", url.Values{"text": {text}, "revision": {"0"}}).want(t, http.StatusOK)
	if n := r.find("notice").Text(); !strings.Contains(n, "Nothing changed, nothing was saved: your text is revision 1 already") || !strings.Contains(n, "a draft not published yet") {
		t.Errorf("notice %q", n)
	}
	if r.find("conflict").Length() != 0 || r.find("revision").AttrOr("value", "") != "1" {
		t.Errorf("conflict %d, form based on %q; want no conflict, revision 1", r.find("conflict").Length(), r.find("revision").AttrOr("value", ""))
	}
	if rows := a.overrides(); len(rows) != 1 || rows[0].Revision != 1 {
		t.Errorf("sent again, it stored: %+v", rows)
	}
}

func TestOverrideDeleteConfirmsTheRevision(t *testing.T) {
	t.Parallel()
	a := setup(t)
	text := identityText(t, a, "You are the assistant to delete.")
	a.saveOverride("base.identity", "en-US", text, 0)
	a.saveOverride("base.identity", "en-US", text+"\nOne more line.\n", 1)

	confirm := a.get("/modules/base.identity/override/en-US/delete").want(t, http.StatusOK)
	if got := confirm.doc.Find(`form input[name="revision"]`).AttrOr("value", ""); got != "2" {
		t.Errorf("confirm form carries revision %q, want 2", got)
	}
	stale := a.post("/modules/base.identity/override/en-US/delete", url.Values{"revision": {"1"}}).want(t, http.StatusConflict)
	if got := stale.doc.Find(`form input[name="revision"]`).AttrOr("value", ""); got != "2" {
		t.Errorf("conflict page confirms revision %q, want 2", got)
	}
	if len(a.overrides()) != 1 {
		t.Fatal("a stale delete deleted")
	}
	r := a.post("/modules/base.identity/override/en-US/delete", url.Values{"revision": {"2"}}).want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != "/modules/base.identity" {
		t.Errorf("redirect to %q", loc)
	}
	if n := len(a.overrides()); n != 0 {
		t.Errorf("%d overrides left", n)
	}
	lib := a.get("/").want(t, http.StatusOK)
	if s := lib.doc.Find(`[data-testid="module-row"][data-id="base.identity"]`).AttrOr("data-status", ""); s != "builtin" {
		t.Errorf("after delete the library shows %q", s)
	}
	a.get("/modules/base.identity/override/en-US/delete").want(t, http.StatusNotFound)
	// The form posted again (double submit, back button): already deleted.
	again := a.post("/modules/base.identity/override/en-US/delete", url.Values{"revision": {"2"}})
	a.wantDeletedAgain(t, again, "/modules/base.identity", "Override base.identity (en-US)")
}

func TestOverrideInALocaleWithoutBuiltin(t *testing.T) {
	t.Parallel()
	a := setup(t)
	en := builtinText(t, a.lib, "base.identity", "en-US")
	text := identityText(t, a, "あなたはこのワークスペースのアシスタントです。")
	a.saveOverride("base.identity", "ja-JP", text, 0)
	o := a.overrides()[0]
	if o.Locale != "ja-JP" || o.BasedOnVersion != en.Version || o.BaseSnapshot != en.Text {
		t.Errorf("ja-JP override based on v%d, snapshot of %d bytes; want the en-US builtin", o.BasedOnVersion, len(o.BaseSnapshot))
	}
	mod := a.get("/modules/base.identity").want(t, http.StatusOK)
	if s := mod.doc.Find(`[data-testid="locale"][data-locale="ja-JP"]`).AttrOr("data-source", ""); s != "override" {
		t.Errorf("ja-JP served by %q, want override", s)
	}
}

func TestUserModule(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.get("/overrides/new").want(t, http.StatusOK)
	text := "---\nid: task.release-notes\nlayer: task\nversion: 1\ntitle: Release notes\ndescription: Drafts release notes\npriority: 5\ntriggers:\n- kind: command\n  command: /notes\n---\nYou write release notes.\n"

	bad := a.post("/overrides/new", url.Values{"id": {"base.identity"}, "locale": {"en-US"}, "text": {text}}).want(t, http.StatusUnprocessableEntity)
	if msg := bad.doc.Find(`[data-testid="field-error"][data-field="id"]`).Text(); !strings.Contains(msg, "builtin") {
		t.Errorf("builtin id error %q", msg)
	}
	if bad.textarea("text") != text {
		t.Error("the form lost the typed text")
	}
	bad = a.post("/overrides/new", url.Values{"id": {"Task.X"}, "locale": {"??"}, "text": {text}}).want(t, http.StatusUnprocessableEntity)
	if bad.find("field-error").Length() != 2 {
		t.Errorf("want errors on id and locale, got %q", bad.find("field-error").Text())
	}
	mismatch := a.post("/overrides/new", url.Values{"id": {"task.other"}, "locale": {"en-US"}, "text": {text}}).want(t, http.StatusUnprocessableEntity)
	if got := mismatch.find("line-error").AttrOr("data-line", ""); got != "2" {
		t.Errorf("id mismatch reported on line %q, want 2", got)
	}

	// Saved; its one-line body misses most of the module checklist,
	// so the save leads back to its editor, which shows the warnings.
	r := a.post("/overrides/new", url.Values{"id": {"task.release-notes"}, "locale": {"en-us"}, "text": {text}}).want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != "/modules/task.release-notes/override/en-US" {
		t.Errorf("redirect to %q", loc)
	}
	ed := a.follow(r).want(t, http.StatusOK)
	if got := ed.doc.Find(`[data-testid="line-warning"][data-line="12"]`).Length(); got != 6 {
		t.Errorf("%d warnings under line 12, want 6 (rules 1, 2, 5, 6, 7, 8):\n%s", got, ed.find("numbered").Text())
	}
	if ed.textarea("text") != text || ed.find("revision").AttrOr("value", "") != "1" {
		t.Errorf("the editor holds revision %q with text\n%s", ed.find("revision").AttrOr("value", ""), ed.textarea("text"))
	}
	o := a.overrides()[0]
	if o.Locale != "en-US" || o.BasedOnVersion != 0 || o.BaseSnapshot != "" {
		t.Errorf("user module stored as %+v", o)
	}
	lib := a.get("/?status=user").want(t, http.StatusOK)
	row := lib.doc.Find(`[data-testid="layer-group"][data-layer="task"] [data-testid="module-row"]`)
	if row.Length() != 1 || row.AttrOr("data-id", "") != "task.release-notes" {
		t.Errorf("status=user lists %d task rows", row.Length())
	}
	// A draft until published: the module page shows it, nothing serves it.
	mod := a.get("/modules/task.release-notes").want(t, http.StatusOK)
	if s := mod.find("locale").AttrOr("data-source", ""); s != "draft" || mod.find("draft").AttrOr("data-revision", "") != "1" {
		t.Errorf("draft shown as %q, revision %q; want draft, 1", s, mod.find("draft").AttrOr("data-revision", ""))
	}
	a.post("/overrides/new", url.Values{"id": {"task.release-notes"}, "locale": {"en-US"}, "text": {text}}).want(t, http.StatusConflict)
	prev := a.post("/preview", url.Values{"request": {`{"locale": "en-US", "message": "/notes v2"}`}}).want(t, http.StatusOK)
	if n := prev.doc.Find(`[data-testid="report-entry"][data-module="task.release-notes"]`).Length(); n != 0 {
		t.Errorf("the unpublished user module is in the default preview (%d entries)", n)
	}
	a.post("/modules/task.release-notes/override/en-US/publish", url.Values{"revision": {"1"}}).want(t, http.StatusSeeOther)
	mod = a.get("/modules/task.release-notes").want(t, http.StatusOK)
	if s := mod.find("locale").AttrOr("data-source", ""); s != "user-module" || mod.find("draft").Length() != 0 {
		t.Errorf("served as %q (draft notices %d), want user-module", s, mod.find("draft").Length())
	}

	// Its command fires it in the preview.
	prev = a.post("/preview", url.Values{"request": {`{"locale": "en-US", "message": "/notes v2"}`}}).want(t, http.StatusOK)
	entry := prev.doc.Find(`[data-testid="report-entry"][data-module="task.release-notes"]`)
	if entry.AttrOr("data-source", "") != "user-module" {
		t.Errorf("preview report: %q", prev.find("report-lines").Text())
	}

	// Deleted, it is no module any more; the delete posted again goes
	// back to the library saying it was already deleted.
	a.post("/modules/task.release-notes/override/en-US/delete", url.Values{"revision": {"1"}}).wantRedirect(t, "/")
	again := a.post("/modules/task.release-notes/override/en-US/delete", url.Values{"revision": {"1"}})
	a.wantDeletedAgain(t, again, "/", "Override task.release-notes (en-US)")
	a.post("/modules/task.never/override/en-US/delete", url.Values{"revision": {"1"}}).want(t, http.StatusNotFound)
}

func TestBrokenOverrideIsListedNotServed(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	a := setupOn(t, dbURL)
	ctx := context.Background()
	// A row written by another version of the app, whose text no longer parses.
	if _, err := a.store.SaveOverride(ctx, domain.Override{ModuleID: "base.identity", Locale: "en-US", Text: "---\nid: base.identity\n", BasedOnVersion: 1, Author: "old", Publish: true}, 0); err != nil {
		t.Fatal(err)
	}
	b := setupOn(t, dbURL)
	lib := b.get("/").want(t, http.StatusOK)
	if got := lib.find("broken-overrides").Text(); !strings.Contains(got, "base.identity") {
		t.Errorf("broken overrides banner: %q", got)
	}
	if s := lib.doc.Find(`[data-testid="module-row"][data-id="base.identity"]`).AttrOr("data-status", ""); s != "builtin" {
		t.Errorf("a broken override makes the module %q", s)
	}
	mod := b.get("/modules/base.identity").want(t, http.StatusOK)
	card := mod.doc.Find(`[data-testid="locale"][data-locale="en-US"]`)
	if card.AttrOr("data-source", "") != "builtin" || card.Find(`[data-testid="broken"]`).Length() != 1 {
		t.Errorf("en-US card: source %q, broken notice %d", card.AttrOr("data-source", ""), card.Find(`[data-testid="broken"]`).Length())
	}
}

func TestOverrideTextIsShownAsText(t *testing.T) {
	t.Parallel()
	a := setup(t)
	const hostile = `You are <script>alert("x")</script> & <b>bold</b>.`
	a.saveOverride("base.identity", "en-US", identityText(t, a, hostile), 0)
	for _, r := range []response{
		a.get("/modules/base.identity").want(t, http.StatusOK),
		a.get("/modules/base.identity/override/en-US").want(t, http.StatusOK),
		a.post("/preview", url.Values{"request": {`{"locale": "en-US"}`}}).want(t, http.StatusOK),
	} {
		if strings.Contains(r.Body.String(), "<script>alert") || strings.Contains(r.Body.String(), "<b>bold") {
			t.Error("override text reached the page as HTML")
		}
		if !strings.Contains(r.doc.Text(), hostile) {
			t.Error("the page does not show the override text as typed")
		}
	}
}

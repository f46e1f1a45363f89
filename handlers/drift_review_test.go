package handlers_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// upstreamLibrary copies the library folder into a temp folder with the
// version of id raised by one in every locale and its en-US text passed
// through edit, and loads it: a new builtin release.
func upstreamLibrary(t *testing.T, id string, edit func(string) string) *library.Snapshot {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "library"))); err != nil {
		t.Fatal(err)
	}
	base := builtin(t)
	for _, loc := range base.ModuleLocales(id) {
		m, _ := base.Module(id, loc)
		text := strings.Replace(m.Text, "version: "+strconv.Itoa(m.Version)+"\n", "version: "+strconv.Itoa(m.Version+1)+"\n", 1)
		if loc == "en-US" {
			text = edit(text)
		}
		if err := os.WriteFile(filepath.Join(dir, "modules", loc, library.FileName(id)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := library.LoadDir(dir)
	if err != nil {
		t.Fatalf("upstream library: %v", err)
	}
	return snap
}

// replaceLine replaces the line of text starting with prefix by line.
func replaceLine(t *testing.T, text, prefix, line string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			lines[i] = line
			return strings.Join(lines, "\n")
		}
	}
	t.Fatalf("no line starting with %q", prefix)
	return ""
}

// Lines of base.identity (en-US) the tests change.
const (
	lineOpening  = "You are the assistant of this workspace"
	lineClosing  = "If a question about yourself cannot be answered"
	lineNoInvent = "- Do not invent a product name"
)

// drifted is an override of base.identity (en-US) saved on the builtin
// library, and a second server on the same database whose library has a
// new release of base.identity.
type drifted struct {
	before, after *app
	base          *library.Module // the builtin the override was based on
	builtin       *library.Module // the builtin now
	override      string
}

// newDrifted saves mine (an edit of the builtin en-US text) as the
// override, then restarts on a library where upstream edited that text.
func newDrifted(t *testing.T, mine, upstream func(string) string) *drifted {
	t.Helper()
	dbURL := storetest.NewDatabase(t)
	d := &drifted{before: setupOn(t, dbURL)}
	d.base = builtinText(t, d.before.lib, "base.identity", "en-US")
	d.override = mine(d.base.Text)
	d.before.saveOverride("base.identity", "en-US", d.override, 0)
	d.after = setupOn(t, dbURL, upstreamLibrary(t, "base.identity", upstream))
	d.builtin = builtinText(t, d.after.lib, "base.identity", "en-US")
	return d
}

const reviewPath = "/drift/base.identity/en-US"

// act posts a review action on the current revision and builtin.
func (d *drifted) act(t *testing.T, action string, extra ...string) response {
	t.Helper()
	form := url.Values{"action": {action}, "base": {itoa(d.head(t).Revision)}, "builtin": {domain.TextHash(d.builtin.Text)}}
	for i := 0; i+1 < len(extra); i += 2 {
		form.Set(extra[i], extra[i+1])
	}
	return d.after.post(reviewPath, form)
}

// head returns the stored override of base.identity (en-US).
func (d *drifted) head(t *testing.T) domain.Override {
	t.Helper()
	o, err := d.after.store.GetOverride(context.Background(), "base.identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// audit returns the audit entries of base.identity with action.
func (a *app) auditOf(t *testing.T, action string) []domain.AuditEntry {
	t.Helper()
	list, err := a.store.ListAudit(context.Background(), domain.AuditFilter{Action: action, SubjectID: "base.identity"})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// wantRedirect checks a 303 to target.
func (r response) wantRedirect(t *testing.T, target string) response {
	t.Helper()
	r.want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != target {
		t.Fatalf("redirect to %q, want %q", loc, target)
	}
	return r
}

// follow loads the page a redirect points to with the cookies it set, as
// a browser does (the flash message travels in a cookie).
func (a *app) follow(r response) response {
	a.t.Helper()
	var cookies []string
	for _, c := range r.Result().Cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	return a.get(r.Header().Get("Location"), "Cookie", strings.Join(cookies, "; "))
}

// mineOpening changes the opening paragraph; upstreamClosing the closing.
func mineOpening(s string) string {
	return strings.Replace(s, lineOpening, "You are the research desk's assistant", 1)
}

func upstreamClosing(s string) string {
	return strings.Replace(s, lineClosing, "When a question about yourself cannot be answered", 1)
}

func TestDriftReviewShowsTheThreeTexts(t *testing.T) {
	t.Parallel()
	d := newDrifted(t, mineOpening, upstreamClosing)

	list := d.after.get("/drift").want(t, http.StatusOK)
	row := list.find("drift-row")
	if row.Length() != 1 {
		t.Fatalf("%d drift rows, want 1", row.Length())
	}
	if href := row.Find(`[data-testid="review-link"]`).AttrOr("href", ""); href != reviewPath {
		t.Errorf("review link %q, want %q", href, reviewPath)
	}

	r := d.after.get(reviewPath).want(t, http.StatusOK)
	for id, want := range map[string]string{"text-base": d.base.Text, "text-builtin": d.builtin.Text, "text-override": d.override} {
		if got := r.find(id).Find("pre").Text(); got != want {
			t.Errorf("%s shows:\n%s\nwant:\n%s", id, got, want)
		}
	}
	if got := r.find("review-reason").Text(); !strings.Contains(got, "v1 to v2") {
		t.Errorf("reason %q", got)
	}
	// The merge view: upstream's change, the operator's, and the merged
	// text with both.
	if ins := r.find("diff-upstream").Find(`[data-kind="insert"]`).Text(); !strings.Contains(ins, "When a question about yourself") {
		t.Errorf("upstream diff inserts %q", ins)
	}
	if ins := r.find("diff-yours").Find(`[data-kind="insert"]`).Text(); !strings.Contains(ins, "research desk") {
		t.Errorf("your diff inserts %q", ins)
	}
	if r.find("merge-clean").Length() != 1 {
		t.Error("the merge preview reports conflicts")
	}
	merged := r.find("merge-preview").Text()
	for _, s := range []string{"research desk", "When a question about yourself"} {
		if !strings.Contains(merged, s) {
			t.Errorf("merge preview lacks %q", s)
		}
	}
	for _, b := range []string{"keep-mine", "take-builtin", "rebase"} {
		if r.find(b).Length() != 1 {
			t.Errorf("no %s button", b)
		}
	}

	// A non-canonical locale is redirected; an unknown override is 404.
	if loc := d.after.get("/drift/base.identity/en-us").want(t, http.StatusMovedPermanently).Header().Get("Location"); loc != reviewPath {
		t.Errorf("redirect to %q", loc)
	}
	d.after.get("/drift/base.behavior/en-US").want(t, http.StatusNotFound)
}

func TestDriftKeepMine(t *testing.T) {
	t.Parallel()
	d := newDrifted(t, mineOpening, upstreamClosing)
	list := d.after.follow(d.act(t, "keep-mine").wantRedirect(t, "/drift")).want(t, http.StatusOK)
	if list.find("no-drift").Length() != 1 {
		t.Fatal("still drifted after keep mine")
	}
	if f := list.find("flash").Text(); !strings.Contains(f, "Kept") {
		t.Errorf("flash %q", f)
	}
	o := d.head(t)
	if o.Text != d.override || o.Revision != 2 || o.BasedOnVersion != d.builtin.Version ||
		o.BaseSnapshot != d.builtin.Text || o.BaseHash != domain.TextHash(d.builtin.Text) {
		t.Errorf("after keep mine: revision %d, based on v%d, text kept %v, snapshot is builtin now %v, hash %q",
			o.Revision, o.BasedOnVersion, o.Text == d.override, o.BaseSnapshot == d.builtin.Text, o.BaseHash)
	}
	if o.Draft || o.PublishedRevision != 2 {
		t.Errorf("keep mine is not served at once: draft %v, published revision %d", o.Draft, o.PublishedRevision)
	}
	audit := d.after.auditOf(t, domain.ActionKeepMine)
	if len(audit) != 1 || audit[0].Actor != testUser || audit[0].Revision != 2 {
		t.Fatalf("keep-mine audit entries: %+v", audit)
	}
	if r := d.after.get(reviewPath).want(t, http.StatusOK); r.find("review-actions").Length() != 0 {
		t.Error("the review of an up-to-date override offers actions")
	}
}

func TestDriftTakeBuiltin(t *testing.T) {
	t.Parallel()
	d := newDrifted(t, mineOpening, upstreamClosing)
	d.act(t, "take-builtin").wantRedirect(t, "/drift")

	if _, err := d.after.store.GetOverride(context.Background(), "base.identity", "en-US"); !errors.Is(err, library.ErrNotFound) {
		t.Fatalf("override after take builtin: %v", err)
	}
	mod := d.after.get("/modules/base.identity").want(t, http.StatusOK)
	card := mod.doc.Find(`[data-testid="locale"][data-locale="en-US"]`)
	if src := card.AttrOr("data-source", ""); src != "file" { // the builtin, loaded from a folder
		t.Errorf("en-US served from %q, want the builtin (file)", src)
	}
	if body := card.Find(`[data-testid="body"]`).Text(); !strings.Contains(body, "When a question about yourself") || strings.Contains(body, "research desk") {
		t.Errorf("en-US body is not the builtin now:\n%s", body)
	}
	audit := d.after.auditOf(t, domain.ActionTakeBuiltin)
	if len(audit) != 1 || audit[0].Actor != testUser || audit[0].Before != d.override || audit[0].After != "" {
		t.Fatalf("take-builtin audit entries: %+v", audit)
	}
	d.after.get(reviewPath).want(t, http.StatusNotFound)
}

func TestDriftRebaseWithoutConflict(t *testing.T) {
	t.Parallel()
	d := newDrifted(t, mineOpening, upstreamClosing)

	r := d.act(t, "rebase").want(t, http.StatusOK)
	if r.find("rebase-clean").Length() != 1 || r.find("conflict").Length() != 0 {
		t.Fatal("a clean rebase reports conflicts")
	}
	merged := r.textarea("text")
	if want := mineOpening(d.builtin.Text); merged != want { // the builtin now has upstream's change
		t.Fatalf("merged text:\n%s\nwant both changes:\n%s", merged, want)
	}
	if o := d.head(t); o.Revision != 1 || o.Text != d.override {
		t.Fatalf("asking to rebase saved revision %d", o.Revision)
	}

	// The operator submits it, as a browser does: CRLF line ends. Like
	// every edit, it is a draft, and the browser goes on to its publish
	// confirmation.
	confirm := d.after.follow(d.act(t, "rebase", "text", strings.ReplaceAll(merged, "\n", "\r\n")).
		wantRedirect(t, "/modules/base.identity/override/en-US/publish")).want(t, http.StatusOK)
	o := d.head(t)
	if o.Revision != 2 || o.Text != merged || o.BasedOnVersion != d.builtin.Version || o.BaseSnapshot != d.builtin.Text ||
		o.BaseHash != domain.TextHash(d.builtin.Text) {
		t.Errorf("rebased: revision %d, based on v%d, text is the merge %v", o.Revision, o.BasedOnVersion, o.Text == merged)
	}
	if !o.Draft || o.PublishedRevision != 1 {
		t.Errorf("the rebase is not a draft: draft %v, published revision %d", o.Draft, o.PublishedRevision)
	}
	if f := confirm.find("flash").Text(); !strings.Contains(f, "saved as draft revision 2") {
		t.Errorf("flash %q", f)
	}
	// Until published, it is still drifted, and the review points to the
	// rebased draft.
	if d.after.get("/drift").want(t, http.StatusOK).find("drift-row").Length() != 1 {
		t.Error("the drift is gone before the rebase is published")
	}
	pending := d.after.get(reviewPath).want(t, http.StatusOK)
	if p := pending.find("pending-draft"); !strings.Contains(p.Text(), "A rebase onto builtin v2 is saved as draft revision 2") {
		t.Errorf("review of a pending rebase: %q", p.Text())
	}
	if s := pending.find("review-summary").Text(); !strings.Contains(s, "drifted") || strings.Contains(s, "up to date") {
		t.Errorf("review summary of a pending rebase %q: want drifted (the published revision serves), not up to date", s)
	}
	if got := confirm.find("confirm-publish").Length(); got != 1 {
		t.Fatalf("%d publish buttons on the confirmation", got)
	}
	// The confirmation shows the served text now → the merge: the
	// upstream change comes in with the rebase.
	if ins := confirm.find("confirm-diff").Find(`[data-kind="insert"]`).Text(); !strings.Contains(ins, "When a question about yourself") {
		t.Errorf("the publish confirmation inserts %q", ins)
	}
	d.after.post("/modules/base.identity/override/en-US/publish", url.Values{"revision": {"2"}}).want(t, http.StatusSeeOther)
	if d.after.get("/drift").want(t, http.StatusOK).find("no-drift").Length() != 1 {
		t.Error("still drifted after the rebase is published")
	}
	if audit := d.after.auditOf(t, domain.ActionRebase); len(audit) != 1 || audit[0].Actor != testUser || audit[0].After != merged {
		t.Errorf("rebase audit entries: %+v", audit)
	}
	revs, err := d.after.store.ListRevisions(context.Background(), "base.identity", "en-US")
	if err != nil || len(revs) != 2 || revs[0].Action != domain.ActionRebase {
		t.Errorf("revisions after the rebase: %+v, %v", revs, err)
	}
}

func TestDriftRebaseWithConflict(t *testing.T) {
	t.Parallel()
	mine := func(s string) string {
		return replaceLine(t, s, lineNoInvent, "- Do not invent a product name or a company; say \"this workspace's assistant\".")
	}
	upstream := func(s string) string {
		return replaceLine(t, s, lineNoInvent, "- Do not invent a product name, a company, a version or a release date.")
	}
	d := newDrifted(t, mine, upstream)

	review := d.after.get(reviewPath).want(t, http.StatusOK)
	if got := review.find("merge-conflicts").Text(); got != "1 conflict" {
		t.Errorf("merge preview says %q", got)
	}

	r := d.act(t, "rebase").want(t, http.StatusOK)
	conflicts := r.find("conflict")
	if conflicts.Length() != 1 {
		t.Fatalf("%d conflicts listed, want 1", conflicts.Length())
	}
	text := r.textarea("text")
	for _, want := range []string{
		linediff.MarkerOverride + "\n- Do not invent a product name or a company;",
		linediff.MarkerSeparator + "\n- Do not invent a product name, a company, a version or a release date.\n" + linediff.MarkerBuiltin + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the merged text lacks %q:\n%s", want, text)
		}
	}
	if line := conflicts.AttrOr("data-line", ""); !strings.HasPrefix(strings.Split(text, "\n")[atoi(t, line)-1], "<<<<<<<") {
		t.Errorf("conflict listed at line %s, which is not its marker", line)
	}

	// Submitting it with the markers still in is refused, the text kept.
	edited := strings.Replace(text, "Do not invent a product name or a company;", "Do not invent a product name;", 1)
	refused := d.act(t, "rebase", "text", edited).want(t, http.StatusUnprocessableEntity)
	if got := refused.textarea("text"); got != edited {
		t.Errorf("the refused text was not kept:\n%s", got)
	}
	if n := refused.find("line-error").Length(); n != 1 || !strings.Contains(refused.find("line-error").Text(), "lines") {
		t.Errorf("%d errors for the marker lines, want one naming them all", n)
	}
	if o := d.head(t); o.Revision != 1 {
		t.Fatalf("a text with markers was saved: revision %d", o.Revision)
	}

	// Removing only the outer markers leaves a stray separator: refused too.
	var half []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "<<<<<<<") && !strings.HasPrefix(line, ">>>>>>>") {
			half = append(half, line)
		}
	}
	if r := d.act(t, "rebase", "text", strings.Join(half, "\n")).want(t, http.StatusUnprocessableEntity); r.find("line-error").Length() != 1 {
		t.Errorf("a stray ======= line is not flagged")
	}

	// A resolution that breaks the module is refused like in the editor.
	resolved := resolve(text, "- Do not invent a product name, a company or a version; say \"this workspace's assistant\".")
	broken := strings.Replace(resolved, "id: base.identity", "id: base.other", 1)
	if r := d.act(t, "rebase", "text", broken).want(t, http.StatusUnprocessableEntity); r.find("line-error").Length() != 1 {
		t.Errorf("a changed id is not flagged under its line")
	}

	d.act(t, "rebase", "text", resolved).wantRedirect(t, "/modules/base.identity/override/en-US/publish")
	if o := d.head(t); o.Revision != 2 || o.Text != resolved || o.BasedOnVersion != d.builtin.Version {
		t.Errorf("resolved rebase: revision %d, based on v%d:\n%s", o.Revision, o.BasedOnVersion, o.Text)
	}
	if audit := d.after.auditOf(t, domain.ActionRebase); len(audit) != 1 {
		t.Errorf("%d rebase audit entries, want 1", len(audit))
	}
}

// resolve replaces every conflict block of text by line.
func resolve(text, line string) string {
	var out []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "<<<<<<<"):
			in = true
			out = append(out, line)
		case strings.HasPrefix(l, ">>>>>>>"):
			in = false
		case !in:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDriftReviewStale(t *testing.T) {
	t.Parallel()
	d := newDrifted(t, mineOpening, upstreamClosing)
	hash := domain.TextHash(d.builtin.Text)

	// Someone changes and publishes the override after the review page
	// was loaded (keeping its old base: it is still drifted).
	o := d.head(t)
	edited := strings.Replace(d.override, "research desk", "research team", 1)
	o.Text, o.Publish = edited, true
	if _, err := d.after.store.SaveOverride(context.Background(), o, 1); err != nil {
		t.Fatal(err)
	}

	for _, action := range []string{"keep-mine", "take-builtin", "rebase"} {
		r := d.after.post(reviewPath, url.Values{"action": {action}, "base": {"1"}, "builtin": {hash}}).want(t, http.StatusConflict)
		if !strings.Contains(r.find("alert").Text(), "revision 2") {
			t.Errorf("%s: 409 page without the current revision: %q", action, r.find("alert").Text())
		}
	}
	// A stale rebase keeps the operator's text.
	r := d.after.post(reviewPath, url.Values{"action": {"rebase"}, "base": {"1"}, "builtin": {hash}, "text": {"my text"}}).want(t, http.StatusConflict)
	if got := r.textarea("text"); got != "my text" {
		t.Errorf("stale rebase text %q", got)
	}
	// So does a builtin other than the one the page showed.
	d.after.post(reviewPath, url.Values{"action": {"keep-mine"}, "base": {"2"}, "builtin": {"0123"}}).want(t, http.StatusConflict)
	if o := d.head(t); o.Revision != 2 || o.Text != edited || o.BasedOnVersion != d.base.Version {
		t.Errorf("a stale action changed the override: revision %d, based on v%d", o.Revision, o.BasedOnVersion)
	}
	d.after.post(reviewPath, url.Values{"action": {"merge"}, "base": {"2"}, "builtin": {hash}}).want(t, http.StatusUnprocessableEntity)
}

// withoutModule loads the builtin library with id removed from every
// locale: a release that retired the module.
func withoutModule(t *testing.T, id string) *library.Snapshot {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "library"))); err != nil {
		t.Fatal(err)
	}
	for _, loc := range builtin(t).ModuleLocales(id) {
		if err := os.Remove(filepath.Join(dir, "modules", loc, library.FileName(id))); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := library.LoadDir(dir)
	if err != nil {
		t.Fatalf("library without %s: %v", id, err)
	}
	return snap
}

// An override whose builtin left the library is drifted (builtin
// removed) on the drift list, the module page and the API; its review
// offers to keep it as a user module or remove it, and keeping it ends
// the drift.
func TestDriftBuiltinRemoved(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	before := setupOn(t, dbURL)
	b := builtinText(t, before.lib, "aux.polish", "en-US")
	mine := strings.TrimRight(b.Text, "\n") + "\n\nKeep the writer's own terms.\n"
	before.saveOverride("aux.polish", "en-US", mine, 0)
	after := setupOn(t, dbURL, withoutModule(t, "aux.polish"))

	row := after.get("/drift").want(t, http.StatusOK).find("drift-row")
	if row.Length() != 1 || !strings.Contains(row.Text(), "builtin removed from the library") {
		t.Fatalf("drift rows: %d %q, want the override with reason builtin removed", row.Length(), row.Text())
	}
	page := after.get("/modules/aux.polish").want(t, http.StatusOK)
	if got := page.find("drift").Text(); !strings.Contains(got, "builtin removed from the library") {
		t.Errorf("module page drift line %q", got)
	}
	got := decode[handlers.APIOverride](t, after.api(http.MethodGet, "/api/v1/overrides/aux.polish?locale=en-US", ""))
	if got.Drift == nil || got.Drift.Reason != assembler.DriftBuiltinRemoved || got.Drift.BasedOnVersion != b.Version || got.Drift.BuiltinVersion != 0 {
		t.Errorf("API drift %+v, want builtin-removed based on v%d", got.Drift, b.Version)
	}

	const path = "/drift/aux.polish/en-US"
	r := after.get(path).want(t, http.StatusOK)
	if r.find("rebase").Length() != 0 || !strings.Contains(r.find("keep-mine").Text(), "user module") {
		t.Errorf("review actions: rebase %d, keep %q; want keep as a user module and no rebase", r.find("rebase").Length(), r.find("keep-mine").Text())
	}
	head, err := after.store.GetOverride(context.Background(), "aux.polish", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"action": {"keep-mine"}, "base": {itoa(head.Revision)}, "builtin": {domain.TextHash("")}}
	list := after.follow(after.post(path, form).wantRedirect(t, "/drift")).want(t, http.StatusOK)
	if list.find("no-drift").Length() != 1 {
		t.Fatal("still drifted after keeping it as a user module")
	}
	head, err = after.store.GetOverride(context.Background(), "aux.polish", "en-US")
	if err != nil || head.BasedOnVersion != 0 || head.Text != mine {
		t.Errorf("kept override: based on v%d (%v), want a user module with the same text", head.BasedOnVersion, err)
	}
	if st := after.get("/modules/aux.polish").want(t, http.StatusOK).find("locale").AttrOr("data-source", ""); st != "user-module" {
		t.Errorf("served as %q, want user-module", st)
	}
}

// While a draft is pending on a drifted override, the review shows what
// serves and refuses every action: keep mine would publish the draft.
func TestDriftReviewWaitsForAPendingDraft(t *testing.T) {
	t.Parallel()
	d := newDrifted(t, mineOpening, upstreamClosing)
	served := d.head(t)
	draft := strings.Replace(d.override, "research desk", "research team", 1)
	d.after.saveDraft("base.identity", "en-US", draft, served.Revision)

	r := d.after.get(reviewPath).want(t, http.StatusOK)
	if r.find("pending-draft").Length() != 1 || r.find("keep-mine").Length() != 0 {
		t.Errorf("pending draft alert %d, keep-mine buttons %d; want the alert and no action", r.find("pending-draft").Length(), r.find("keep-mine").Length())
	}
	if got := r.find("text-override").Find("pre").Text(); got != d.override {
		t.Errorf("the review shows %q, want the served text", got)
	}
	d.act(t, "keep-mine").want(t, http.StatusConflict)
	if head := d.head(t); head.Revision != served.Revision+1 || !head.Draft || head.Text != draft {
		t.Errorf("head revision %d draft %v: want the draft %d untouched", head.Revision, head.Draft, served.Revision+1)
	}
}

// TestDriftReviewLeadsWithDiffsAndEditor: without script, the review
// shows the builtin's change and the override against the builtin now
// first, then the rebase editor holding the merged text with its
// conflict listed, and the data that turns it into the code editor with
// the conflict actions; the three texts come after it.
func TestDriftReviewLeadsWithDiffsAndEditor(t *testing.T) {
	t.Parallel()
	mine := func(s string) string {
		return replaceLine(t, s, lineNoInvent, "- Do not invent a product name or a company.")
	}
	upstream := func(s string) string {
		return replaceLine(t, s, lineNoInvent, "- Do not invent a product name, a company or a version.")
	}
	d := newDrifted(t, mine, upstream)
	r := d.after.get(reviewPath).want(t, http.StatusOK)

	var order []string
	r.doc.Find(`[data-testid="diff-upstream"], [data-testid="diff-two-way"], [data-testid="rebase-editor"], [data-testid="three-texts"]`).Each(func(_ int, s *goquery.Selection) {
		order = append(order, s.AttrOr("data-testid", ""))
	})
	if got := strings.Join(order, " "); got != "diff-upstream diff-two-way rebase-editor three-texts" {
		t.Errorf("page order: %s", got)
	}
	// The override against the builtin now: its line replaced upstream's,
	// only words that differ marked.
	lines := r.find("diff-two-way").Find(`.dl-inline:contains("Do not invent")`)
	if lines.Length() != 2 || lines.Find("del").Length() == 0 || lines.Find("ins").Length() == 0 {
		t.Fatalf("the changed line is not marked inside: %d lines, %d del, %d ins", lines.Length(), lines.Find("del").Length(), lines.Find("ins").Length())
	}
	lines.Find("del, ins").Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Text(), "invent") {
			t.Errorf("unchanged words marked: %q", s.Text())
		}
	})
	if got := r.find("rebase-editor").Find(`[data-testid="conflict"]`).Length(); got != 1 {
		t.Errorf("%d conflicts listed, want 1", got)
	}
	merged, err := linediff.Merge(d.base.Text, d.override, d.builtin.Text)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.textarea("text"); got != merged.Text {
		t.Errorf("the rebase editor holds:\n%s\nwant the merged text:\n%s", got, merged.Text)
	}
	var cfg struct {
		Check     string `json:"check"`
		Conflicts bool   `json:"conflicts"`
		Against   []struct {
			Key, Text string
		} `json:"against"`
	}
	if err := json.Unmarshal([]byte(r.doc.Find("#editor-config").AttrOr("data-config", "")), &cfg); err != nil {
		t.Fatalf("editor config: %v", err)
	}
	if cfg.Check != "/modules/base.identity/override/en-US/check" || !cfg.Conflicts || len(cfg.Against) != 2 ||
		cfg.Against[0].Key != "builtin" || cfg.Against[0].Text != d.builtin.Text || cfg.Against[1].Text != d.override {
		t.Errorf("editor config: check %q, conflicts %v, %d texts to diff against", cfg.Check, cfg.Conflicts, len(cfg.Against))
	}
}

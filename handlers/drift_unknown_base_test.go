package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/store/storetest"
)

// An override whose base (the builtin text it was written against) was
// never recorded: the review still works, says the base is unknown and
// shows the builtin now against the override (two-way), without a
// three-way merge or a rebase; keep mine records the builtin now as the
// base, which ends the drift.
func TestDriftReviewUnknownBase(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	d := &drifted{before: setupOn(t, dbURL)}
	d.base = builtinText(t, d.before.lib, "base.identity", "en-US")
	d.override = mineOpening(d.base.Text)
	d.before.saveOverride("base.identity", "en-US", d.override, 0)
	if _, err := d.before.store.Pool().Exec(context.Background(),
		`UPDATE overrides SET base_snapshot = '', base_hash = '' WHERE module_id = 'base.identity'`); err != nil {
		t.Fatal(err)
	}
	d.after = setupOn(t, dbURL, upstreamLibrary(t, "base.identity", upstreamClosing))
	d.builtin = builtinText(t, d.after.lib, "base.identity", "en-US")

	r := d.after.get(reviewPath).want(t, http.StatusOK)
	if got := r.find("base-unknown").Text(); !strings.Contains(got, "Base: unknown (builtin v1, its text never recorded).") || !strings.Contains(got, "two-way view") {
		t.Errorf("notice %q, want it to say the base (v1) is unknown and why the view is two-way", got)
	}
	for id, want := range map[string]string{"text-builtin": d.builtin.Text, "text-override": d.override} {
		if got := r.find(id).Find("pre").Text(); got != want {
			t.Errorf("%s shows:\n%s\nwant:\n%s", id, got, want)
		}
	}
	two := r.find("diff-two-way")
	if ins := two.Find(`[data-kind="insert"]`).Text(); !strings.Contains(ins, "research desk") {
		t.Errorf("two-way diff inserts %q, want the override's opening", ins)
	}
	if del := two.Find(`[data-kind="delete"]`).Text(); !strings.Contains(del, "When a question about yourself") {
		t.Errorf("two-way diff deletes %q, want the builtin's new closing", del)
	}
	for _, gone := range []string{"text-base", "diff-upstream", "diff-yours", "merge-preview", "rebase"} {
		if r.find(gone).Length() != 0 {
			t.Errorf("%s shown without a base", gone)
		}
	}
	if r.find("keep-mine").Length() != 1 || r.find("take-builtin").Length() != 1 || r.find("edit-instead").AttrOr("href", "") != "/modules/base.identity/override/en-US" {
		t.Error("keep mine, take builtin or the editor link missing")
	}
	// A rebase posted anyway is refused with the reason, nothing saved.
	before := d.head(t).Revision
	if got := d.act(t, "rebase").want(t, http.StatusUnprocessableEntity).find("alert").Text(); !strings.Contains(got, "base") {
		t.Errorf("rebase without a base: alert %q", got)
	}
	if d.head(t).Revision != before {
		t.Error("the refused rebase saved")
	}

	d.act(t, "keep-mine").wantRedirect(t, "/drift")
	if h := d.head(t); h.BaseSnapshot != d.builtin.Text || h.Text != d.override {
		t.Errorf("after keep mine: base %q…, text changed %v", h.BaseSnapshot[:20], h.Text != d.override)
	}
	if r := d.after.get(reviewPath).want(t, http.StatusOK); !strings.Contains(r.find("review-reason").Text(), "nothing to review") {
		t.Errorf("after keep mine: %q", r.find("review-reason").Text())
	}
}

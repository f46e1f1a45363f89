package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
)

// served returns the text ListOverrides serves for identity (en-US), ""
// when none, and whether a draft is pending on top.
func served(t *testing.T, s *store.Store) (string, int, bool) {
	t.Helper()
	list, err := s.ListOverrides(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range list {
		if o.ModuleID == "identity" && o.Locale == "en-US" {
			return o.Text, o.Revision, o.Draft
		}
	}
	return "", 0, false
}

func drafts(t *testing.T, s *store.Store) []string {
	t.Helper()
	list, err := s.ListDrafts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range list {
		out = append(out, o.ModuleID+" "+o.Locale+" "+o.Text)
	}
	return out
}

func TestDraftPublishDiscard(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "ed")

	// A save is a draft: not served, listed as a draft.
	d1, err := s.SaveOverride(ctx, override("identity", "en-US", "one"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !d1.Draft || d1.PublishedRevision != 0 {
		t.Errorf("saved: draft %v published %d, want a draft never published", d1.Draft, d1.PublishedRevision)
	}
	if text, _, _ := served(t, s); text != "" {
		t.Errorf("a draft is served: %q", text)
	}
	if got := strings.Join(drafts(t, s), ","); got != "identity en-US one" {
		t.Errorf("drafts %q", got)
	}
	// Publish: If-Match checked; then served, recorded, no new revision.
	if _, err := s.Publish(ctx, "identity", "en-US", 2); !errors.Is(err, library.ErrConflict) {
		t.Errorf("stale publish: %v, want ErrConflict", err)
	}
	if _, err := s.Publish(ctx, "identity", "de-DE", 1); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("publish of nothing: %v, want ErrNotFound", err)
	}
	p, err := s.Publish(ctx, "identity", "en-US", 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Revision != 1 || p.PublishedRevision != 1 || p.Draft {
		t.Errorf("published: %+v", p)
	}
	if text, rev, draft := served(t, s); text != "one" || rev != 1 || draft {
		t.Errorf("served %q revision %d draft %v, want one 1 false", text, rev, draft)
	}
	if len(drafts(t, s)) != 0 {
		t.Errorf("drafts after publish: %q", drafts(t, s))
	}
	// Publishing again changes nothing and records nothing.
	if _, err := s.Publish(ctx, "identity", "en-US", 1); err != nil {
		t.Errorf("publish again: %v", err)
	}

	// A second draft: the published text keeps serving.
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "two"), 1); err != nil {
		t.Fatal(err)
	}
	if text, rev, draft := served(t, s); text != "one" || rev != 1 || !draft {
		t.Errorf("with a draft pending: served %q revision %d draft %v, want one 1 true", text, rev, draft)
	}
	head, err := s.GetOverride(ctx, "identity", "en-US")
	if err != nil || head.Text != "two" || head.Revision != 2 || head.PublishedRevision != 1 || !head.Draft {
		t.Errorf("head: %+v, %v; want the draft two at revision 2", head, err)
	}
	// Discard: If-Match checked; a new revision with the published text.
	if _, _, err := s.Discard(ctx, "identity", "en-US", 1); !errors.Is(err, library.ErrConflict) {
		t.Errorf("stale discard: %v, want ErrConflict", err)
	}
	dis, removed, err := s.Discard(ctx, "identity", "en-US", 2)
	if err != nil {
		t.Fatal(err)
	}
	if removed || dis.Text != "one" || dis.Revision != 3 || dis.PublishedRevision != 3 || dis.Draft {
		t.Errorf("discarded: removed %v %+v", removed, dis)
	}
	if text, rev, draft := served(t, s); text != "one" || rev != 3 || draft {
		t.Errorf("after discard: served %q revision %d draft %v, want one 3 false", text, rev, draft)
	}
	if _, _, err := s.Discard(ctx, "identity", "en-US", 3); !errors.Is(err, library.ErrInvalid) {
		t.Errorf("discard without a draft: %v, want ErrInvalid", err)
	}

	// Save-and-publish in one transaction.
	if _, err := s.SaveOverride(ctx, withPublish(override("identity", "en-US", "three")), 3); err != nil {
		t.Fatal(err)
	}
	if text, rev, _ := served(t, s); text != "three" || rev != 4 {
		t.Errorf("save-and-publish: served %q revision %d", text, rev)
	}

	// A draft never published is discarded by removing the override.
	if _, err := s.SaveOverride(ctx, override("other", "en-US", "x"), 0); err != nil {
		t.Fatal(err)
	}
	if _, removed, err := s.Discard(ctx, "other", "en-US", 1); err != nil || !removed {
		t.Errorf("discard of a never published draft: removed %v, %v", removed, err)
	}
	if _, err := s.GetOverride(ctx, "other", "en-US"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("after discarding it: %v, want ErrNotFound", err)
	}
	// …and the numbering goes on after it.
	if o, err := s.SaveOverride(ctx, override("other", "en-US", "y"), 2); err != nil || o.Revision != 3 {
		t.Errorf("save after the removal: %+v, %v", o, err)
	}

	revs, err := s.ListRevisions(ctx, "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, r := range revs {
		actions = append(actions, r.Action+" "+r.Text)
	}
	if got, want := strings.Join(actions, ","), "save three,discard one,save two,create one"; got != want {
		t.Errorf("revisions %q, want %q", got, want)
	}
	audit, err := s.ListAudit(ctx, domain.AuditFilter{SubjectID: "identity"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range audit {
		got = append(got, e.Actor+" "+e.Action+" "+e.Before+"→"+e.After)
	}
	if want := "ed save one→three,ed discard two→one,ed save one→two,ed publish →one,ed create →one"; strings.Join(got, ",") != want {
		t.Errorf("audit %q, want %q", got, want)
	}
}

func withPublish(o domain.Override) domain.Override {
	o.Publish = true
	return o
}

// ReadOperatorState reads published overrides, drafts and profiles in one
// read-only snapshot, each as stored.
func TestReadOperatorState(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "ed")
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "one"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Publish(ctx, "identity", "en-US", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "two"), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateProfile(ctx, domain.Profile{ID: "desk", Name: "Desk", PromptModules: []string{}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ReadOperatorState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Overrides) != 1 || got.Overrides[0].Text != "one" || len(got.Drafts) != 1 || got.Drafts[0].Text != "two" ||
		len(got.Profiles) != 1 || got.Profiles[0].ID != "desk" {
		t.Errorf("operator state: %+v", got)
	}
}

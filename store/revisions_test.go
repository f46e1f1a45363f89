package store_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
)

func itoa(n int) string { return strconv.Itoa(n) }

// history returns "revision action text" of every revision, newest first.
func history(t *testing.T, s *store.Store, id, locale string) []string {
	t.Helper()
	revs, err := s.ListRevisions(t.Context(), id, locale)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range revs {
		out = append(out, itoa(r.Revision)+" "+r.Action+" "+r.Text)
	}
	return out
}

func wantHistory(t *testing.T, s *store.Store, id, locale string, want ...string) {
	t.Helper()
	if got := history(t, s, id, locale); !slices.Equal(got, want) {
		t.Errorf("history of %s (%s) = %q\nwant %q", id, locale, got, want)
	}
}

// wantErr fails unless err matches target and names every word.
func wantErr(t *testing.T, what string, err, target error, words ...string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: err = %v, want %v", what, err, target)
		return
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

func TestRevisions(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "ada")

	in := override("identity", "zh-CN", "first")
	in.BaseHash = domain.TextHash(in.BaseSnapshot)
	created, err := s.SaveOverride(ctx, in, 0)
	if err != nil {
		t.Fatal(err)
	}
	if created.Author != "ada" || created.BaseHash != in.BaseHash || created.Action != "" {
		t.Errorf("created: Author %q BaseHash %q Action %q, want ada, the hash, no action", created.Author, created.BaseHash, created.Action)
	}
	bob := domain.WithActor(t.Context(), "bob")
	if _, err := s.SaveOverride(bob, override("identity", "zh-cn", "second"), 1); err != nil {
		t.Fatal(err)
	}
	third := override("identity", "ZH-CN", "third")
	third.Title, third.Version, third.BasedOnVersion, third.BaseSnapshot = "Identity 3", 4, 3, "builtin v3"
	if _, err := s.SaveOverride(bob, third, 2); err != nil {
		t.Fatal(err)
	}

	wantHistory(t, s, "identity", "zh-cn", "3 save third", "2 save second", "1 create first")
	revs, err := s.ListRevisions(ctx, "identity", "ZH-CN")
	if err != nil {
		t.Fatal(err)
	}
	r3 := revs[0]
	if r3.ModuleID != "identity" || r3.Locale != "zh-CN" || r3.Title != "Identity 3" || r3.Version != 4 ||
		r3.BasedOnVersion != 3 || r3.BaseSnapshot != "builtin v3" || r3.Author != "bob" || r3.CreatedAt.IsZero() {
		t.Errorf("revision 3 = %+v", r3)
	}
	if !sameJSON(t, r3.Fields, third.Fields) {
		t.Errorf("revision 3 Fields = %s, want %s", r3.Fields, third.Fields)
	}
	if revs[2].Author != "ada" || revs[2].BaseHash != in.BaseHash {
		t.Errorf("revision 1: Author %q BaseHash %q, want ada and the hash", revs[2].Author, revs[2].BaseHash)
	}

	r1, err := s.GetRevision(ctx, "identity", "zh-cn", 1)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Text != "first" || r1.Action != domain.ActionCreate || r1.Locale != "zh-CN" {
		t.Errorf("GetRevision 1 = %+v", r1)
	}
	_, err = s.GetRevision(ctx, "identity", "zh-CN", 4)
	wantErr(t, "GetRevision 4", err, library.ErrNotFound)

	none, err := s.ListRevisions(ctx, "nobody", "en-US")
	if err != nil || none == nil || len(none) != 0 {
		t.Errorf("ListRevisions of no override = %#v, %v; want empty and non-nil", none, err)
	}
}

func TestActorAndAction(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	if got := domain.ActorFrom(ctx); got != "unknown" {
		t.Errorf("ActorFrom(no actor) = %q, want unknown", got)
	}
	if got := domain.ActorFrom(domain.WithActor(ctx, "")); got != "unknown" {
		t.Errorf("ActorFrom(empty actor) = %q, want unknown", got)
	}

	// The context's actor wins over Author; without either it is "unknown".
	o := override("a", "en-US", "x") // Author "ada"
	saved, err := s.SaveOverride(domain.WithActor(ctx, "console"), o, 0)
	if err != nil || saved.Author != "console" {
		t.Fatalf("with actor: Author %q, %v; want console", saved.Author, err)
	}
	o.ModuleID, o.Author = "b", ""
	if saved, err = s.SaveOverride(ctx, o, 0); err != nil || saved.Author != "unknown" {
		t.Fatalf("no actor, no author: Author %q, %v; want unknown", saved.Author, err)
	}

	o.Action, o.Text = domain.ActionImport, "imported"
	if _, err := s.SaveOverride(domain.WithActor(ctx, "cli"), o, 1); err != nil {
		t.Fatal(err)
	}
	wantHistory(t, s, "b", "en-US", "2 import imported", "1 create x")

	for _, action := range []string{domain.ActionDelete, domain.ActionTakeBuiltin, "publish", "bogus"} {
		o.Action = action
		_, err := s.SaveOverride(ctx, o, 2)
		wantErr(t, "action "+action, err, library.ErrInvalid, action)
	}
	wantHistory(t, s, "b", "en-US", "2 import imported", "1 create x")
}

func TestDeleteKeepsHistory(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "first"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "second"), 1); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteOverride(domain.WithActor(ctx, "eve"), "identity", "en-us", 2); err != nil {
		t.Fatal(err)
	}
	wantHistory(t, s, "identity", "en-US", "3 delete ", "2 save second", "1 create first")
	r3, err := s.GetRevision(ctx, "identity", "en-US", 3)
	if err != nil {
		t.Fatal(err)
	}
	if r3.Author != "eve" || r3.BasedOnVersion != 2 || r3.BaseSnapshot != "builtin v2" || r3.Fields != nil {
		t.Errorf("delete revision = %+v; want eve, the base kept, no fields", r3)
	}

	// Gone for every reader.
	_, err = s.GetOverride(ctx, "identity", "en-US")
	wantErr(t, "GetOverride after delete", err, library.ErrNotFound)
	if list, err := s.ListOverrides(ctx); err != nil || len(list) != 0 {
		t.Errorf("ListOverrides after delete = %v, %v; want none", list, err)
	}
	wantErr(t, "delete again", s.DeleteOverride(ctx, "identity", "en-US", 3), library.ErrNotFound)
	wantErr(t, "take builtin of a deleted one", s.TakeBuiltin(ctx, "identity", "en-US", 3), library.ErrNotFound)
	_, err = s.KeepMine(ctx, "identity", "en-US", 3, 3, "b", "")
	wantErr(t, "keep mine of a deleted one", err, library.ErrNotFound)

	// A stale save is refused with the delete's revision.
	_, err = s.SaveOverride(ctx, override("identity", "en-US", "stale"), 2)
	wantErr(t, "save on revision 2 after the delete", err, library.ErrConflict, "deleted at revision 3")

	// A create continues the numbering, from 0 or from the delete's revision.
	time.Sleep(time.Millisecond) // so that the new life's CreatedAt is later
	again, err := s.SaveOverride(ctx, override("identity", "EN-us", "third"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if again.Revision != 4 || again.Locale != "EN-us" || !again.CreatedAt.Equal(again.UpdatedAt) {
		t.Errorf("re-created: revision %d locale %q created %v updated %v; want 4, the new spelling, a new CreatedAt",
			again.Revision, again.Locale, again.CreatedAt, again.UpdatedAt)
	}
	if err := s.TakeBuiltin(ctx, "identity", "en-US", 4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "fourth"), 4); err == nil {
		t.Fatal("save on revision 4 after take-builtin 5: err = nil")
	}
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "fourth"), 5); err != nil {
		t.Fatal(err)
	}
	wantHistory(t, s, "identity", "en-US", "6 create fourth", "5 take-builtin ", "4 create third",
		"3 delete ", "2 save second", "1 create first")

	// A live override refuses a create (0) and a stale delete.
	_, err = s.SaveOverride(ctx, override("identity", "en-US", "dup"), 0)
	wantErr(t, "create on a live override", err, library.ErrConflict, "revision 6")
	wantErr(t, "stale delete", s.DeleteOverride(ctx, "identity", "en-US", 5), library.ErrConflict, "revision 6")
	wantErr(t, "stale take builtin", s.TakeBuiltin(ctx, "identity", "en-US", 5), library.ErrConflict, "revision 6")
	wantErr(t, "take builtin base 0", s.TakeBuiltin(ctx, "identity", "en-US", 0), library.ErrInvalid)
}

func TestRestoreRevision(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "ada")
	first := override("identity", "en-US", "first")
	first.BaseHash = "hash-v2"
	if _, err := s.SaveOverride(ctx, first, 0); err != nil {
		t.Fatal(err)
	}
	second := override("identity", "en-US", "second")
	second.Title, second.BasedOnVersion, second.BaseSnapshot, second.BaseHash = "Second", 3, "builtin v3", "hash-v3"
	if _, err := s.SaveOverride(ctx, second, 1); err != nil {
		t.Fatal(err)
	}

	restored, err := s.RestoreRevision(domain.WithActor(t.Context(), "bob"), "identity", "en-US", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if restored.Revision != 3 || restored.Text != "first" || restored.Title != "Identity" || restored.BasedOnVersion != 2 ||
		restored.BaseSnapshot != "builtin v2" || restored.BaseHash != "hash-v2" || restored.Author != "bob" {
		t.Errorf("restored = %+v; want revision 3 with revision 1's text and base, by bob", restored)
	}
	if !sameJSON(t, restored.Fields, first.Fields) {
		t.Errorf("restored Fields = %s, want %s", restored.Fields, first.Fields)
	}

	_, err = s.RestoreRevision(ctx, "identity", "en-US", 2, 2)
	wantErr(t, "stale restore", err, library.ErrConflict, "revision 3")
	_, err = s.RestoreRevision(ctx, "identity", "en-US", 9, 3)
	wantErr(t, "restore of no such revision", err, library.ErrNotFound)

	// After a delete: restore brings it back, continuing the numbering.
	if err := s.DeleteOverride(ctx, "identity", "en-US", 3); err != nil {
		t.Fatal(err)
	}
	_, err = s.RestoreRevision(ctx, "identity", "en-US", 4, 4)
	wantErr(t, "restore of a delete", err, library.ErrInvalid, "delete")
	back, err := s.RestoreRevision(ctx, "identity", "en-US", 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if back.Revision != 5 || back.Text != "second" || back.BaseHash != "hash-v3" {
		t.Errorf("restored after delete = %+v; want revision 5 with revision 2's text", back)
	}
	if got, err := s.GetOverride(ctx, "identity", "en-US"); err != nil || got.Text != "second" {
		t.Errorf("GetOverride after restore = %q, %v", got.Text, err)
	}
	wantHistory(t, s, "identity", "en-US", "5 restore second", "4 delete ", "3 restore first", "2 save second", "1 create first")
}

func TestKeepMine(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "mine"), 0); err != nil {
		t.Fatal(err)
	}
	kept, err := s.KeepMine(domain.WithActor(ctx, "console"), "identity", "EN-US", 1, 3, "builtin v3", "")
	if err != nil {
		t.Fatal(err)
	}
	if kept.Revision != 2 || kept.Text != "mine" || kept.Title != "Identity" || kept.Version != 3 || kept.BasedOnVersion != 3 ||
		kept.BaseSnapshot != "builtin v3" || kept.BaseHash != domain.TextHash("builtin v3") || kept.Author != "console" {
		t.Errorf("kept = %+v; want revision 2, same text, new base by console", kept)
	}
	r, err := s.GetRevision(ctx, "identity", "en-US", 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != domain.ActionKeepMine || r.BaseHash != kept.BaseHash || r.Fields == nil {
		t.Errorf("keep-mine revision = %+v", r)
	}

	_, err = s.KeepMine(ctx, "identity", "en-US", 1, 4, "builtin v4", "h4")
	wantErr(t, "stale keep mine", err, library.ErrConflict, "revision 2")
	_, err = s.KeepMine(ctx, "nothing", "en-US", 1, 4, "builtin v4", "h4")
	wantErr(t, "keep mine of no override", err, library.ErrNotFound)
	_, err = s.KeepMine(ctx, "identity", "en-US", 0, 4, "builtin v4", "h4")
	wantErr(t, "keep mine base 0", err, library.ErrInvalid)
}

func TestTextHash(t *testing.T) {
	t.Parallel()
	// sha256("abc"), FIPS 180-2 appendix B.1.
	if got := domain.TextHash("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("TextHash(abc) = %s", got)
	}
}

// Concurrent edits: two editors open the override at revision 3; A saves, then B: B is
// refused with the current revision, and A's text survives.
func TestTwoEditorsStaleSaveRefused(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	for i, text := range []string{"one", "two", "three"} {
		if _, err := s.SaveOverride(ctx, override("identity", "en-US", text), i); err != nil {
			t.Fatal(err)
		}
	}
	a, b := domain.WithActor(ctx, "editor-a"), domain.WithActor(ctx, "editor-b")
	openA, err := s.GetOverride(a, "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	openB, err := s.GetOverride(b, "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if openA.Revision != 3 || openB.Revision != 3 {
		t.Fatalf("editors opened revisions %d and %d, want 3", openA.Revision, openB.Revision)
	}

	if _, err := s.SaveOverride(a, override("identity", "en-US", "A's text"), openA.Revision); err != nil {
		t.Fatal(err)
	}
	_, err = s.SaveOverride(b, override("identity", "en-US", "B's text"), openB.Revision)
	wantErr(t, "B's save", err, library.ErrConflict, "revision 4, not 3")

	got, err := s.GetOverride(ctx, "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "A's text" || got.Revision != 4 || got.Author != "editor-a" {
		t.Errorf("after both saves: %q revision %d by %s, want A's text revision 4 by editor-a", got.Text, got.Revision, got.Author)
	}
	wantHistory(t, s, "identity", "en-US", "4 save A's text", "3 save three", "2 save two", "1 create one")
	entries, err := s.ListAudit(ctx, domain.AuditFilter{Actor: "editor-b"})
	if err != nil || len(entries) != 0 {
		t.Errorf("audit of the refused editor = %v, %v; want none", entries, err)
	}
}

package store_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

func override(moduleID, locale, text string) domain.Override {
	return domain.Override{
		ModuleID:       moduleID,
		Locale:         locale,
		Text:           text,
		Title:          "Identity",
		Version:        3,
		Fields:         json.RawMessage(`{"id": "identity", "layer": "identity", "triggers": ["always"]}`),
		BasedOnVersion: 2,
		BaseSnapshot:   "builtin v2",
		Author:         "ada",
	}
}

func TestOverrideCreateGet(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	in := override("identity", "zh-CN", "---\nid: identity\n---\n你好")

	saved, err := s.SaveOverride(ctx, in, 0)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Revision != 1 {
		t.Errorf("Revision = %d, want 1", saved.Revision)
	}
	if saved.CreatedAt.IsZero() || !saved.UpdatedAt.Equal(saved.CreatedAt) {
		t.Errorf("CreatedAt = %v, UpdatedAt = %v; want equal and set", saved.CreatedAt, saved.UpdatedAt)
	}
	if !sameJSON(t, saved.Fields, in.Fields) {
		t.Errorf("Fields = %s, want %s", saved.Fields, in.Fields)
	}
	want := in
	want.Revision, want.CreatedAt, want.UpdatedAt, want.Fields = 1, saved.CreatedAt, saved.UpdatedAt, saved.Fields
	want.Draft = true // a save is a draft until published
	if !equalOverride(saved, want) {
		t.Errorf("saved = %+v\nwant %+v", saved, want)
	}

	// Locales compare case-insensitively; the stored spelling is kept.
	got, err := s.GetOverride(ctx, "identity", "ZH-cn")
	if err != nil {
		t.Fatal(err)
	}
	if !equalOverride(got, saved) {
		t.Errorf("GetOverride = %+v\nwant %+v", got, saved)
	}
}

func equalOverride(a, b domain.Override) bool {
	a.Fields, b.Fields = nil, nil // compared with sameJSON
	ca, cb := a.CreatedAt, b.CreatedAt
	ua, ub := a.UpdatedAt, b.UpdatedAt
	a.CreatedAt, b.CreatedAt, a.UpdatedAt, b.UpdatedAt = ca.UTC(), cb.UTC(), ua.UTC(), ub.UTC()
	return reflect.DeepEqual(a, b)
}

func TestOverrideNilFields(t *testing.T) {
	t.Parallel()
	s := setup(t)
	in := override("notes", "en-US", "text")
	in.Fields = nil
	if _, err := s.SaveOverride(t.Context(), in, 0); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetOverride(t.Context(), "notes", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if got.Fields != nil {
		t.Errorf("Fields = %q, want nil", got.Fields)
	}
}

func TestOverrideDuplicateCreate(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "first"), 0); err != nil {
		t.Fatal(err)
	}
	for _, locale := range []string{"en-US", "EN-us"} {
		_, err := s.SaveOverride(ctx, override("identity", locale, "second"), 0)
		if !errors.Is(err, library.ErrConflict) {
			t.Errorf("create identity (%s) again: err = %v, want ErrConflict", locale, err)
		}
	}
	got, err := s.GetOverride(ctx, "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "first" {
		t.Errorf("Text = %q, want %q", got.Text, "first")
	}
}

func TestOverrideUpdate(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	created, err := s.SaveOverride(ctx, override("identity", "zh-CN", "first"), 0)
	if err != nil {
		t.Fatal(err)
	}

	edit := override("identity", "ZH-CN", "second")
	edit.Title, edit.Version, edit.BasedOnVersion, edit.Author = "Identity 2", 4, 3, "bob"
	edit.Fields = json.RawMessage(`{"id": "identity", "priority": 5}`)
	updated, err := s.SaveOverride(ctx, edit, created.Revision)
	if err != nil {
		t.Fatal(err)
	}
	want := edit
	want.Locale = "zh-CN" // the first spelling stays
	want.Revision = 2
	want.CreatedAt, want.UpdatedAt = created.CreatedAt, updated.UpdatedAt
	want.Draft = true // a save is a draft until published
	if !equalOverride(updated, want) {
		t.Errorf("updated = %+v\nwant %+v", updated, want)
	}
	if !sameJSON(t, updated.Fields, edit.Fields) {
		t.Errorf("Fields = %s, want %s", updated.Fields, edit.Fields)
	}
	if !updated.UpdatedAt.After(created.UpdatedAt) {
		t.Errorf("UpdatedAt %v not after %v", updated.UpdatedAt, created.UpdatedAt)
	}

	// A save based on revision 1 is now stale: refused, the text kept.
	_, err = s.SaveOverride(ctx, override("identity", "zh-CN", "stale"), 1)
	if !errors.Is(err, library.ErrConflict) || !strings.Contains(err.Error(), "revision 2") {
		t.Fatalf("stale save: err = %v, want ErrConflict naming revision 2", err)
	}
	got, err := s.GetOverride(ctx, "identity", "zh-CN")
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "second" || got.Revision != 2 {
		t.Errorf("after stale save: Text %q revision %d, want %q revision 2", got.Text, got.Revision, "second")
	}
}

func TestOverrideInvalid(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	tests := []struct {
		name string
		o    domain.Override
		base int
	}{
		{"negative base revision", override("identity", "en-US", "x"), -1},
		{"empty module id", override("", "en-US", "x"), 0},
		{"empty locale", override("identity", "", "x"), 0},
		{"malformed fields", func() domain.Override {
			o := override("identity", "en-US", "x")
			o.Fields = json.RawMessage(`{`)
			return o
		}(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.SaveOverride(ctx, tt.o, tt.base); !errors.Is(err, library.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
	if err := s.DeleteOverride(ctx, "identity", "en-US", 0); !errors.Is(err, library.ErrInvalid) {
		t.Errorf("delete with base revision 0: err = %v, want ErrInvalid", err)
	}
}

func TestOverrideDelete(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	created, err := s.SaveOverride(ctx, override("identity", "en-US", "first"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "second"), created.Revision); err != nil {
		t.Fatal(err)
	}

	if err := s.DeleteOverride(ctx, "identity", "en-US", 1); !errors.Is(err, library.ErrConflict) {
		t.Fatalf("stale delete: err = %v, want ErrConflict", err)
	}
	if _, err := s.GetOverride(ctx, "identity", "en-US"); err != nil {
		t.Fatalf("after stale delete: %v", err)
	}
	if err := s.DeleteOverride(ctx, "identity", "EN-US", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetOverride(ctx, "identity", "en-US"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("after delete: err = %v, want ErrNotFound", err)
	}
}

// No lost updates: of many saves from one base revision one wins.
func TestOverrideConcurrentSaves(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	created, err := s.SaveOverride(ctx, override("identity", "en-US", "base"), 0)
	if err != nil {
		t.Fatal(err)
	}

	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.SaveOverride(ctx, override("identity", "en-US", "edit "+strconv.Itoa(i)), created.Revision)
		})
	}
	wg.Wait()

	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner == -1:
			winner = i
		case err == nil:
			t.Errorf("saves %d and %d both succeeded", winner, i)
		case !errors.Is(err, library.ErrConflict):
			t.Errorf("save %d: err = %v, want ErrConflict", i, err)
		}
	}
	if winner == -1 {
		t.Fatal("no save succeeded")
	}
	got, err := s.GetOverride(ctx, "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if want := "edit " + strconv.Itoa(winner); got.Text != want || got.Revision != 2 {
		t.Errorf("stored %q revision %d, want %q revision 2", got.Text, got.Revision, want)
	}
}

func TestListOverrides(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()

	list, err := s.ListOverrides(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Fatalf("empty table: %d overrides", len(list))
	}

	for _, k := range [][2]string{{"task.minutes", "en-US"}, {"identity", "zh-CN"}, {"identity", "en-US"}, {"Zeta", "en-US"}} {
		o := override(k[0], k[1], "x")
		o.Publish = true // ListOverrides lists what is served
		if _, err := s.SaveOverride(ctx, o, 0); err != nil {
			t.Fatal(err)
		}
	}
	list, err = s.ListOverrides(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range list {
		got = append(got, o.ModuleID+" "+o.Locale)
	}
	want := []string{"Zeta en-US", "identity en-US", "identity zh-CN", "task.minutes en-US"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order = %q, want %q", got, want)
	}
}

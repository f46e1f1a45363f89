package store_test

import (
	"reflect"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/store"
)

// ReadOverrideKey holds exactly what ListOverrides and ListDrafts hold of
// one key, through every step of an override's life, whatever the
// locale's spelling, and nothing of the other keys.
func TestReadOverrideKey(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "ed")
	if _, err := s.SaveOverride(ctx, withPublish(override("identity", "zh-CN", "other locale")), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveOverride(ctx, override("style", "en-US", "other id"), 0); err != nil {
		t.Fatal(err)
	}
	check := func(step string, published, draft string) {
		t.Helper()
		got, err := s.ReadOverrideKey(t.Context(), "identity", "EN-us")
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		state, err := s.ReadOperatorState(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var want domain.OverrideKeyState
		for _, o := range state.Overrides {
			if o.ModuleID == "identity" && o.Locale == "en-US" {
				want.Published = &o
			}
		}
		for _, o := range state.Drafts {
			if o.ModuleID == "identity" && o.Locale == "en-US" {
				want.Draft = &o
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ReadOverrideKey %s, want %s", step, keyState(got), keyState(want))
		}
		if keyText(got.Published) != published || keyText(got.Draft) != draft {
			t.Errorf("%s: published %q, draft %q; want %q, %q", step, keyText(got.Published), keyText(got.Draft), published, draft)
		}
	}
	check("none", "-", "-")
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "one"), 0); err != nil {
		t.Fatal(err)
	}
	check("a draft", "-", "one")
	if _, err := s.Publish(ctx, "identity", "en-US", 1); err != nil {
		t.Fatal(err)
	}
	check("published", "one", "-")
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "two"), 1); err != nil {
		t.Fatal(err)
	}
	check("a draft on top", "one", "two")
	if _, _, err := s.Discard(ctx, "identity", "en-US", 2); err != nil {
		t.Fatal(err)
	}
	check("discarded", "one", "-")
	if err := s.DeleteOverride(ctx, "identity", "en-US", 3); err != nil {
		t.Fatal(err)
	}
	check("deleted", "-", "-")
	if _, err := s.SaveOverride(ctx, withPublish(override("identity", "en-US", "three")), 0); err != nil {
		t.Fatal(err)
	}
	check("saved and published after the delete", "three", "-")
}

// keyText is the text of o, "-" for none.
func keyText(o *domain.Override) string {
	if o == nil {
		return "-"
	}
	return o.Text
}

// keyState prints k's two rows.
func keyState(k domain.OverrideKeyState) string {
	return "published " + keyText(k.Published) + ", draft " + keyText(k.Draft)
}

// A change made with an origin in its context carries it in its
// notification; one made without carries none (the payload leaves it out).
func TestNotifyCarriesTheOrigin(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	conn := listen(t, dbURL)
	ctx := domain.WithOrigin(t.Context(), "process-a")
	if _, err := s.CreateProfile(ctx, domain.Profile{ID: "desk"}); err != nil {
		t.Fatal(err)
	}
	if got, want := next(t, conn), (store.Change{Subject: "profile", ID: "desk", Origin: "process-a"}); got != want {
		t.Errorf("with an origin: %+v, want %+v", got, want)
	}
	if _, err := s.SaveOverride(t.Context(), override("identity", "en-US", "one"), 0); err != nil {
		t.Fatal(err)
	}
	if got, want := next(t, conn), (store.Change{Subject: "override", ID: "identity", Locale: "en-US", Revision: 1}); got != want {
		t.Errorf("without: %+v, want %+v", got, want)
	}
}

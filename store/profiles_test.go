package store_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

func profile(id string) domain.Profile {
	return domain.Profile{
		ID:              id,
		Name:            "Default",
		Locale:          "zh-CN",
		Model:           "gpt-4o",
		TimeZone:        "Asia/Shanghai",
		PromptModules:   []string{"identity", "style.concise", "rules.safety"},
		SystemPrompt:    "Answer briefly.",
		SkillDisclosure: true,
		TokenBudget:     8000,
	}
}

func equalProfile(a, b domain.Profile) bool {
	a.UpdatedAt, b.UpdatedAt = a.UpdatedAt.UTC(), b.UpdatedAt.UTC()
	return reflect.DeepEqual(a, b)
}

func TestProfileRoundTrip(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	in := profile("default")

	created, err := s.CreateProfile(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if created.UpdatedAt.IsZero() {
		t.Error("UpdatedAt not set")
	}
	want := in
	want.UpdatedAt = created.UpdatedAt
	if !equalProfile(created, want) {
		t.Errorf("created = %+v\nwant %+v", created, want)
	}
	got, err := s.GetProfile(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if !equalProfile(got, created) {
		t.Errorf("GetProfile = %+v\nwant %+v", got, created)
	}

	edit := domain.Profile{ID: "default", Name: "Plain", PromptModules: []string{"rules.safety", "identity"}}
	updated, err := s.UpdateProfile(ctx, edit)
	if err != nil {
		t.Fatal(err)
	}
	want = edit
	want.UpdatedAt = updated.UpdatedAt
	if !equalProfile(updated, want) {
		t.Errorf("updated = %+v\nwant %+v", updated, want)
	}
	if !updated.UpdatedAt.After(created.UpdatedAt) {
		t.Errorf("UpdatedAt %v not after %v", updated.UpdatedAt, created.UpdatedAt)
	}

	if err := s.DeleteProfile(ctx, "default"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetProfile(ctx, "default"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("after delete: err = %v, want ErrNotFound", err)
	}
}

func TestProfileNilModules(t *testing.T) {
	t.Parallel()
	s := setup(t)
	p, err := s.CreateProfile(t.Context(), domain.Profile{ID: "bare"})
	if err != nil {
		t.Fatal(err)
	}
	if p.PromptModules == nil || len(p.PromptModules) != 0 {
		t.Errorf("PromptModules = %#v, want empty and non-nil", p.PromptModules)
	}
}

func TestProfileErrors(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	if _, err := s.CreateProfile(ctx, profile("default")); err != nil {
		t.Fatal(err)
	}
	neg := profile("default")
	neg.TokenBudget = -1
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"duplicate id", func() error { _, err := s.CreateProfile(ctx, profile("default")); return err }, library.ErrConflict},
		{"empty id", func() error { _, err := s.CreateProfile(ctx, profile("")); return err }, library.ErrInvalid},
		{"negative budget", func() error { _, err := s.UpdateProfile(ctx, neg); return err }, library.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	got, err := s.GetProfile(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if got.TokenBudget != 8000 {
		t.Errorf("TokenBudget = %d after refused saves, want 8000", got.TokenBudget)
	}
}

func TestListProfiles(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	for _, id := range []string{"support", "default", "Zed"} {
		if _, err := s.CreateProfile(ctx, profile(id)); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.ListProfiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range list {
		got = append(got, p.ID)
	}
	if want := []string{"Zed", "default", "support"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids = %q, want %q", got, want)
	}
}

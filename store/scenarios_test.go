package store_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

const minutesRequest = `{"profile": "default", "locale": "zh-CN", "command": "/minutes",
	"attachments": [{"name": "a.m4a", "type": "audio/mp4"}], "webSearch": true,
	"variables": {"bot_name": "小助手"}}`

func TestScenarioRoundTrip(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	in := domain.Scenario{ID: "minutes", Name: "Minutes", Description: "Audio to minutes",
		Request: json.RawMessage(minutesRequest), Builtin: true}

	saved, err := s.SaveScenario(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetScenario(ctx, "minutes")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []domain.Scenario{saved, got} {
		if string(sc.Request) != minutesRequest {
			t.Errorf("Request = %s, want it byte for byte (key order kept): %s", sc.Request, minutesRequest)
		}
		if sc.ID != in.ID || sc.Name != in.Name || sc.Description != in.Description || !sc.Builtin || sc.UpdatedAt.IsZero() {
			t.Errorf("scenario = %+v, want %+v with UpdatedAt set", sc, in)
		}
	}

	// Saving the id again replaces it.
	edit := domain.Scenario{ID: "minutes", Name: "Minutes (mine)", Request: json.RawMessage(`{"message": "hi"}`)}
	replaced, err := s.SaveScenario(ctx, edit)
	if err != nil {
		t.Fatal(err)
	}
	if replaced.Name != edit.Name || replaced.Description != "" || replaced.Builtin || !sameJSON(t, replaced.Request, edit.Request) {
		t.Errorf("replaced = %+v, want %+v", replaced, edit)
	}
	if !replaced.UpdatedAt.After(saved.UpdatedAt) {
		t.Errorf("UpdatedAt %v not after %v", replaced.UpdatedAt, saved.UpdatedAt)
	}
	if n, err := s.CountScenarios(ctx); err != nil || n != 1 {
		t.Errorf("CountScenarios = %d, %v; want 1", n, err)
	}

	if err := s.DeleteScenario(ctx, "minutes"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetScenario(ctx, "minutes"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("after delete: err = %v, want ErrNotFound", err)
	}
}

func TestScenarioInvalid(t *testing.T) {
	t.Parallel()
	s := setup(t)
	tests := []struct {
		name    string
		id      string
		request json.RawMessage
	}{
		{"nil request", "a", nil},
		{"malformed request", "a", json.RawMessage(`{"profile":`)},
		{"request not an object", "a", json.RawMessage(`[1, 2]`)},
		{"empty id", "", json.RawMessage(`{}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.SaveScenario(t.Context(), domain.Scenario{ID: tt.id, Request: tt.request})
			if !errors.Is(err, library.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestListCountScenarios(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := t.Context()
	if n, err := s.CountScenarios(ctx); err != nil || n != 0 {
		t.Fatalf("CountScenarios on an empty table = %d, %v; want 0", n, err)
	}
	for _, id := range []string{"web-search", "minutes", "faq"} {
		if _, err := s.SaveScenario(ctx, domain.Scenario{ID: id, Request: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.ListScenarios(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sc := range list {
		got = append(got, sc.ID)
	}
	if want := []string{"faq", "minutes", "web-search"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids = %q, want %q", got, want)
	}
	if n, err := s.CountScenarios(ctx); err != nil || n != 3 {
		t.Errorf("CountScenarios = %d, %v; want 3", n, err)
	}
}

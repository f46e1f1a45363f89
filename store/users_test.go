package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// User names are one name ignoring case: adding Alice beside alice is a
// conflict that says so, and every lookup (login included) finds alice
// whatever the case typed.
func TestUserNamesIgnoreCase(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "admin")
	link, err := s.CreateSetupToken(ctx, "alice", domain.RoleEditor)
	if err != nil {
		t.Fatal(err)
	}
	firstAdmin, err := s.CreateFirstAdminLink(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompleteSetup(ctx, link, "", "correct horse battery"); err != nil {
		t.Fatal(err)
	}

	for _, blank := range []string{"", "   "} {
		if _, err := s.CreateSetupToken(ctx, blank, domain.RoleAdmin); !errors.Is(err, library.ErrInvalid) || !strings.Contains(err.Error(), "name: required") {
			t.Errorf("setup link for %q: %v, want invalid, name required", blank, err)
		}
	}

	_, err = s.CreateSetupToken(ctx, "Alice", domain.RoleViewer)
	if want := "a user named alice exists already (user names are compared ignoring case, so Alice is the same name)"; !errors.Is(err, library.ErrConflict) || !strings.Contains(err.Error(), want) {
		t.Errorf("setup link for Alice: %v, want a conflict saying %q", err, want)
	}
	_, err = s.CompleteSetup(ctx, firstAdmin, "ALICE", "correct horse battery")
	if !errors.Is(err, library.ErrConflict) || !strings.Contains(err.Error(), "a user named alice exists already") {
		t.Errorf("setup choosing ALICE: %v, want a conflict naming alice", err)
	}
	if _, err := s.CreateSetupToken(ctx, "alice", domain.RoleViewer); !errors.Is(err, library.ErrConflict) || !strings.Contains(err.Error(), "a user named alice exists already") {
		t.Errorf("setup link for alice again: %v, want a conflict", err)
	}

	if u, err := s.UserByName(ctx, "ALICE"); err != nil || u.Name != "alice" {
		t.Errorf("UserByName(ALICE) = %q, %v; want alice", u.Name, err)
	}
	if u, err := s.CheckLogin(ctx, "Alice", "correct horse battery"); err != nil || u.Name != "alice" {
		t.Errorf("login as Alice = %q, %v; want alice", u.Name, err)
	}
	if u, err := s.SetRole(ctx, "ALICE", domain.RoleViewer); err != nil || u.Name != "alice" || u.Role != domain.RoleViewer {
		t.Errorf("SetRole(ALICE) = %+v, %v", u, err)
	}
	if users, err := s.ListUsers(ctx); err != nil || len(users) != 1 {
		t.Errorf("users %+v %v, want alice alone", users, err)
	}
}

// A pending setup link holds its name ignoring case: inviting ALICE or
// Alice while alice's link waits is a conflict naming it; once the link
// is revoked the name is free again.
func TestInviteNameTakenByPendingLink(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := domain.WithActor(t.Context(), "admin")
	if _, err := s.CreateSetupToken(ctx, "alice", domain.RoleEditor); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "ALICE", "Alice"} {
		_, err := s.CreateSetupToken(ctx, name, domain.RoleViewer)
		if !errors.Is(err, library.ErrConflict) || !strings.Contains(err.Error(), "a setup link for alice is pending already") {
			t.Errorf("invite %s: %v, want a conflict naming alice's pending link", name, err)
		}
	}
	links, err := s.PendingSetupLinks(ctx)
	if err != nil || len(links) != 1 {
		t.Fatalf("pending links %+v %v, want alice's alone", links, err)
	}
	if err := s.RevokeSetupLink(ctx, links[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSetupToken(ctx, "Alice", domain.RoleViewer); err != nil {
		t.Errorf("invite Alice after the revoke: %v", err)
	}
}

package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// user add Alice while alice exists is a conflict saying names are
// compared ignoring case, and prints no link.
func TestUserAddIgnoresCase(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	st := openStore(t, dbURL)
	secret, err := st.CreateSetupToken(t.Context(), "alice", domain.RoleEditor)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CompleteSetup(t.Context(), secret, "", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	out, err := cliRun(t, "user", "add", "--database-url", dbURL, "--role", "viewer", "Alice")
	want := "a user named alice exists already (user names are compared ignoring case, so Alice is the same name)"
	if !errors.Is(err, library.ErrConflict) || !strings.Contains(err.Error(), want) || strings.Contains(out, "Setup link") {
		t.Errorf("user add Alice: %v\n%s\nwant a conflict saying %q and no link", err, out, want)
	}
}

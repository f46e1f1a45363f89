package handlers_test

import (
	"strings"
	"testing"
)

// wantDeletedAgain checks the answer to a delete posted again (double
// submit, back button): a redirect to target whose page's flash says
// what was already deleted, by whom, and that nothing changed.
func (a *app) wantDeletedAgain(t *testing.T, r response, target, what string) {
	t.Helper()
	page := a.follow(r.wantRedirect(t, target))
	flash := page.find("flash").Text()
	if want := what + " was already deleted (by " + testUser + ", "; !strings.Contains(flash, want) || !strings.Contains(flash, "; nothing changed.") {
		t.Errorf("flash after deleting %s again: %q, want %q… and nothing changed", what, flash, want)
	}
}

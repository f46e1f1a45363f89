package domain

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

func TestNormalizeScopes(t *testing.T) {
	for in, want := range map[string]string{
		"staging,assemble": "assemble,staging",
		"read, staging":    "read,staging",
		"write,read,write": "read,write",
		"admin,assemble":   "assemble,admin",
	} {
		got, err := NormalizeScopes(strings.Split(in, ","))
		if err != nil || !slices.Equal(got, strings.Split(want, ",")) {
			t.Errorf("%s: %v %v, want %s", in, got, err, want)
		}
	}
	for in, words := range map[string]string{
		"staging":        "at least one scope",
		"write,staging":  "add one of them",
		"admin,staging":  "add one of them",
		"assemble,owner": `unknown scope "owner"`,
	} {
		if _, err := NormalizeScopes(strings.Split(in, ",")); !errors.Is(err, library.ErrInvalid) || !strings.Contains(err.Error(), words) {
			t.Errorf("%s: %v, want an invalid-scope error saying %q", in, err, words)
		}
	}
}

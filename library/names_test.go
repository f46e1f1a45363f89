package library_test

import (
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

func TestNameProblem(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string // a word the problem must hold; "" for a good name
	}{
		{"support", ""},
		{"minutes-zh.v2_b", ""},
		{"9lives", ""},
		{strings.Repeat("a", library.MaxNameLength), ""},
		{"", "required"},
		{strings.Repeat("a", library.MaxNameLength+1), "at most 64 characters (this one has 65)"},
		{"Support", `'S'`},
		{"-x", `begins with '-'`},
		{".hidden", `begins with '.'`},
		{"a b", `' ' is not allowed`},
		{"a/b", `'/' is not allowed`},
		{"纪要", `begins with '纪'`},
		{"t\x00", "the NUL character (U+0000) is not allowed"},
		{"\tx", "begins with the control character U+0009"},
	} {
		got := library.NameProblem(tc.name)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("NameProblem(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

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

// User names take ASCII letters of either case and '@'; a non-ASCII
// letter is named, and a long name is counted, not repeated.
func TestUserNameProblem(t *testing.T) {
	long := strings.Repeat("a", 300)
	for _, tc := range []struct{ name, want string }{
		{"Alice.B_c@example-1", ""},
		{"ålice", `begins with 'å': use ASCII letters a-z or A-Z, digits, '.', '_', '@' and '-', beginning with a letter or a digit`},
		{"", "required: ASCII letters a-z or A-Z"},
		{"-alice", `begins with '-'`},
		{"bob-ä", `'ä' is not allowed`},
		{"al ice", `' ' is not allowed`},
		{"nul\x00", "the NUL character (U+0000) is not allowed"},
		{long, "at most 64 characters (this one has 300)"},
		{long[:64], ""},
	} {
		if got := library.UserNameProblem(tc.name); got != tc.want && (tc.want == "" || !strings.HasPrefix(got, tc.want)) {
			t.Errorf("UserNameProblem(%.20q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

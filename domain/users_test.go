package domain_test

import (
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
)

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
		if got := domain.UserNameProblem(tc.name); got != tc.want && (tc.want == "" || !strings.HasPrefix(got, tc.want)) {
			t.Errorf("UserNameProblem(%.20q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

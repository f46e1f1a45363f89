package library_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

// KindText drops the kind a wrapped error ends with, and nothing else.
func TestKindText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("locale %q is not a BCP 47 tag: %w", "zz_ZZ", library.ErrInvalid), `locale "zz_ZZ" is not a BCP 47 tag`},
		{fmt.Errorf("profile p does not exist: %w", library.ErrNotFound), "profile p does not exist"},
		{fmt.Errorf("revision 3 moved: %w", library.ErrStale), "revision 3 moved"},
		{errors.New("the disk is full"), "the disk is full"},
		{errors.New("invalid"), "invalid"},
	} {
		if got := library.KindText(c.err); got != c.want {
			t.Errorf("KindText(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}

package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// A note or reason is one paragraph; what cannot be stored is refused on
// the field it came in, never blamed on the module text.
func TestCleanNote(t *testing.T) {
	if got, err := domain.CleanNote("note", "  Shorter\n\tanswers  please "); err != nil || got != "Shorter answers please" {
		t.Errorf("CleanNote = %q, %v; want one paragraph", got, err)
	}
	for _, c := range []struct{ field, text, want string }{
		{"note", "a\x00b", "U+0000"},
		{"reason", "bell\x07", "U+0007"},
		{"reason", strings.Repeat("x", domain.MaxNoteLength+1), "at most 500 characters"},
		{"note", "\xff", "not valid UTF-8"},
	} {
		_, err := domain.CleanNote(c.field, c.text)
		var le *library.Error
		if !errors.As(err, &le) || le.Field != c.field || !strings.Contains(le.Msg, c.want) || !errors.Is(err, library.ErrInvalid) {
			t.Errorf("CleanNote(%q, %q) = %v; want invalid on field %s saying %q", c.field, c.text, err, c.field, c.want)
		}
	}
}

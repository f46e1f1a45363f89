package domain

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/library"
)

// MaxNoteLength is the most characters a note may have: one short
// paragraph saying why a change was made.
const MaxNoteLength = 500

// CleanNote is the one rule of a change's note, and of a rejection's
// reason, sent as field: optional, one paragraph (runs of white space,
// line breaks included, become one space; ends trimmed), at most
// MaxNoteLength characters after that. Errors: a *library.Error on field
// (library.ErrInvalid) when too long, not UTF-8, or holding a control
// character such as NUL (which the database cannot store).
func CleanNote(field, note string) (string, error) {
	if !utf8.ValidString(note) {
		return "", &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: "not valid UTF-8"}
	}
	if i := strings.IndexFunc(note, func(r rune) bool { return unicode.IsControl(r) && !unicode.IsSpace(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(note[i:])
		return "", &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: fmt.Sprintf("holds the control character U+%04X; write it as one short paragraph of text", r)}
	}
	note = strings.Join(strings.Fields(note), " ")
	if n := utf8.RuneCountInString(note); n > MaxNoteLength {
		return "", &library.Error{Code: library.CodeInvalidRequest, Field: field,
			Msg: fmt.Sprintf("at most %d characters, one short paragraph (this one has %d)", MaxNoteLength, n)}
	}
	return note, nil
}

// noteKey is the context key of a change's note.
type noteKey struct{}

// WithNote returns ctx carrying note (already through CleanNote) as the
// note of the changes made with it: like the actor, every store method
// that changes an override records it in the revision, the audit row and
// the webhook event.
func WithNote(ctx context.Context, note string) context.Context {
	return context.WithValue(ctx, noteKey{}, note)
}

// NoteFrom returns the note WithNote put in ctx, or "".
func NoteFrom(ctx context.Context) string {
	note, _ := ctx.Value(noteKey{}).(string)
	return note
}

package library

import (
	"errors"
	"fmt"
	"strings"
)

// Domain error kinds shared by every package; match them with errors.Is.
var (
	// ErrNotFound: a module, locale, override, profile or scenario does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: input broke a rule of the module format or a request shape.
	ErrInvalid = errors.New("invalid")
	// ErrConflict: a save was based on a stale revision or an id is taken.
	ErrConflict = errors.New("conflict")
	// ErrForbidden: the actor's role does not allow what was asked.
	ErrForbidden = errors.New("forbidden")
)

// FileError is one problem in a module or label file: it names the
// file, the 1-based line (0 when the whole file is concerned) and the field
// (empty for the body or the frontmatter fences). It matches ErrInvalid.
type FileError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %s", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Is makes every FileError match ErrInvalid.
func (e *FileError) Is(target error) bool { return target == ErrInvalid }

// FileErrors is every problem found while loading a library; Error joins them.
type FileErrors []*FileError

func (es FileErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Is makes FileErrors match ErrInvalid.
func (es FileErrors) Is(target error) bool { return target == ErrInvalid }

// Unwrap gives errors.As the single errors, first first.
func (es FileErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// AsFileErrors returns err as file errors: the FileErrors or *FileError it
// is, else one FileError naming file with err's message. Nil for nil.
func AsFileErrors(file string, err error) FileErrors {
	var es FileErrors
	var fe *FileError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &es):
		return es
	case errors.As(err, &fe):
		return FileErrors{fe}
	}
	return FileErrors{{File: file, Msg: err.Error()}}
}

// Has reports whether one of es concerns field: the field itself or a part
// of it ("variables" has "variables[1].name").
func (es FileErrors) Has(field string) bool {
	for _, e := range es {
		if e.Field == field || strings.HasPrefix(e.Field, field+"[") || strings.HasPrefix(e.Field, field+".") {
			return true
		}
	}
	return false
}

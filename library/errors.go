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
	// ErrForbidden: the actor's role or token does not allow what was asked.
	ErrForbidden = errors.New("forbidden")
	// ErrUnauthorized: the request carries no credentials that are known.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrUnreadable: the request cannot be read at all: a malformed query
	// string, a body that is not JSON or did not arrive.
	ErrUnreadable = errors.New("unreadable")
	// ErrTooLarge: the request is over a size limit of the transport (its
	// body or its headers), before anything in it is looked at.
	ErrTooLarge = errors.New("over the transport limit")
	// ErrUnsupported: the request's media type or encoding is not one the
	// endpoint takes.
	ErrUnsupported = errors.New("unsupported")
	// ErrStale: a change names the revision it is based on, and the head
	// has moved past it (a failed precondition).
	ErrStale = errors.New("stale")
	// ErrUnconditional: a change of something that exists does not name
	// the revision it is based on, so it could overwrite another's change.
	ErrUnconditional = errors.New("unconditional")
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

// Error codes: stable, snake_case, the "code" of the API's JSON errors
// and beside the console's messages.
const (
	CodeNotFound             = "not_found"
	CodeInvalidRequest       = "invalid_request"
	CodeInvalidJSON          = "invalid_json"
	CodeLimitExceeded        = "limit_exceeded"
	CodeMissingVariable      = "missing_variable"
	CodeExtraVariable        = "extra_variable"
	CodeUnknownPlaceholder   = "unknown_placeholder"
	CodeIncludeCycle         = "include_cycle"
	CodeIncludeTooDeep       = "include_too_deep"
	CodeConflict             = "conflict"
	CodeForbidden            = "forbidden"
	CodeUnauthorized         = "unauthorized"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodePreconditionFailed   = "precondition_failed"
	CodePreconditionRequired = "precondition_required"
)

// Error is promptdesk's one error for a request that cannot be done as
// asked, from any layer. Code is the stable code, Field the request or
// form field at fault ("" for none), Msg what went wrong; Module and
// Placeholder say where an assembly or rendering failed, Path is the
// include chain of a cycle or depth error. Kind is what went wrong in
// general, one of the Err kinds above, which decides the HTTP status;
// left nil it is the kind of Code (KindOf), so it is set only where the
// code alone does not say it: an invalid_json or invalid_request of an
// HTTP request the server could not even read is ErrUnreadable (the same
// code in a form field or a stored request is ErrInvalid), a
// limit_exceeded of the transport ErrTooLarge. It matches its kind with errors.Is.
type Error struct {
	Kind        error
	Code        string
	Field       string
	Msg         string
	Module      string
	Placeholder string
	Path        []string
}

// Error is "code: module m: placeholder {{p}}: field f: a → b: msg",
// each part only when set, the field left out when msg begins with it.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	if e.Module != "" {
		fmt.Fprintf(&b, ": module %s", e.Module)
	}
	if e.Placeholder != "" {
		fmt.Fprintf(&b, ": placeholder {{%s}}", e.Placeholder)
	}
	// A message that starts with the field's name names it already.
	if e.Field != "" && !strings.HasPrefix(e.Msg, e.Field+":") && !strings.HasPrefix(e.Msg, e.Field+" ") {
		fmt.Fprintf(&b, ": field %s", e.Field)
	}
	if len(e.Path) > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(e.Path, " → "))
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	return b.String()
}

// Message is the error without its code in front: what an API client
// reads beside the code.
func (e *Error) Message() string { return strings.TrimPrefix(e.Error(), e.Code+": ") }

// codeKinds is the kind of an Error with no Kind, by its code; codes
// not listed are ErrInvalid.
var codeKinds = map[string]error{
	CodeNotFound:             ErrNotFound,
	CodeConflict:             ErrConflict,
	CodeForbidden:            ErrForbidden,
	CodeUnauthorized:         ErrUnauthorized,
	CodeUnsupportedMediaType: ErrUnsupported,
	CodePreconditionFailed:   ErrStale,
	CodePreconditionRequired: ErrUnconditional,
}

// KindOf returns e's kind: Kind, or the kind of its Code when Kind is nil
// (ErrInvalid for a code of its own).
func (e *Error) KindOf() error {
	if e.Kind != nil {
		return e.Kind
	}
	if k, ok := codeKinds[e.Code]; ok {
		return k
	}
	return ErrInvalid
}

// Is makes an Error match its kind.
func (e *Error) Is(target error) bool { return target == e.KindOf() }

// kinds are the error kinds above, for KindText.
var kinds = []error{ErrNotFound, ErrInvalid, ErrConflict, ErrForbidden, ErrUnauthorized,
	ErrUnreadable, ErrTooLarge, ErrUnsupported, ErrStale, ErrUnconditional}

// KindText is err's text for a person: without the ": <kind>" that
// wrapping a kind with %w leaves at its end ("locale …: invalid"), since
// the status or the page already says it.
func KindText(err error) string {
	text := err.Error()
	for _, k := range kinds {
		if t, ok := strings.CutSuffix(text, ": "+k.Error()); ok {
			return t
		}
	}
	return text
}

package assembler

import (
	"fmt"
	"strings"

	"github.com/promptdesk/promptdesk/library"
)

// Error codes of assembly and rendering; stable, for API clients.
const (
	CodeNotFound           = "not_found"
	CodeMissingVariable    = "missing_variable"
	CodeExtraVariable      = "extra_variable"
	CodeUnknownPlaceholder = "unknown_placeholder"
	CodeIncludeCycle       = "include_cycle"
	CodeIncludeTooDeep     = "include_too_deep"
	CodeInvalidRequest     = "invalid_request"
	CodeLimitExceeded      = "limit_exceeded"
	// CodeInvalidJSON: the body is not JSON the API reads (a syntax
	// error, invalid UTF-8); the transport answers it with 400.
	CodeInvalidJSON = "invalid_json"
)

// MaxIncludeDepth is how deep includes may nest.
const MaxIncludeDepth = 10

// MaxOutputBytes bounds one rendering: includes that repeat each other can
// otherwise multiply a few bytes into gigabytes.
const MaxOutputBytes = 8 << 20

// Error is a typed assembly or rendering error. Module and Placeholder name
// where it happened; Path is the include chain of a cycle or depth error;
// Field names the request field of a request error. It matches
// library.ErrNotFound (CodeNotFound) or library.ErrInvalid (all others).
type Error struct {
	Code        string
	Module      string
	Placeholder string
	Field       string
	Path        []string
	Msg         string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	if e.Module != "" {
		fmt.Fprintf(&b, ": module %s", e.Module)
	}
	if e.Placeholder != "" {
		fmt.Fprintf(&b, ": placeholder {{%s}}", e.Placeholder)
	}
	if e.Field != "" {
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

// Is maps the code onto the library's error kinds.
func (e *Error) Is(target error) bool {
	if e.Code == CodeNotFound {
		return target == library.ErrNotFound
	}
	return target == library.ErrInvalid
}

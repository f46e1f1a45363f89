package state

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// LineError is one reason a text cannot be saved: the 1-based line of the
// text it concerns (0 when it concerns the whole text), the frontmatter
// field or "body" when known, and the message, which starts with the field.
type LineError struct {
	Line  int
	Field string
	Msg   string
}

// check parses an override text of id in locale against v and applies the
// rules every write follows: it parses, keeps id and the builtin's layer,
// every placeholder is known (a stored override's id counts as a module
// id) and its includes make no cycle with what v's State serves. errs are
// every error found at once (library.ParseAll), in the order the checks
// meet them, each naming its line. The module, with Locale set, is nil
// when a field or the text's structure did not parse; it is returned
// along with errors the later checks found, so that the checklist can
// still run on it.
func check(asm *assembler.Assembler, v *View, id, locale, text string) (*library.Module, []LineError) {
	m, perrs := library.ParseAll(OverrideFile(id, locale), []byte(text))
	errs := lineErrors(perrs)
	if m == nil {
		return nil, errs
	}
	idOK := !perrs.Has("id") && m.ID == id
	if !perrs.Has("id") && m.ID != id {
		errs = append(errs, LineError{Line: m.FieldLine("id"), Field: "id",
			Msg: fmt.Sprintf("id: the text says %q, but this is the override of %q; an override may not change the id", m.ID, id)})
	}
	if b, ok := v.Library.Any(id); ok && !perrs.Has("layer") && m.Layer != b.Layer {
		errs = append(errs, LineError{Line: m.FieldLine("layer"), Field: "layer",
			Msg: fmt.Sprintf("layer: an override may not change the layer; it must stay %q", b.Layer)})
	}
	// Without its declared variables every use of one would look unknown.
	if !perrs.Has("variables") {
		errs = append(errs, lineErrors(v.Library.PlaceholderErrors(m, v.storedID))...)
	}
	if idOK {
		if err := asm.CheckIncludes(v.Library, v.State, m, locale); err != nil {
			errs = append(errs, includeError(m, err))
		}
	}
	if len(perrs) > 0 {
		return nil, errs
	}
	m.Locale = locale
	return m, errs
}

// includeError is the error of an include check: at the line of the
// placeholder that starts the chain, a cycle described as the library
// describes its own.
func includeError(m *library.Module, err error) LineError {
	var ae *library.Error
	if !errors.As(err, &ae) || len(ae.Path) < 2 {
		return LineError{Line: m.BodyLine, Field: "body", Msg: "body: " + err.Error()}
	}
	line := m.PlaceholderLine(ae.Path[1])
	switch ae.Code {
	case library.CodeIncludeCycle:
		return LineError{Line: line, Field: "body", Msg: "body: " + library.CycleMessage(ae.Path)}
	case library.CodeIncludeTooDeep:
		return LineError{Line: line, Field: "body", Msg: fmt.Sprintf("body: {{%s}} nests includes deeper than the limit of %d: %s", ae.Path[1], assembler.MaxIncludeDepth, strings.Join(ae.Path, " → "))}
	}
	return LineError{Line: line, Field: "body", Msg: "body: " + err.Error()}
}

// lineErrors turns parse or placeholder errors into LineErrors, the
// message starting with the field.
func lineErrors(errs library.FileErrors) []LineError {
	out := make([]LineError, 0, len(errs))
	for _, fe := range errs {
		msg := fe.Msg
		if fe.Field != "" && !strings.HasPrefix(msg, fe.Field+" ") {
			msg = fe.Field + ": " + msg
		}
		out = append(out, LineError{Line: fe.Line, Field: fe.Field, Msg: msg})
	}
	return out
}

// findings runs the Checklist on m and splits its findings into warnings
// and notices (what it could not check, such as a locale without cue
// words); both are empty, never nil, when there are none or no Checklist
// is set.
func (s *Overrides) findings(m *library.Module) (warnings, notices []library.Finding) {
	warnings, notices = []library.Finding{}, []library.Finding{}
	if s.Checklist == nil {
		return warnings, notices
	}
	for _, f := range s.Checklist(m) {
		switch f.Severity {
		case library.SeverityWarning:
			warnings = append(warnings, f)
		case library.SeverityNotice:
			notices = append(notices, f)
		}
	}
	return warnings, notices
}

// EqualsBuiltin is the rule that a text saved as an override stores
// nothing: it is the builtin text but for whitespace at the end of the
// file, which the model never sees (module bodies are trimmed).
func EqualsBuiltin(text, builtin string) bool {
	return strings.TrimRightFunc(text, unicode.IsSpace) == strings.TrimRightFunc(builtin, unicode.IsSpace)
}

package state

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/lint"
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
// id) and its includes make no cycle with what v's State serves. The
// module returned has Locale set; errors name the lines they concern.
func check(asm *assembler.Assembler, v *View, id, locale, text string) (*library.Module, []LineError) {
	m, err := library.Parse(OverrideFile(id, locale), []byte(text))
	if err != nil {
		return nil, lineErrors(err)
	}
	if m.ID != id {
		return nil, []LineError{{Line: m.FieldLine("id"), Field: "id",
			Msg: fmt.Sprintf("id: the text says %q, but this is the override of %q; an override may not change the id", m.ID, id)}}
	}
	if b, ok := v.Library.Any(id); ok && m.Layer != b.Layer {
		return nil, []LineError{{Line: m.FieldLine("layer"), Field: "layer",
			Msg: fmt.Sprintf("layer: an override may not change the layer; it must stay %q", b.Layer)}}
	}
	if err := v.Library.CheckPlaceholdersWith(m, v.storedID); err != nil {
		return nil, lineErrors(err)
	}
	if err := asm.CheckIncludes(v.Library, v.State, m, locale); err != nil {
		return nil, []LineError{{Line: includeLine(m, err), Field: "body", Msg: "body: " + err.Error()}}
	}
	m.Locale = locale
	return m, nil
}

// includeLine is the line of the placeholder that starts an include
// cycle, or the body's first line.
func includeLine(m *library.Module, err error) int {
	var ae *assembler.Error
	if errors.As(err, &ae) && len(ae.Path) > 1 {
		for _, p := range m.Placeholders {
			if p.Name == ae.Path[1] {
				return m.BodyLine + p.Line - 1
			}
		}
	}
	return m.BodyLine
}

// lineErrors turns a parse or placeholder error into LineErrors.
func lineErrors(err error) []LineError {
	var fe *library.FileError
	if errors.As(err, &fe) {
		msg := fe.Msg
		if fe.Field != "" && !strings.HasPrefix(msg, fe.Field+" ") {
			msg = fe.Field + ": " + msg
		}
		return []LineError{{Line: fe.Line, Field: fe.Field, Msg: msg}}
	}
	return []LineError{{Msg: err.Error()}}
}

// Findings splits the module checklist's findings of m into warnings and
// notices (what it could not check, such as a locale without cue words);
// both are empty, never nil, when there are none.
func Findings(m *library.Module) (warnings, notices []lint.Finding) {
	warnings, notices = []lint.Finding{}, []lint.Finding{}
	for _, f := range lint.Lint(m) {
		switch f.Severity {
		case lint.SeverityWarning:
			warnings = append(warnings, f)
		case lint.SeverityNotice:
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

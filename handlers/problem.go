package handlers

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/views/components"
)

// problem is how the console words an error: an assembler error as one
// sentence per code, naming the module, placeholder, request field or
// include path it carries, with its code kept beside it; any other error
// as its message made a sentence; no error, the zero Problem. The API
// answers the errors as they are.
func problem(err error) components.Problem {
	if err == nil {
		return components.Problem{}
	}
	var ae *library.Error
	if !errors.As(err, &ae) {
		return components.Problem{Text: sentence(library.KindText(err))}
	}
	return components.Problem{Text: assemblySentence(ae), Code: ae.Code}
}

// assemblySentence is the operator's sentence for e.
func assemblySentence(e *library.Error) string {
	mod, ph, path := e.Module, "{{"+e.Placeholder+"}}", strings.Join(e.Path, " → ")
	switch e.Code {
	case library.CodeMissingVariable:
		return fmt.Sprintf(`Module %s needs the variable %s, and the request does not supply it: add it under "variables".`, mod, ph)
	case library.CodeExtraVariable:
		if mod != "" {
			return fmt.Sprintf(`Module %s does not declare %s: remove it from "variables".`, mod, ph)
		}
		return fmt.Sprintf(`No module in this assembly declares %s: remove it from "variables".`, ph)
	case library.CodeUnknownPlaceholder:
		return fmt.Sprintf("Module %s uses the placeholder %s, which is not a variable it declares, an environment value or a module id.", mod, ph)
	case library.CodeIncludeCycle:
		return fmt.Sprintf("Module %s includes %s, which closes a cycle of includes: %s.", mod, ph, path)
	case library.CodeIncludeTooDeep:
		return fmt.Sprintf("Module %s includes %s, nesting includes deeper than the limit of %d: %s.", mod, ph, assembler.MaxIncludeDepth, path)
	case library.CodeNotFound:
		switch {
		case e.Placeholder != "":
			return fmt.Sprintf("Module %s includes %s, and the library has no such module.", mod, ph)
		case e.Field != "":
			return sentence(fmt.Sprintf("The request's field %s: %s", e.Field, e.Msg))
		case mod != "":
			return sentence(fmt.Sprintf("The assembly needs module %s: %s", mod, e.Msg))
		}
	case library.CodeInvalidRequest:
		if e.Field != "" {
			return sentence(fmt.Sprintf("The request's field %s: %s", e.Field, e.Msg))
		}
		return sentence("The request is not valid: " + e.Msg)
	case library.CodeInvalidJSON:
		if e.Field != "" {
			return sentence(fmt.Sprintf("The request is not valid JSON in field %s: %s", e.Field, e.Msg))
		}
		if rest, ok := strings.CutPrefix(e.Msg, "the body is not valid JSON"); ok {
			return sentence("The request is not valid JSON" + rest)
		}
		return sentence("The request is not valid JSON: " + e.Msg)
	case library.CodeLimitExceeded:
		switch {
		case mod != "":
			return sentence(fmt.Sprintf("Module %s renders too much text: %s", mod, e.Msg))
		case e.Field != "":
			return sentence(fmt.Sprintf("The request's field %s is over a limit: %s", e.Field, e.Msg))
		}
		return sentence("The request is over a limit: " + e.Msg)
	}
	if e.Msg == "" {
		return sentence(e.Error())
	}
	return sentence(e.Msg)
}

// sentence starts msg with a capital and ends it with a full stop.
func sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if r, n := utf8.DecodeRuneInString(msg); unicode.IsLower(r) {
		msg = string(unicode.ToUpper(r)) + msg[n:]
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

package handlers

import (
	"errors"
	"fmt"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

// Every assembler error code reads as one sentence naming what the error
// carries, with the code kept beside it; other errors become a sentence.
func TestProblemWordsEveryCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err        error
		text, code string
	}{
		{&library.Error{Code: library.CodeInvalidRequest, Field: "variables.topic", Msg: "expected string, got JSON number"},
			"The request's field variables.topic: expected string, got JSON number.", "invalid_request"},
		{&library.Error{Code: library.CodeInvalidRequest, Msg: "the request must be one JSON object {…}"},
			"The request is not valid: the request must be one JSON object {…}.", "invalid_request"},
		{&library.Error{Code: library.CodeInvalidJSON, Msg: "the body is not valid JSON at line 1, column 20: unexpected end"},
			"The request is not valid JSON at line 1, column 20: unexpected end.", "invalid_json"},
		{&library.Error{Code: library.CodeMissingVariable, Module: "task.x", Placeholder: "today", Msg: "the module declares this variable and the request does not supply it"},
			`Module task.x needs the variable {{today}}, and the request does not supply it: add it under "variables".`, "missing_variable"},
		{&library.Error{Code: library.CodeExtraVariable, Placeholder: "mood", Field: "variables.mood", Msg: "no module in this assembly declares this variable"},
			`No module in this assembly declares {{mood}}: remove it from "variables".`, "extra_variable"},
		{&library.Error{Code: library.CodeExtraVariable, Module: "aux.polish", Placeholder: "mood", Field: "variables.mood"},
			`Module aux.polish does not declare {{mood}}: remove it from "variables".`, "extra_variable"},
		{&library.Error{Code: library.CodeUnknownPlaceholder, Module: "task.x", Placeholder: "nope"},
			"Module task.x uses the placeholder {{nope}}, which is not a variable it declares, an environment value or a module id.", "unknown_placeholder"},
		{&library.Error{Code: library.CodeIncludeCycle, Module: "b", Placeholder: "a", Path: []string{"a", "b", "a"}},
			"Module b includes {{a}}, which closes a cycle of includes: a → b → a.", "include_cycle"},
		{&library.Error{Code: library.CodeIncludeTooDeep, Module: "m11", Placeholder: "m12", Path: []string{"m1", "m2"}, Msg: "includes nest deeper than the limit of 10"},
			"Module m11 includes {{m12}}, nesting includes deeper than the limit of 10: m1 → m2.", "include_too_deep"},
		{&library.Error{Code: library.CodeNotFound, Module: "base.identity", Placeholder: "aux.gone", Msg: "included module not found"},
			"Module base.identity includes {{aux.gone}}, and the library has no such module.", "not_found"},
		{&library.Error{Code: library.CodeNotFound, Field: "profile", Msg: `profile "ghost" does not exist`},
			`The request's field profile: profile "ghost" does not exist.`, "not_found"},
		{&library.Error{Code: library.CodeNotFound, Module: "env.date", Msg: "the library has no such module in en-US"},
			"The assembly needs module env.date: the library has no such module in en-US.", "not_found"},
		{&library.Error{Code: library.CodeLimitExceeded, Module: "base.x", Msg: "the rendered text is over the limit of 8388608 bytes (8 MiB); includes repeat too much"},
			"Module base.x renders too much text: the rendered text is over the limit of 8388608 bytes (8 MiB); includes repeat too much.", "limit_exceeded"},
		{&library.Error{Code: library.CodeLimitExceeded, Field: "skills", Msg: "300 skills; the limit is 256"},
			"The request's field skills is over a limit: 300 skills; the limit is 256.", "limit_exceeded"},
		{&library.Error{Code: library.CodeLimitExceeded, Msg: "request body is 9000000 bytes; the limit is 8388608 (8 MiB)"},
			"The request is over a limit: request body is 9000000 bytes; the limit is 8388608 (8 MiB).", "limit_exceeded"},
		{fmt.Errorf("the saved request does not decode: %w", &library.Error{Code: library.CodeInvalidRequest, Field: "now", Msg: "null is not allowed"}),
			"The request's field now: null is not allowed.", "invalid_request"},
		{errors.New(`locale "x!": not a BCP 47 tag`), `Locale "x!": not a BCP 47 tag.`, ""},
	}
	for _, tt := range tests {
		got := problem(tt.err)
		if got.Text != tt.text || got.Code != tt.code {
			t.Errorf("problem(%v)\n = %q [%s]\nwant %q [%s]", tt.err, got.Text, got.Code, tt.text, tt.code)
		}
	}
	if got := problem(nil); got.Text != "" || got.Code != "" {
		t.Errorf("problem(nil) = %+v, want the zero Problem", got)
	}
}

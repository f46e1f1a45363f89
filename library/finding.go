package library

import (
	"fmt"
	"strings"
)

// Severity says how much a finding weighs.
type Severity string

// Severities, heaviest first. Errors are format errors (the module does
// not load); warnings are checklist findings (rules 1–8 and the tool
// rule); notices say a check could not run, e.g. no cue file for a locale.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNotice  Severity = "notice"
)

// Rule names of findings besides the checklist rule numbers "1" to "8".
const (
	// RuleFormat is a format error: what the loader refuses.
	RuleFormat = "format"
	// RuleTool is the checklist's rule for tool modules: when to use the
	// tool, how it fails, no parameter schema.
	RuleTool = "tool"
	// RulePlaceholder is the checklist's warning for brace text that
	// looks meant as a placeholder but is not one, so the model would
	// read it as written: "{{ name }}", an unclosed "{{", "{{#each}}".
	RulePlaceholder = "placeholder"
	// RuleCues is the notice that a locale has no cue file, so its
	// modules' wording checks were skipped.
	RuleCues = "cues"
)

// Finding is one problem in one module file, as the module checklist
// (package lint) reports it.
type Finding struct {
	// File is the path as given to LintDir, LintFS or Parse.
	File string `json:"file"`
	// Line is 1-based; 0 when the finding concerns the whole file or a folder.
	Line int `json:"line"`
	// Field is the frontmatter field concerned, "body", or "".
	Field string `json:"field"`
	// Rule is RuleFormat, "1"…"8" (checklist rules), RuleTool,
	// RulePlaceholder or RuleCues.
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String is the finding as one line of text:
// `path:line: severity [rule N] field: message`.
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.File)
	if f.Line > 0 {
		fmt.Fprintf(&b, ":%d", f.Line)
	}
	fmt.Fprintf(&b, ": %s [%s] ", f.Severity, f.RuleLabel())
	if f.Field != "" {
		b.WriteString(f.Field + ": ")
	}
	b.WriteString(f.Message)
	return b.String()
}

// RuleLabel is how the rule is shown: "rule 3", "format", "tool",
// "placeholder", "cues".
func (f Finding) RuleLabel() string {
	if len(f.Rule) == 1 && f.Rule[0] >= '1' && f.Rule[0] <= '8' {
		return "rule " + f.Rule
	}
	return f.Rule
}

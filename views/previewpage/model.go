// Package previewpage is the preview page: a request form (a
// saved scenario or pasted JSON) and the assembled result with its
// composition panel, segments and tables.
package previewpage

import (
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/diffview"
)

// Model is the preview page.
type Model struct {
	Scenarios []Scenario
	// Scenario is the selected scenario id; "" means the pasted JSON.
	Scenario string
	// Loaded is the scenario whose request the textarea was filled with
	// (by the server or the page's script): with Scenario the same, an
	// edited text runs as typed rather than the stored request.
	Loaded string
	// Request is the textarea content, exactly as typed or loaded.
	Request string
	// Locale, when set, replaces the request's locale.
	Locale      string
	BuiltinOnly bool
	// IncludeDrafts assembles with the drafts on top of the published
	// overrides (the runtime serves only published text).
	IncludeDrafts bool
	// Errors are shown above the form (bad JSON, assembly errors).
	Errors []components.Problem
	Result *Result
	// CanSave shows the "Save as scenario" form (editors); Save is that
	// form as typed, with its errors.
	CanSave bool
	Save    *SaveForm
}

// SaveForm is the "Save as scenario" form: name, description, whether to
// accept the output as served now, and errors by field (name,
// description, request).
type SaveForm struct {
	// ID is the scenario id as typed; "" derives one from Name.
	ID                string
	Name, Description string
	Accept            bool
	Errors            map[string]string
}

// Scenario is one saved scenario in the select.
type Scenario struct {
	ID, Name, Description string
	Builtin               bool
}

// Result is an assembled prompt as the page shows it.
type Result struct {
	Locale, Profile, Encoding string
	Tokens                    int
	Report                    []Entry
	Segments                  []Segment
	Tables                    []Table
	Text                      string
	// Source says what was assembled, e.g. `scenario "minutes-zh"`.
	Source      string
	BuiltinOnly bool
	// DraftsIncluded is true when the drafts were included; Drafts is
	// how many of them served in this assembly.
	DraftsIncluded bool
	Drafts         int
	// Served compares the assembly as served with this one, when drafts
	// are included.
	Served *ServedDiff
	// Budget is the profile's token budget (0: none) and Over how many
	// tokens the text exceeds it by (0: within it, or not counted).
	Budget, Over int
	// ChatMessages is the full text as chat messages JSON, one system
	// message: [{"role":"system","content":…}].
	ChatMessages string
	// Skills is how the list of available skills was fitted to its token
	// budget; nil when the assembly lists no skills.
	Skills *Skills
}

// Skills is the skill list's budget (tokens, in Encoding), its mode
// (full, mixed or names-only), how many skills it lists and how many of
// those by name alone, and the skills it left out, most relevant first.
type Skills struct {
	Budget            int
	Encoding, Mode    string
	Listed, NamesOnly int
	Cut               []CutSkill
}

// CutSkill is one skill left out of the list: its name (with URL, the
// module's page, for a task module that exists), source (task-module or
// runtime) and reason (budget).
type CutSkill struct {
	Name, URL, Source, Reason string
}

// ServedDiff is the assembly as served (published overrides only)
// against the one with drafts: its tokens and the line diff of the full
// texts, or the error of the served assembly.
type ServedDiff struct {
	Tokens      int
	Same        bool
	Diff        []diffview.Line
	Plus, Minus int
	Error       components.Problem
}

// Entry is one row of the composition panel: one decision of the report.
type Entry struct {
	Kind, Module, ModuleURL string
	Version                 int
	Source, Locale          string
	Revision                int // the serving override's; 0 for any other source
	Fallback                bool
	Reason                  string
	Tokens                  int
	Line                    string
}

// Segment is one system segment.
type Segment struct {
	Name    string
	Modules []string
	Tokens  int
	Text    string
}

// Table is one rendered table text (knowledge, selected documents,
// skills) with its parsed blocks.
type Table struct {
	Name     string
	Markdown string
	Blocks   []Block
}

// Block is a paragraph of text (a heading line) or a table.
type Block struct {
	Text   string
	Header []string
	Rows   [][]string
}

// countKind counts the report entries of one kind.
func countKind(report []Entry, kind string) int {
	n := 0
	for _, e := range report {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

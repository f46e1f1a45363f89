package assembler

import (
	"strings"
	"time"
)

// Segment names, in assembly order.
const (
	SegmentBase            = "base"
	SegmentKnowledge       = "knowledge"
	SegmentSkillsHit       = "skills-hit"
	SegmentSkillsAvailable = "skills-available"
	SegmentProfile         = "profile"
)

// Result is an assembled system prompt: the non-empty segments in
// order, their joined text, the composition report and token counts, and
// the Generation of the library snapshot it was assembled from.
type Result struct {
	Segments []Segment     `json:"segments"`
	Text     string        `json:"text"`
	Report   []ReportEntry `json:"report"`
	Tokens   int           `json:"tokens"`
	Encoding string        `json:"encoding"`
	Tables   Tables        `json:"tables"`
	Locale   string        `json:"locale"`
	Profile  string        `json:"profile,omitempty"`
	// Generation is the library snapshot's Generation: 1 for the
	// embedded library, one more for each change a watched folder applied.
	Generation int `json:"generation"`
	// Skills says how the skills-available segment was fitted to its
	// token budget and which skills it left out; nil when the request has
	// no such segment.
	Skills *SkillCatalogue `json:"skills,omitempty"`
	// Messages are the system messages of the text, with FormatMessages
	// only (Request.SystemMessages says how many).
	Messages []Message `json:"messages,omitempty"`
}

// Segment is one system segment: its name (Segment* constants, in the
// JSON field "layer"), text, the module ids in it, and its token count.
type Segment struct {
	Layer   string   `json:"layer"`
	Text    string   `json:"text"`
	Modules []string `json:"modules"`
	Tokens  int      `json:"tokens"`
}

// Tables holds the rendered tables on their own, for the console.
type Tables struct {
	Knowledge string `json:"knowledge,omitempty"`
	Selected  string `json:"selected,omitempty"`
	Skills    string `json:"skills,omitempty"`
}

// Report entry kinds of the composition report.
const (
	KindPrompt      = "prompt"
	KindSkillYield  = "skill-yield"
	KindSkillListed = "skill-listed"
	// KindSkillCut is a skill the skills-available segment left out to
	// stay within its token budget, one entry per skill after the listed
	// ones, most relevant first: `skill-cut(task.x · budget)`.
	KindSkillCut      = "skill-cut"
	KindKnowledge     = "knowledge"
	KindSelectedDocs  = "selected-docs"
	KindProfilePrompt = "profile-prompt"
	KindPlaceholder   = "placeholder"
	KindWarning       = "warning"
	// KindInclude is a module rendered for a `{{id}}` placeholder of
	// another module, one entry per inclusion, after the prompt entry of
	// the module that entered: version, source, locale and fallback say
	// which text served, Reason is "by:<id>" of the direct includer, and
	// Tokens counts the included text with its own includes (already part
	// of the includer's count, so not to be added to it). Each inclusion
	// also has its placeholder entry, reason "<id>→include".
	KindInclude = "include"
	// KindLibrary is the report's first entry: where the library came from
	// (Source: "embedded" or the folder) and its generation (Reason:
	// "generation:N").
	KindLibrary = "library"
)

// Sources of a served module, as the report names them.
const (
	SourceBuiltin         = "builtin"
	SourceOverride        = "override"
	SourceOverrideDrifted = "override-drifted"
	SourceFile            = "file"
	SourceUserModule      = "user-module"
)

// ReportEntry is one decision of the composition report. Line is
// the text form operators read, e.g. `prompt(task.doc-minutes v1 · intent:minutes)`.
type ReportEntry struct {
	Kind    string `json:"kind"`
	Module  string `json:"module,omitempty"`
	Version int    `json:"version,omitempty"`
	Source  string `json:"source,omitempty"`
	// Revision is the revision of the override that served (Source
	// override, override-drifted or user-module), so a runtime can tell
	// which save it got; 0, and absent from the JSON, for any other source.
	Revision int    `json:"revision,omitempty"`
	Locale   string `json:"locale,omitempty"`
	Fallback bool   `json:"fallback"`
	Reason   string `json:"reason,omitempty"`
	Tokens   int    `json:"tokens"`
	Line     string `json:"line"`
}

// The report warning of an answer served from the state last read
// before the database became unreachable: module StaleModule, reason
// StaleReason followed by that time in RFC 3339 ("database ·
// stale-since:2026-12-03T16:00:00Z").
const (
	StaleModule = "database"
	StaleReason = "stale-since:"
)

// StaleWarning is the report entry saying the answer comes from the state
// read at since, before the database became unreachable.
func StaleWarning(since time.Time) ReportEntry {
	e := ReportEntry{Kind: KindWarning, Module: StaleModule, Reason: StaleReason + since.UTC().Format(time.RFC3339)}
	e.Line = e.TextForm()
	return e
}

// StaleSince reads the StaleWarning of a report: the time the served
// state was read, to the second; ok is false when the report has no such
// warning (the database answered).
func StaleSince(report []ReportEntry) (since time.Time, ok bool) {
	for _, e := range report {
		if e.Kind != KindWarning || e.Module != StaleModule {
			continue
		}
		if t, err := time.Parse(time.RFC3339, strings.TrimPrefix(e.Reason, StaleReason)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

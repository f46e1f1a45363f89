// Package scenariopage is the scenarios pages: every saved scenario run
// against what is served now and compared with its accepted output
// (unchanged, changed with a diff, never accepted, failed), one
// scenario's page with its output and edit form, and the delete
// confirmation.
package scenariopage

import (
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/diffview"
)

// The run statuses, as state.RunStatus spells them.
const (
	StatusUnchanged     = "unchanged"
	StatusChanged       = "changed"
	StatusNeverAccepted = "never-accepted"
	StatusFailed        = "failed"
)

// List is the scenarios page.
type List struct {
	Flash string
	// CanEdit shows the editor's actions (accept, edit, delete).
	CanEdit bool
	Runs    []Run
	// Counts per status, in the order of the summary.
	Changed, Failed, NeverAccepted, Unchanged int
	// Library names what the runs assembled on, e.g. "embedded ·
	// generation:1".
	Library string
	// RanAt is when the runs ran (UTC, seconds).
	RanAt string
}

// Run is one scenario run.
type Run struct {
	ID, Name, Description string
	// Example marks one of the app's seeded examples.
	Example bool
	Status  string
	// Tokens is the output's token count now (0 when failed);
	// AcceptedTokens the accepted output's.
	Tokens, AcceptedTokens int
	// Accepted is false until the first accept; AcceptedAt and
	// AcceptedBy say when and by whom.
	Accepted               bool
	AcceptedAt, AcceptedBy string
	// Fingerprint identifies the output shown, so that accept takes only
	// that output.
	Fingerprint string
	// Error is why a failed run failed.
	Error components.Problem
	// TextDiff and ReportDiff turn the accepted output into the new one
	// (changed only), with their counts of inserted and deleted lines.
	TextDiff, ReportDiff       []diffview.Line
	TextPlus, TextMinus        int
	ReportPlus, ReportMinus    int
	URL, PreviewURL, AcceptURL string
}

// Detail is one scenario's page.
type Detail struct {
	Run
	Flash string
	// Alert is shown above the page (an accept that was refused).
	Alert   string
	CanEdit bool
	// Text and Report are the output now (empty when failed).
	Text   string
	Report []string
	// AcceptedText and AcceptedReport are the accepted output.
	AcceptedText   string
	AcceptedReport []string
	// Request is the stored request JSON, indented.
	Request   string
	Form      Form
	DeleteURL string
}

// Form is the edit form of a scenario, as typed, with errors by field
// (name, description, request).
type Form struct {
	Action                     string
	Name, Description, Request string
	Errors                     map[string]string
}

// Delete asks to confirm deleting a scenario.
type Delete struct {
	ID, Name, Action, CancelURL string
	Accepted                    bool
}

// statusLabel is how a status reads on the page.
func statusLabel(status string) string {
	switch status {
	case StatusNeverAccepted:
		return "never accepted"
	case StatusFailed:
		return "failed"
	}
	return status
}

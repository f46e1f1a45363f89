package overridepage

import (
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/diffview"
)

// Impact is the impact panel: what a text of the override (unsaved, or a
// draft about to be published, or its removal) changes in the saved
// scenarios' assembled output.
type Impact struct {
	// URL is where the panel asks for itself again (htmx POST with the
	// editor form), when the editor's text changes; "" on a confirmation
	// page, whose text is fixed.
	URL string
	// Errors say why nothing could be assembled: the text's errors.
	Errors []string
	// Total is the number of saved scenarios assembled.
	Total int
	// Changed are the scenarios whose output changes or that failed to
	// assemble; Unchanged the names of the others.
	Changed   []ScenarioChange
	Unchanged []string
}

// ScenarioChange is one saved scenario whose output a change changes:
// the diff of its system prompt, its token counts before and after, and
// the assembly error of a side that failed.
type ScenarioChange struct {
	ID, Name string
	// PreviewURL runs the scenario on the preview page.
	PreviewURL                string
	Lines                     []diffview.Line
	Plus, Minus               int
	TokensBefore, TokensAfter int
	BeforeErr, AfterErr       components.Problem
}

// Confirm is the confirmation page of an action that changes what is
// served: publish, discard, delete or take builtin. It shows the served
// text of the locale now and after (a diff) and, for a change of text or
// a removal, the impact on the saved scenarios; the form posts the
// revision shown, so a change made meanwhile is refused.
type Confirm struct {
	ID, Locale string
	// Verb is the action: publish, discard, delete or take-builtin.
	Verb    string
	Heading string
	// Summary says what the action does and what it leaves.
	Summary string
	// Head describes the revision acted on: number, author, time.
	Head    string
	PostURL string
	Fields  []Field
	Button  string
	Danger  bool
	BackURL string
	// BeforeFrom and AfterFrom say where the served text comes from now
	// and after ("" after: nothing serves).
	BeforeFrom, AfterFrom string
	// Diff is served text now → after; Same is true when the action
	// changes no served text.
	Diff        []diffview.Line
	Plus, Minus int
	Same        bool
	// Dropped is the draft the action throws away: what serves → the
	// draft; nil when there is none.
	Dropped *Dropped
	Impact  *Impact
	// Alert explains a refused action (409 or 422); Blocked says why the
	// action cannot be taken at all (no button then).
	Alert   string
	Blocked string
	Flash   string
	// Drift is set for the drift review's take builtin, which the top
	// navigation shows under Drift.
	Drift bool
	// Note is the note field of the form (Max 0: none).
	Note components.Note
	// Request, on a change request's page, says who asked and why, and
	// how it was decided; nil on a confirmation.
	Request *Request
}

// Request is a change request as its page shows it: the form of the
// page approves it; RejectURL is where the rejection (with a reason)
// posts ("" when it cannot be rejected: decided, or a viewer).
type Request struct {
	ID           int64
	Author, At   string
	Note         string
	Status       string
	Decision     string // who decided, when and why; "" while open
	RejectURL    string
	Reason       components.Note
	OwnRequest   bool // the logged-in user asked for it: no approve form
	ListURL      string
	StaleMessage string // the head moved since the request: approving fails
}

// Field is a hidden form field of the confirmation.
type Field struct {
	Name, Value string
}

// Dropped is a draft that the action throws away (a discard, or a delete
// with a draft pending): Title heads the diff of the draft against what
// serves now.
type Dropped struct {
	Title       string
	Lines       []diffview.Line
	Plus, Minus int
}

// Requests is the list of change requests: the open ones, then the last
// decided.
type Requests struct {
	Open, Decided []RequestRow
	Flash         string
}

// RequestRow is one change request in the list.
type RequestRow struct {
	ID                       int64
	URL                      string
	ModuleID, Locale, Action string
	Revision                 int
	Author, Note, Status, At string
	Decision                 string
}

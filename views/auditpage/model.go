// Package auditpage is the audit log page: every
// recorded change, newest first, with filters and paging.
package auditpage

// Model is the audit page.
type Model struct {
	Filter Filter
	// Actions are suggestions for the action filter; any value is accepted.
	Actions []string
	// Subjects are the choices of the subject filter.
	Subjects []string
	Rows     []Row
	// OlderURL is the next page of older entries; "" on the last page.
	OlderURL string
	// NewestURL goes back to the first page; "" on the first page.
	NewestURL string
}

// Filter is the GET form's values, kept in the form and the paging links.
type Filter struct {
	Actor, Action, Subject, SubjectID string
}

// Active reports whether any filter is set.
func (f Filter) Active() bool {
	return f.Actor != "" || f.Action != "" || f.Subject != "" || f.SubjectID != ""
}

// Row is one audit entry.
type Row struct {
	ID int64
	// At is the time in UTC for reading; AtISO the RFC 3339 form.
	At, AtISO string
	Actor     string
	Action    string
	Subject   string
	SubjectID string
	// SubjectURL is the page of the subject, "" when it has none.
	SubjectURL string
	Locale     string
	// Revision is the override revision the change made; 0 when none.
	Revision int
	// Note is the note given with the change ("" for none).
	Note string
	// Change summarises the before/after, e.g. "12 → 14 lines".
	Change        string
	Before, After Text
}

// Text is a before or after text, folded when long: Head is shown, Rest
// (RestLines lines) only on request.
type Text struct {
	Empty     bool
	Head      string
	Rest      string
	RestLines int
}

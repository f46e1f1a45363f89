// Package errorpage is the page shown for every failed request that is
// not an API call: status, title and a message safe to show.
package errorpage

// Model is the error page.
type Model struct {
	Status  int
	Title   string
	Message string
	// Retry, when set, offers to send the failed request again: a
	// database that was unreachable may answer now.
	Retry *Retry
}

// Retry is the failed request, to send again: a GET is a link to URL; a
// POST is a form to URL with every field as it was sent, those the user
// typed shown (Typed) so that nothing is lost, the others (CSRF token,
// revision) hidden.
type Retry struct {
	Method string
	URL    string
	Typed  []Field
	Hidden []Field
}

// Field is one form field of Retry.
type Field struct {
	Name, Value string
}

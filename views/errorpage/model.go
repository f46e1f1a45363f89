// Package errorpage is the page shown for every failed request that is
// not an API call: status, title and a message safe to show.
package errorpage

// Model is the error page.
type Model struct {
	Status  int
	Title   string
	Message string
}

// Package driftpage lists drifted overrides: overrides whose
// builtin has moved on since they were made.
package driftpage

// Model is the drift page.
type Model struct {
	Rows []Row
	// Flash reports the review action just done.
	Flash string
}

// Row is one drifted override.
type Row struct {
	ModuleID, Locale string
	BasedOnVersion   int
	BuiltinVersion   int
	// Reason says how the builtin moved: a version bump, or a changed text
	// at the same version (a missing version bump upstream).
	Reason   string
	Revision int
	Author   string
	// Note is why the served revision was made ("" for none).
	Note      string
	Updated   string
	ModuleURL string
	EditorURL string
	// ReviewURL is the drift review: the three texts and the actions.
	ReviewURL string
}

// Package profilepage is the profile pages: list, form and
// delete confirmation.
package profilepage

// List is the profile list page.
type List struct {
	Rows  []Row
	Flash string
}

// Row is one profile in the list.
type Row struct {
	ID, Name, Locale, Model, TimeZone string
	Modules                           int
	SkillDisclosure                   bool
	TokenBudget                       int
	// SkillBudget is in tokens; 0 means the server's default.
	SkillBudget int
	Updated     string
}

// Form is the create and edit form; fields hold what the user typed.
type Form struct {
	// New is true when creating: the id is editable.
	New                               bool
	Action                            string
	ID, Name, Locale, Model, TimeZone string
	// PromptModules is one module id per line.
	PromptModules   string
	SystemPrompt    string
	SkillDisclosure bool
	// TokenBudget is kept as typed, so a bad value can be shown again.
	TokenBudget string
	// SkillBudget is kept as typed, like TokenBudget.
	SkillBudget string
	// Errors are keyed by form field name.
	Errors    map[string]string
	DeleteURL string
}

// Delete is the delete confirmation page.
type Delete struct {
	ID, Name, Action string
}

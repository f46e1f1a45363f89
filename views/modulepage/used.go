package modulepage

import "github.com/promptdesk/promptdesk/views/components"

// Uses is where a module is used: the profiles naming it in their
// promptModules and the saved scenarios it enters, assembled on what is
// served now.
type Uses struct {
	Profiles []ProfileUse
	// Scenarios are the saved scenarios it enters, or that failed to
	// assemble; Total is how many saved scenarios were assembled.
	Scenarios []ScenarioUse
	Total     int
}

// ProfileUse is a profile that names the module, at 1-based Position of
// its promptModules.
type ProfileUse struct {
	ID, Name string
	URL      string
	Position int
}

// ScenarioUse is a saved scenario the module enters, with each entry of
// the composition report that entered it (Err: the scenario failed to
// assemble).
type ScenarioUse struct {
	ID, Name   string
	PreviewURL string
	Entries    []UseEntry
	Err        components.Problem
}

// UseEntry is one report entry: Kind prompt or include, the locale and
// source that served, and the reason (profile, default, intent:…,
// command:…, attachment, by:…); Line is its text form.
type UseEntry struct {
	Kind, Locale, Source, Reason, Line string
}

// Package modulepage is the module detail page: shared fields,
// triggers, and per locale which source serves it, with its body and the
// override actions.
package modulepage

// Model is the module detail page.
type Model struct {
	ID     string
	Status string
	Fields Fields
	// FieldsFrom says which text the fields were read from, e.g.
	// "builtin en-US" or "override ja-JP".
	FieldsFrom string
	Triggers   []Trigger
	Locales    []Locale
	// Fallback is the fallback locale, the default of the new-locale form.
	Fallback string
	Flash    string
	// Alert explains a refused publish or discard (409).
	Alert string
	// Uses is where the module is used; nil when not computed.
	Uses *Uses
}

// Fields are a module's frontmatter fields.
type Fields struct {
	Layer               string
	Version             int
	Title               string
	Description         string
	Priority            int
	RequiresAttachments bool
	Variables           []Variable
	OutputContract      string
	// Upstream is where an imported text came from, "source · name ·
	// version" (library.Upstream.String); "" when the module names none.
	Upstream string
}

// Variable is one declared variable; Escape is "" or "xml".
type Variable struct {
	Name, Escape, Description string
}

// Trigger is one trigger row; Keywords are joined with ", ".
type Trigger struct {
	Kind, Keywords, Command string
}

// Locale is how the module is served for one locale (the override chain,
// docs/overrides-lifecycle.md).
type Locale struct {
	Locale string
	// Source is the served source: builtin, override, override-drifted,
	// file or user-module.
	Source string
	// ServedLocale is the locale the served text comes from; Fallback is
	// true when that is the fallback locale, not this one.
	ServedLocale string
	Fallback     bool
	Version      int
	Title        string
	Body         string
	// Override is set when a published override exists for this locale.
	Override *Override
	// Draft is set when a draft not published yet exists for this locale.
	Draft *Draft
	// BuiltinVersion is the builtin's version now, 0 for a user module.
	BuiltinVersion int
	EditURL        string
	DeleteURL      string
}

// Draft is the unpublished head of one locale's override, with the
// confirmation pages that publish or discard it.
type Draft struct {
	Revision   int
	Author     string
	Updated    string
	PublishURL string
	DiscardURL string
	// Broken is the parse error of a draft that does not parse; it cannot
	// be published until fixed.
	Broken string
}

// Override is the published override of one locale.
type Override struct {
	Revision       int
	Author         string
	Updated        string
	BasedOnVersion int
	// Drift says why the builtin moved on since the override was made
	// ("builtin version raised"); "" when it did not. ReviewURL is the
	// drift review of this override.
	Drift     string
	ReviewURL string
	// Broken is the parse error of an override that no longer parses.
	Broken string
}

// LocaleAnchor is the id of locale's card on the page, the fragment the
// editor, publish, discard and restore return to: "locale-zh-CN".
func LocaleAnchor(locale string) string {
	return "locale-" + locale
}

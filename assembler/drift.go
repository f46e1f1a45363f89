package assembler

import "github.com/promptdesk/promptdesk/library"

// DriftReason says why an override is drifted; "" when it is not.
type DriftReason string

// The reasons of a drift, in the order DriftOf checks them.
const (
	// DriftBuiltinRemoved: the override was copied from a builtin that the
	// library no longer has in any locale.
	DriftBuiltinRemoved DriftReason = "builtin-removed"
	// DriftVersionRaised: the builtin's version is higher than the one the
	// override was copied from.
	DriftVersionRaised DriftReason = "builtin-version-raised"
	// DriftVersionLowered: the builtin's version is lower than the one the
	// override was copied from (a library rolled back).
	DriftVersionLowered DriftReason = "builtin-version-lowered"
	// DriftTextChanged: same version, but the builtin text differs from
	// the text the override was copied from: the builtin changed without
	// the version bump it needed.
	DriftTextChanged DriftReason = "builtin-text-changed"
	// DriftBuiltinAdded: a user module (based on no builtin) now has a
	// builtin of the same id, which it overrides without anyone having
	// chosen to.
	DriftBuiltinAdded DriftReason = "builtin-added"
)

// Drift is the drift decision of one override against a library: Reason
// ("" when not drifted), the builtin version the override was based on and
// the builtin's version now (0 when removed).
type Drift struct {
	Reason         DriftReason
	BasedOnVersion int
	BuiltinVersion int
}

// Drifted reports whether the override needs a review.
func (d Drift) Drifted() bool { return d.Reason != "" }

// Describe is the reason as an operator reads it, "" when not drifted.
func (d Drift) Describe() string {
	switch d.Reason {
	case DriftBuiltinRemoved:
		return "builtin removed from the library"
	case DriftVersionRaised:
		return "builtin version raised"
	case DriftVersionLowered:
		return "builtin version lowered"
	case DriftTextChanged:
		return "builtin text changed without a version bump"
	case DriftBuiltinAdded:
		return "a builtin with this id was added"
	}
	return ""
}

// DriftOf is the one drift rule, used wherever drift is shown or acted
// on: the drift list and review, the module and library pages, the API
// and the report's warning. It reads o's ID, Locale, BasedOnVersion and
// BaseSnapshot only (Module may be nil, for a stored override that no
// longer parses).
//
// A user module (BasedOnVersion 0) drifts only when the library gains a
// builtin of its id (builtin-added). Otherwise, with v the
// builtin's version now (one version line for every locale of an id):
// no builtin in any locale is builtin-removed; v above or below
// BasedOnVersion is version raised or lowered; at the same version the
// override drifted when the text it was copied from is not the builtin's
// text now: the builtin of the override's locale, or, for an override in
// a locale without a builtin (copied from another locale's), any
// locale's builtin text.
func DriftOf(o *Override, lib *library.Snapshot) Drift {
	d := Drift{BasedOnVersion: o.BasedOnVersion}
	any, ok := lib.Any(o.ID)
	if o.BasedOnVersion == 0 {
		if ok {
			d.Reason, d.BuiltinVersion = DriftBuiltinAdded, any.Version
		}
		return d
	}
	if !ok {
		d.Reason = DriftBuiltinRemoved
		return d
	}
	d.BuiltinVersion = any.Version
	switch {
	case any.Version > o.BasedOnVersion:
		d.Reason = DriftVersionRaised
	case any.Version < o.BasedOnVersion:
		d.Reason = DriftVersionLowered
	case !copiedFromCurrent(o, lib):
		d.Reason = DriftTextChanged
	}
	return d
}

// copiedFromCurrent reports whether o's base snapshot is the builtin text
// it was copied from as the library has it now.
func copiedFromCurrent(o *Override, lib *library.Snapshot) bool {
	if b, ok := lib.Module(o.ID, o.Locale); ok {
		return b.Text == o.BaseSnapshot
	}
	for _, loc := range lib.ModuleLocales(o.ID) {
		if b, _ := lib.Module(o.ID, loc); b.Text == o.BaseSnapshot {
			return true
		}
	}
	return false
}

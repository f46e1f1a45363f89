// Package diffview shows line diffs and merged texts with conflicts, for
// the revision history and the drift review.
package diffview

// Line kinds.
const (
	KindEqual  = "equal"
	KindInsert = "insert"
	KindDelete = "delete"
	// KindFolded stands for Count unchanged lines left out.
	KindFolded = "folded"
)

// Line is one row of a diff.
type Line struct {
	Kind string
	// Old and New are 1-based line numbers; 0 where the line is absent.
	Old, New int
	Text     string
	Count    int // KindFolded only
	// Spans cut Text of a changed line that has a partner line on the
	// other side into kept and changed pieces; nil marks the whole line.
	Spans []Span
}

// Span is a piece of a changed line: Changed for text that its partner
// line does not have (struck on a deleted line, underlined on an
// inserted one).
type Span struct {
	Text    string
	Changed bool
}

// Merged-text line kinds: plain text, a conflict marker, and the two
// sides inside a conflict.
const (
	MergeText     = "text"
	MergeMarker   = "marker"
	MergeOverride = "override"
	MergeBuiltin  = "builtin"
)

// MergeLine is one line of a merged text.
type MergeLine struct {
	N    int
	Kind string
	Text string
}

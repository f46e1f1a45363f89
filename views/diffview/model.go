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

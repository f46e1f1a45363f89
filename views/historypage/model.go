// Package historypage is the revision history of one override:
// every revision, newest first, with its diff against the one before and
// a restore button.
package historypage

import "github.com/promptdesk/promptdesk/views/diffview"

// Model is the history page.
type Model struct {
	ID, Locale string
	ModuleURL  string
	EditorURL  string
	// RestoreURL is where the restore forms post.
	RestoreURL string
	// Head is the newest revision, the base every restore is made on; 0
	// when there is no history.
	Head int
	// Removed is true when the newest revision removed the override (the
	// builtin serves).
	Removed   bool
	Revisions []Revision
	Flash     string
	// Alert is why a restore was refused (a stale base, an invalid text);
	// Errors are its details.
	Alert  string
	Errors []string
}

// Revision is one entry of the history.
type Revision struct {
	Revision int
	Action   string
	Author   string
	Time     string
	// Version is the override's own frontmatter version; BasedOnVersion
	// the builtin version it was based on (0: a user module).
	Version        int
	BasedOnVersion int
	// Head is the newest revision: a draft unless it is Serving.
	Head bool
	// Note is why the revision was made ("" for none).
	Note string
	// Serving marks the published revision that serves (not a removal);
	// PublishedBy and PublishedAt say who published it and when ("" when
	// unknown), PublishNote with which note.
	Serving                               bool
	PublishedBy, PublishedAt, PublishNote string
	// Removal is true for a delete or take-builtin: the revision has no
	// text.
	Removal bool
	// Restorable is true for a revision with text that is not the head.
	Restorable bool
	// Against says what Diff compares the revision with, e.g. "revision 3"
	// or "the builtin v2 it was based on".
	Against string
	Diff    []diffview.Line
	// Plus and Minus count the inserted and deleted lines of Diff.
	Plus, Minus int
}

package state

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
)

// ThreeWay is what a stale save of the override ran into: the common
// text both edits started from (the revision the refused edit was based
// on), and the merge of both edits, the refused one (yours) applied to the
// head (theirs), conflicts written between linediff.MarkerYours and linediff.MarkerTheirs.
type ThreeWay struct {
	// Common is the text of the revision the edit started from; CommonFrom
	// says which ("revision 3", "the builtin en-US v1 text", "no text").
	Common     string
	CommonFrom string
	Merged     linediff.Merged
}

// ThreeWay merges yours, an edit of the override of id in locale based
// on revision, with head, the override as it is now. The common text is
// that revision's; an edit based on revision 0 started from the builtin
// the editor prefills, a removal from no text. Errors: the store's, and
// linediff.ErrTooLarge.
func (s *Overrides) ThreeWay(ctx context.Context, id, locale string, revision int, yours string, head domain.Override) (ThreeWay, error) {
	var t ThreeWay
	switch {
	case revision > 0:
		r, err := s.Store.GetRevision(ctx, id, locale, revision)
		switch {
		case errors.Is(err, library.ErrNotFound):
			t.CommonFrom = fmt.Sprintf("no text: revision %d does not exist", revision)
		case err != nil:
			return ThreeWay{}, err
		case domain.Removal(r.Action, r.Text):
			t.CommonFrom = fmt.Sprintf("no text: revision %d removed the override", revision)
		default:
			t.Common, t.CommonFrom = r.Text, fmt.Sprintf("revision %d by %s", r.Revision, r.Author)
		}
	default:
		if b, ok := s.BuiltinBase(s.Served.Current(), id, locale); ok {
			t.Common, t.CommonFrom = b.Text, fmt.Sprintf("the builtin %s text, version %d", b.Locale, b.Version)
		} else {
			t.CommonFrom = "no text: a new user module"
		}
	}
	merged, err := linediff.Merge(t.Common, yours, head.Text)
	if err != nil {
		return ThreeWay{}, err
	}
	merged.Text = relabel(merged.Text)
	t.Merged = merged
	return t, nil
}

// relabel names the sides of Merge's conflict markers for a stale save:
// the override's lines are yours, the builtin's are the head's.
func relabel(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		switch l {
		case linediff.MarkerOverride:
			lines[i] = linediff.MarkerYours
		case linediff.MarkerBuiltin:
			lines[i] = linediff.MarkerTheirs
		}
	}
	return strings.Join(lines, "\n")
}

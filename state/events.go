package state

import (
	"context"

	"github.com/promptdesk/promptdesk/domain"
)

// Events is told of every change of what an override serves that the
// write path makes (publish, delete, restore and the drift review's
// actions), once it is committed and this process serves it (or failed
// to reload): webhooks listen here. It must not
// block for long; a failure to pass a change on is its own to log, since
// the change stands.
type Events interface {
	OverrideChanged(ctx context.Context, c OverrideChange)
}

// OverrideChange is one committed change of an override.
type OverrideChange struct {
	// Action is the store's: domain.ActionPublish, ActionKeepMine (a
	// publish too), ActionDelete, ActionTakeBuiltin (a delete too) or
	// ActionRestore (a new draft).
	Action   string
	ID       string
	Locale   string
	Revision int    // the revision the change made or published
	Actor    string // domain.ActorFrom of the change's context
}

// tell tells s.Events, when set, of a committed change.
func (s *Overrides) tell(ctx context.Context, action, id, locale string, revision int) {
	if s.Events == nil {
		return
	}
	s.Events.OverrideChanged(ctx, OverrideChange{Action: action, ID: id, Locale: locale, Revision: revision, Actor: domain.ActorFrom(ctx)})
}

package state

// Outbox is woken once a write has committed a change of what an override
// serves (publish, delete, restore and the drift review's actions), after
// this process serves it (or failed to reload): the store wrote the
// change's webhook event in the change's own transaction, and the
// dispatcher sends it now rather than at its next poll. Nothing is
// recorded after the commit, so nothing can be lost there. Wake must not
// block.
type Outbox interface {
	Wake()
}

// wake wakes s.Outbox, when set, after a committed change.
func (s *Overrides) wake() {
	if s.Outbox != nil {
		s.Outbox.Wake()
	}
}

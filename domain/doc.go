// Package domain holds the records promptdesk keeps for its operators,
// as every layer sees them: overrides and their revisions, profiles,
// scenarios, console users and setup links, API tokens, audit entries and
// webhooks with their deliveries; the actions, subjects, roles and scopes
// that name what happens to them; the actor and the origin of a change
// (WithActor, WithOrigin); and the errors that cross layers
// (ErrUnavailable, ErrLoginFailed, AlreadyDeleted …). It imports nothing
// technical: the store reads and writes these types in Postgres, the state
// package serves them, and the handlers show them, without the handlers
// depending on the store.
package domain

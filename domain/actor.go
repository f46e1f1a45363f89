package domain

import "context"

// actorKey is the context key of the acting user or program.
type actorKey struct{}

// UnknownActor is the actor of a change made with no WithActor in its
// context.
const UnknownActor = "unknown"

// WithActor returns ctx carrying name as the actor of the changes made
// with it: every store method that changes data records it in the revision
// and the audit row. The console passes the logged-in user's name, the CLI "cli", the API
// "token:<name>" of the request's token (docs/overrides-lifecycle.md). An empty name is no actor.
func WithActor(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, actorKey{}, name)
}

// ActorFrom returns the actor WithActor put in ctx, or "unknown".
func ActorFrom(ctx context.Context) string {
	if name, ok := ActorOf(ctx); ok {
		return name
	}
	return UnknownActor
}

// ActorOf returns the actor of ctx and whether one was set (WithActor
// with a name that is not empty).
func ActorOf(ctx context.Context) (string, bool) {
	name, _ := ctx.Value(actorKey{}).(string)
	return name, name != ""
}

package domain

import "context"

// originKey is the context key of the origin of a change.
type originKey struct{}

// WithOrigin returns ctx carrying origin, the opaque id of the process
// part that makes the changes of ctx and has already applied them to what
// it serves (state.Served.Origin): the store puts it in each change's
// notification, so that the process can tell its own notifications from
// those of others. An empty origin is none.
func WithOrigin(ctx context.Context, origin string) context.Context {
	return context.WithValue(ctx, originKey{}, origin)
}

// OriginOf returns the origin WithOrigin put in ctx, "" when none.
func OriginOf(ctx context.Context) string {
	origin, _ := ctx.Value(originKey{}).(string)
	return origin
}

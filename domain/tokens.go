package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// SubjectToken is the audit subject of API tokens; its actions are
// ActionCreate, ActionRevoke and ActionUse, its SubjectID the token's name.
const SubjectToken = "api_token"

// ActionRevoke is the audit action of revoking an API token.
const ActionRevoke = "revoke"

// ActionUse is the audit action of an API token's use: recorded with its
// last_used_at, so at most once a minute per token (lastUsedEvery); its
// actor is "token:<name>" and its After {"method","path"} of the request.
const ActionUse = "use"

// Scopes of API tokens (README, Runtime API): what each /api/v1 route requires is
// decided by the web package's route table.
const (
	ScopeAssemble = "assemble" // runtimes: assemble, render, commands, tools
	ScopeRead     = "read"     // modules, overrides (GET)
	ScopeWrite    = "write"    // the override API's PUT, DELETE and publish
	ScopeAdmin    = "admin"    // the webhooks API
)

// Scopes lists every scope, in order.
var Scopes = []string{ScopeAssemble, ScopeRead, ScopeWrite, ScopeAdmin}

// Channels of the runtime API. A token's channel is chosen at creation,
// as a flag given with its scopes (ChannelStaging; none is production).
const (
	// ChannelProduction serves what is published.
	ChannelProduction = "production"
	// ChannelStaging serves the pending drafts (a publish waiting for its
	// confirmation or its change request's approval) on top of what is
	// published, so a staging runtime runs a change before production.
	ChannelStaging = "staging"
)

// Flags lists the token flags, which NormalizeScopes takes with the
// scopes but which grant no route.
var Flags = []string{ChannelStaging}

// Channel is the token's channel: ChannelStaging when it has that flag,
// else ChannelProduction.
func (t Token) Channel() string {
	if t.Has(ChannelStaging) {
		return ChannelStaging
	}
	return ChannelProduction
}

// TokenPrefix starts every API token.
const TokenPrefix = "pd_"

// lastUsedEvery is how often at most Authenticate records a token's
// last use: a write per request would be a write per runtime call.
const lastUsedEvery = time.Minute

// Token is an API token as stored: never its secret, only its hash.
type Token struct {
	ID         int64
	Name       string
	Scopes     []string
	Prefix     string // the first 8 characters of the secret
	CreatedAt  time.Time
	LastUsedAt *time.Time // nil: never used
	RevokedAt  *time.Time // nil: active
}

// Has reports whether the token carries scope.
func (t Token) Has(scope string) bool { return slices.Contains(t.Scopes, scope) }

// ErrTokenRevoked is Authenticate's error for a revoked token; it also
// matches library.ErrNotFound, so callers that only tell "authenticated
// or not" need no special case.
var ErrTokenRevoked = fmt.Errorf("the API token is revoked: %w", library.ErrNotFound)

// HashToken is the stored form of a token secret: its sha256, hex. A fast
// hash is right for tokens (unlike passwords): they are 256-bit random
// secrets, so there is nothing to guess, and every request looks one up.
func HashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NormalizeScopes checks scopes against Scopes and Flags and returns
// them sorted in that order without repeats. Errors: library.ErrInvalid
// for a list without a scope or with an unknown one, and for the staging
// flag on a token that can call nothing it changes (neither assemble nor
// read).
func NormalizeScopes(scopes []string) ([]string, error) {
	all := slices.Concat(Scopes, Flags)
	var out []string
	granted := false
	for _, s := range scopes {
		s = strings.TrimSpace(s)
		if !slices.Contains(all, s) {
			return nil, fmt.Errorf("unknown scope %q (scopes: %s; flags: %s): %w", s, strings.Join(Scopes, ", "), strings.Join(Flags, ", "), library.ErrInvalid)
		}
		granted = granted || slices.Contains(Scopes, s)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if !granted {
		return nil, fmt.Errorf("a token needs at least one scope (%s): %w", strings.Join(Scopes, ", "), library.ErrInvalid)
	}
	if slices.Contains(out, ChannelStaging) && !slices.Contains(out, ScopeAssemble) && !slices.Contains(out, ScopeRead) {
		return nil, fmt.Errorf("the flag %s changes what assemble, render and MCP prompts serve, which a token without the %s or %s scope cannot call: add one of them: %w",
			ChannelStaging, ScopeAssemble, ScopeRead, library.ErrInvalid)
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(all, a) - slices.Index(all, b) })
	return out, nil
}

// TokenUseDue reports whether a use at now is to be recorded for a token
// last recorded at last (nil: never): at most once a minute per token.
func TokenUseDue(last *time.Time, now time.Time) bool {
	return last == nil || now.Sub(*last) >= lastUsedEvery
}

// AlreadyRevoked is the error of revoking a token revoked before (a
// repeated form post, the back button): nothing changes. It matches
// library.ErrConflict.
type AlreadyRevoked struct {
	Name string
	At   time.Time
}

func (e *AlreadyRevoked) Error() string {
	return fmt.Sprintf("API token %s was already revoked (%s)", e.Name, e.At.UTC().Format("2006-01-02 15:04 UTC"))
}

// Is makes an AlreadyRevoked match library.ErrConflict.
func (e *AlreadyRevoked) Is(target error) bool { return target == library.ErrConflict }

// TokenActor is the actor recorded for changes made with the token called
// name, through the API or MCP: "token:<name>".
func TokenActor(name string) string { return "token:" + name }

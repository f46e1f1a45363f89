package assembler

import (
	"time"

	"github.com/promptdesk/promptdesk/assembler/tokens"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// Override is an operator override as the assembler sees it: the
// parsed module text of one id (ID) in one locale, its revision, the
// builtin version it was copied from (0 for a user module, which has no
// builtin) and the builtin text at that version. DriftOf decides whether
// the builtin has moved on since.
type Override struct {
	ID             string
	Module         *library.Module
	Locale         string
	Revision       int
	BasedOnVersion int
	BaseSnapshot   string
}

// Overrun is by how many tokens res exceeds p's token budget: 0 when p
// is nil, has no budget, is within it, or res counted no tokens (no
// encoding). The report's token-budget-exceeded warning and the
// preview's budget badge both read it.
func Overrun(p *domain.Profile, res *Result) int {
	if p == nil || p.TokenBudget <= 0 || res.Encoding == "" || res.Tokens <= p.TokenBudget {
		return 0
	}
	return res.Tokens - p.TokenBudget
}

// State is the operator data an assembly reads: published overrides keyed
// by OverrideKey, and profiles by id. It is built once per change, not per
// request, and must not be modified while in use; a change of one
// override makes a new State whose Overrides share the rest with the
// old one's (ByKey.With).
type State struct {
	Overrides ByKey[*Override]
	Profiles  map[string]*domain.Profile
}

// OverrideKey identifies an override: module id and lower-case locale.
type OverrideKey struct{ ID, Locale string }

// Key returns the OverrideKey of id in locale.
func Key(id, locale string) OverrideKey { return OverrideKey{id, library.LocaleKey(locale)} }

// Config holds the server settings of assembly.
type Config struct {
	// FallbackLocale is the locale tried after the requested one in the
	// override chain (docs/overrides-lifecycle.md); default "en-US".
	FallbackLocale string
	// TimeZone is the server's zone, used when neither request nor profile
	// names one; default UTC, never the host's local zone.
	TimeZone *time.Location
	// SkillBudget is the server's token budget of the skills-available
	// segment, used for a request whose profile sets none; 0 means
	// DefaultSkillBudget.
	SkillBudget int
	// CountTokens turns token counting in the composition report on.
	CountTokens bool
	// TokenMemo keeps token counts of chunks of text between requests;
	// nil uses the process-wide memo (tokens.DefaultMemoBytes).
	TokenMemo *tokens.Memo
	// Observe, when set, is told how long each successful Assemble took
	// (for metrics); it must be fast and safe for concurrent use.
	Observe func(Timing)
}

// Timing is how long one Assemble took in all, and the part of it spent
// counting tokens (zero when CountTokens is off).
type Timing struct {
	Assemble, Tokens time.Duration
}

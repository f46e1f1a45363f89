// Package assembler builds the system prompt for one situation: it resolves
// each module through the override chain (docs/overrides-lifecycle.md),
// renders placeholders and environment values, applies triggers
// (docs/module-format.md), renders the knowledge, selected-document and
// skill tables and writes the composition report. Assemble is a pure
// function of its inputs: no I/O, and the clock is passed in.
package assembler

import (
	"sync"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// Assembler holds the server settings of assembly; it is safe for
// concurrent use.
type Assembler struct {
	cfg Config
	// fallbackKey is library.LocaleKey(cfg.FallbackLocale).
	fallbackKey string
	// static caches token counts of modules without placeholders
	// (staticKey → int).
	static sync.Map
	// zones caches time zones by IANA name (string → *time.Location).
	zones sync.Map
	// triggers caches the skill-table trigger text of a task module
	// (triggerKey → string).
	triggers sync.Map
	// skillDocs caches the search document of a task module for ranking
	// skills (weak.Pointer[library.Module] → *skillDoc).
	skillDocs sync.Map
	// tables caches rendered knowledge-base and skill tables by content.
	tables *tableCache
	// indexes caches the base and task ids of a snapshot
	// (weak.Pointer[library.Snapshot] → *idIndex), and of a snapshot
	// with a State's user modules (stateIndexKey → *idIndex).
	indexes sync.Map
	// catalogues caches the indexed task modules of a snapshot in a
	// locale (catalogueKey → *catalogues).
	catalogues sync.Map
	// stateTasks caches a State's task overrides
	// (weak.Pointer[State] → []*Override).
	stateTasks sync.Map
}

// New returns an Assembler; zero fields of cfg take their defaults
// (fallback en-US, time zone UTC).
func New(cfg Config) *Assembler {
	if cfg.FallbackLocale == "" {
		cfg.FallbackLocale = "en-US"
	}
	if cfg.TimeZone == nil {
		cfg.TimeZone = time.UTC
	}
	return &Assembler{cfg: cfg, fallbackKey: library.LocaleKey(cfg.FallbackLocale), tables: newTableCache(DefaultTableCacheBytes)}
}

// FallbackLocale is the locale tried when the requested one has no text.
func (a *Assembler) FallbackLocale() string { return a.cfg.FallbackLocale }

// Served is how one module id was resolved for a locale: the module
// text that serves, its source (Source* constants), the locale it came
// from, whether that was by fallback, and the override when one served
// with its drift (DriftOf).
type Served struct {
	Module   *library.Module
	Source   string
	Locale   string
	Fallback bool
	Override *Override
	Drift    Drift
}

// Resolve walks the override chain for id and locale: override(L) →
// builtin(L) → override(F) → builtin(F). ok is false when none exists.
func (a *Assembler) Resolve(snap *library.Snapshot, st *State, id, locale string) (s Served, ok bool) {
	// loc is a locale key (lower case), so no lookup lowers it again.
	try := func(loc string, fallback bool) bool {
		if st != nil {
			if o, found := st.Overrides.Get(OverrideKey{id, loc}); found {
				s = Served{Module: o.Module, Source: SourceOverride, Locale: o.Locale, Fallback: fallback, Override: o}
				s.Drift = DriftOf(o, snap)
				switch {
				case s.Drift.Drifted():
					s.Source = SourceOverrideDrifted
				case !snap.Has(id):
					s.Source = SourceUserModule
				}
				return true
			}
		}
		if m, found := snap.Module(id, loc); found {
			s = Served{Module: m, Source: SourceBuiltin, Locale: m.Locale, Fallback: fallback}
			if snap.Source != "embedded" {
				s.Source = SourceFile
			}
			return true
		}
		return false
	}
	key := library.LocaleKey(locale)
	if try(key, false) {
		return s, true
	}
	if key != a.fallbackKey && try(a.fallbackKey, true) {
		return s, true
	}
	return Served{}, false
}

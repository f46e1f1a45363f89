package domain

import "time"

// SubjectLedger is the audit subject of the porting ledger; its
// SubjectID is "<catalogue>/<entry name>" for a decision and the
// catalogue for a sync.
const SubjectLedger = "ledger"

// Audit actions of the porting ledger.
const (
	// ActionDecide records a decision on a ledger entry: Before and After
	// are the decisions as one line each.
	ActionDecide = "decide"
	// ActionSync records a sync of a catalogue: After counts what it found.
	ActionSync = "sync"
)

// The decisions of the porting ledger; an entry nobody decided yet has
// DecisionUndecided.
const (
	DecisionUndecided = ""
	// DecisionPort: a real consumer exists here; the entry became the
	// module named by ModuleID.
	DecisionPort = "port"
	// DecisionMerge: the entry's content went into the existing module
	// ModuleID.
	DecisionMerge = "merge"
	// DecisionDoNotPort: not ported, for the Reason given (a description
	// of a tool or mode the system does not have is worse than nothing).
	DecisionDoNotPort = "do-not-port"
)

// Decisions are the decisions a user may take, in display order.
var Decisions = []string{DecisionPort, DecisionMerge, DecisionDoNotPort}

// LedgerEntry is one entry of a borrowed prompt catalogue in the
// porting ledger: what upstream has now (Kind, Version, Text, Hash,
// Removed) and what was decided about it, on which upstream text
// (Decided*). Listings leave Text and DecidedText empty (Hash and
// DecidedHash are always set).
type LedgerEntry struct {
	Catalogue string // the catalogue's source name, e.g. "claude-code"
	Name      string // the entry's upstream name, unique in its catalogue
	Kind      string // upstream kind, e.g. "tool-description"; "" when none
	Version   string // upstream version now; "" when absent
	Text      string
	Hash      string // TextHash(Text)
	// Removed is set when the last sync no longer found the entry.
	Removed bool
	// Decision is one of Decisions, or DecisionUndecided.
	Decision string
	// ModuleID is the module a port became or a merge went into; "" for
	// the others.
	ModuleID string
	// Reason says why (required for DecisionDoNotPort, a note otherwise).
	Reason string
	// DecidedVersion, DecidedText and DecidedHash are the upstream
	// version and text the decision was taken on.
	DecidedVersion string
	DecidedText    string
	DecidedHash    string
	DecidedBy      string    // ActorFrom of the decision's context
	DecidedAt      time.Time // zero while undecided
	FirstSeen      time.Time
	// ChangedAt is when a sync last found the upstream text changed (the
	// first sync for one never changed).
	ChangedAt time.Time
}

// LedgerUpstream is an entry as a sync writes it: what upstream has now.
type LedgerUpstream struct {
	Name, Kind, Version, Text string
}

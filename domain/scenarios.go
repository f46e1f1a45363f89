package domain

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Scenario is a saved preview situation: an assemble request (the API's
// camelCase JSON) with a name.
type Scenario struct {
	ID          string // slug
	Name        string
	Description string
	Request     json.RawMessage // a JSON object, stored as json: key order and spacing kept as given
	// Builtin marks one of the app's example scenarios, seeded on first
	// start; it is edited, accepted and deleted like any other.
	Builtin   bool
	UpdatedAt time.Time
	// Accepted is the output last accepted, nil until the first accept.
	Accepted *Accepted
}

// ScenarioOutput is what a scenario's run produced, as it is compared
// and accepted: the assembled full text, the composition report's text
// lines (where the library was loaded from left out: see
// state.OutputOf) and the total token count.
type ScenarioOutput struct {
	Text   string
	Report []string
	Tokens int
}

// Accepted is a scenario's accepted output with who accepted it (the
// actor of the context) and when.
type Accepted struct {
	ScenarioOutput
	At time.Time
	By string
}

// ActionAccept is the audit action of accepting a scenario's output.
const ActionAccept = "accept"

// AuditText is an output as the audit log shows it: the full text, then
// the report lines and the token count.
func (o ScenarioOutput) AuditText() string {
	var b strings.Builder
	b.WriteString(o.Text)
	if !strings.HasSuffix(o.Text, "\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n--- composition report, %d tokens ---\n", o.Tokens)
	for _, l := range o.Report {
		b.WriteString(l + "\n")
	}
	return b.String()
}

package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/library"
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

const scenarioColumns = `id, name, description, request, builtin, updated_at,
	accepted_text, accepted_report, accepted_tokens, accepted_at, accepted_by`

func scanScenario(row pgx.Row) (Scenario, error) {
	var sc Scenario
	var text *string
	var report []string
	var tokens *int
	var at *time.Time
	var by string
	err := row.Scan(&sc.ID, &sc.Name, &sc.Description, &sc.Request, &sc.Builtin, &sc.UpdatedAt,
		&text, &report, &tokens, &at, &by)
	if err == nil && at != nil && text != nil && tokens != nil {
		if report == nil {
			report = []string{}
		}
		sc.Accepted = &Accepted{ScenarioOutput: ScenarioOutput{Text: *text, Report: report, Tokens: *tokens}, At: *at, By: by}
	}
	return sc, err
}

// ListScenarios returns every scenario ordered by id (byte order).
func (s *Store) ListScenarios(ctx context.Context) ([]Scenario, error) {
	rows, err := s.db.Query(ctx, `SELECT `+scenarioColumns+` FROM scenarios ORDER BY id COLLATE "C"`)
	if err != nil {
		return nil, dbError(err, "list scenarios")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Scenario, error) { return scanScenario(r) })
	if err != nil {
		return nil, dbError(err, "list scenarios")
	}
	return list, nil
}

// GetScenario returns the scenario id. Errors: library.ErrNotFound.
func (s *Store) GetScenario(ctx context.Context, id string) (Scenario, error) {
	sc, err := scanScenario(s.db.QueryRow(ctx, `SELECT `+scenarioColumns+` FROM scenarios WHERE id = $1`, id))
	if err != nil {
		return Scenario{}, dbError(err, "scenario "+id)
	}
	return sc, nil
}

// scenarioAudit is a scenario as the audit log shows it (camelCase JSON).
type scenarioAudit struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Request     json.RawMessage `json:"request"`
	Builtin     bool            `json:"builtin"`
}

// scenarioChange records a change of a scenario from before to after (nil
// for none) in the audit log. Scenarios are not served, so nothing is
// announced.
func (s *Store) scenarioChange(ctx context.Context, action, id string, before, after *Scenario) error {
	e := AuditEntry{Actor: ActorFrom(ctx), Action: action, Subject: SubjectScenario, SubjectID: id}
	var err error
	if before != nil {
		if e.Before, err = auditJSON(scenarioAudit{before.ID, before.Name, before.Description, before.Request, before.Builtin}); err != nil {
			return err
		}
	}
	if after != nil {
		if e.After, err = auditJSON(scenarioAudit{after.ID, after.Name, after.Description, after.Request, after.Builtin}); err != nil {
			return err
		}
	}
	return s.audit(ctx, e)
}

// SaveScenario creates or replaces the scenario sc.ID and returns the
// stored row, with its audit row (create or update) in the same
// transaction. Errors: library.ErrInvalid for an empty id or a Request
// that is missing, malformed or not a JSON object.
func (s *Store) SaveScenario(ctx context.Context, sc Scenario) (Scenario, error) {
	var saved Scenario
	err := s.WithTx(ctx, func(tx *Store) error {
		// Two tries: a create that loses a race with another create finds
		// the row on the second and updates it.
		for range 2 {
			before, err := scanScenario(tx.db.QueryRow(ctx, `SELECT `+scenarioColumns+` FROM scenarios WHERE id = $1 FOR UPDATE`, sc.ID))
			switch {
			case err == nil:
				saved, err = scanScenario(tx.db.QueryRow(ctx, `UPDATE scenarios SET name = $2, description = $3,
					request = $4, builtin = $5, updated_at = now()
					WHERE id = $1
					RETURNING `+scenarioColumns,
					sc.ID, sc.Name, sc.Description, sc.Request, sc.Builtin))
				if err != nil {
					return dbError(err, "scenario "+sc.ID)
				}
				return tx.scenarioChange(ctx, ActionUpdate, sc.ID, &before, &saved)
			case !errors.Is(err, pgx.ErrNoRows):
				return dbError(err, "scenario "+sc.ID)
			}
			saved, err = scanScenario(tx.db.QueryRow(ctx, `INSERT INTO scenarios (id, name, description, request, builtin)
				VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (id) DO NOTHING
				RETURNING `+scenarioColumns,
				sc.ID, sc.Name, sc.Description, sc.Request, sc.Builtin))
			if err == nil {
				return tx.scenarioChange(ctx, ActionCreate, sc.ID, nil, &saved)
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return dbError(err, "scenario "+sc.ID)
			}
		}
		return fmt.Errorf("scenario %s: created and deleted concurrently; try again: %w", sc.ID, library.ErrConflict)
	})
	return saved, err
}

// ActionAccept is the audit action of accepting a scenario's output.
const ActionAccept = "accept"

// CreateScenario stores the new scenario sc (its Accepted is ignored)
// with its audit row (create) in the same transaction. Errors:
// library.ErrConflict when the id is taken; library.ErrInvalid as
// SaveScenario.
func (s *Store) CreateScenario(ctx context.Context, sc Scenario) (Scenario, error) {
	var saved Scenario
	err := s.WithTx(ctx, func(tx *Store) error {
		var err error
		saved, err = scanScenario(tx.db.QueryRow(ctx, `INSERT INTO scenarios (id, name, description, request, builtin)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (id) DO NOTHING
			RETURNING `+scenarioColumns,
			sc.ID, sc.Name, sc.Description, sc.Request, sc.Builtin))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("scenario %s already exists: %w", sc.ID, library.ErrConflict)
		}
		if err != nil {
			return dbError(err, "scenario "+sc.ID)
		}
		return tx.scenarioChange(ctx, ActionCreate, sc.ID, nil, &saved)
	})
	return saved, err
}

// UpdateScenario replaces the name, description and request of the
// scenario sc.ID, keeping its accepted output (a changed request then
// shows how its output differs from the one accepted), with its audit row
// (update) in the same transaction. Errors: library.ErrNotFound;
// library.ErrInvalid as SaveScenario.
func (s *Store) UpdateScenario(ctx context.Context, sc Scenario) (Scenario, error) {
	var saved Scenario
	err := s.WithTx(ctx, func(tx *Store) error {
		before, err := scanScenario(tx.db.QueryRow(ctx, `SELECT `+scenarioColumns+` FROM scenarios WHERE id = $1 FOR UPDATE`, sc.ID))
		if err != nil {
			return dbError(err, "scenario "+sc.ID)
		}
		saved, err = scanScenario(tx.db.QueryRow(ctx, `UPDATE scenarios SET name = $2, description = $3, request = $4, updated_at = now()
			WHERE id = $1
			RETURNING `+scenarioColumns,
			sc.ID, sc.Name, sc.Description, sc.Request))
		if err != nil {
			return dbError(err, "scenario "+sc.ID)
		}
		return tx.scenarioChange(ctx, ActionUpdate, sc.ID, &before, &saved)
	})
	return saved, err
}

// AcceptScenario records out as the accepted output of the scenario id,
// accepted now by the actor of ctx, with its audit row (accept: the
// output accepted before and the new one, as text) in the same
// transaction. Errors: library.ErrNotFound.
func (s *Store) AcceptScenario(ctx context.Context, id string, out ScenarioOutput) (Scenario, error) {
	report := out.Report
	if report == nil {
		report = []string{} // NULL means never accepted
	}
	var saved Scenario
	err := s.WithTx(ctx, func(tx *Store) error {
		before, err := scanScenario(tx.db.QueryRow(ctx, `SELECT `+scenarioColumns+` FROM scenarios WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return dbError(err, "scenario "+id)
		}
		saved, err = scanScenario(tx.db.QueryRow(ctx, `UPDATE scenarios SET accepted_text = $2, accepted_report = $3,
			accepted_tokens = $4, accepted_at = now(), accepted_by = $5
			WHERE id = $1
			RETURNING `+scenarioColumns,
			id, out.Text, report, out.Tokens, ActorFrom(ctx)))
		if err != nil {
			return dbError(err, "scenario "+id)
		}
		e := AuditEntry{Actor: ActorFrom(ctx), Action: ActionAccept, Subject: SubjectScenario, SubjectID: id, After: out.auditText()}
		if before.Accepted != nil {
			e.Before = before.Accepted.auditText()
		}
		return tx.audit(ctx, e)
	})
	return saved, err
}

// auditText is an output as the audit log shows it: the full text, then
// the report lines and the token count.
func (o ScenarioOutput) auditText() string {
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

// DeleteScenario deletes the scenario id, with its audit row in the same
// transaction. Errors: library.ErrNotFound.
func (s *Store) DeleteScenario(ctx context.Context, id string) error {
	return s.WithTx(ctx, func(tx *Store) error {
		before, err := scanScenario(tx.db.QueryRow(ctx, `DELETE FROM scenarios WHERE id = $1 RETURNING `+scenarioColumns, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return tx.notFoundOrDeleted(ctx, SubjectScenario, id, "scenario "+id, dbError(err, "scenario "+id))
		} else if err != nil {
			return dbError(err, "scenario "+id)
		}
		return tx.scenarioChange(ctx, ActionDelete, id, &before, nil)
	})
}

// CountScenarios returns how many scenarios exist (0 means the builtin
// examples have not been seeded yet).
func (s *Store) CountScenarios(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM scenarios`).Scan(&n); err != nil {
		return 0, dbError(err, "count scenarios")
	}
	return n, nil
}

package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	Builtin     bool            // a shipped example rather than an operator's own
	UpdatedAt   time.Time
}

const scenarioColumns = `id, name, description, request, builtin, updated_at`

func scanScenario(row pgx.Row) (Scenario, error) {
	var sc Scenario
	err := row.Scan(&sc.ID, &sc.Name, &sc.Description, &sc.Request, &sc.Builtin, &sc.UpdatedAt)
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

// DeleteScenario deletes the scenario id, with its audit row in the same
// transaction. Errors: library.ErrNotFound.
func (s *Store) DeleteScenario(ctx context.Context, id string) error {
	return s.WithTx(ctx, func(tx *Store) error {
		before, err := scanScenario(tx.db.QueryRow(ctx, `DELETE FROM scenarios WHERE id = $1 RETURNING `+scenarioColumns, id))
		if err != nil {
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

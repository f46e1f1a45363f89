package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

const scenarioColumns = `id, name, description, request, builtin, updated_at,
	accepted_text, accepted_report, accepted_tokens, accepted_at, accepted_by`

func scanScenario(row pgx.Row) (domain.Scenario, error) {
	var sc domain.Scenario
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
		sc.Accepted = &domain.Accepted{ScenarioOutput: domain.ScenarioOutput{Text: *text, Report: report, Tokens: *tokens}, At: *at, By: by}
	}
	return sc, err
}

// ListScenarios returns every scenario ordered by id (byte order).
func (s *Store) ListScenarios(ctx context.Context) ([]domain.Scenario, error) {
	rows, err := s.db.Query(ctx, `SELECT `+scenarioColumns+` FROM scenarios ORDER BY id COLLATE "C"`)
	if err != nil {
		return nil, dbError(err, "list scenarios")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Scenario, error) { return scanScenario(r) })
	if err != nil {
		return nil, dbError(err, "list scenarios")
	}
	return list, nil
}

// GetScenario returns the scenario id. Errors: library.ErrNotFound.
func (s *Store) GetScenario(ctx context.Context, id string) (domain.Scenario, error) {
	sc, err := scanScenario(s.db.QueryRow(ctx, `SELECT `+scenarioColumns+` FROM scenarios WHERE id = $1`, id))
	if err != nil {
		return domain.Scenario{}, dbError(err, "scenario "+id)
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
func (s *Store) scenarioChange(ctx context.Context, action, id string, before, after *domain.Scenario) error {
	e := domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: action, Subject: domain.SubjectScenario, SubjectID: id}
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
func (s *Store) SaveScenario(ctx context.Context, sc domain.Scenario) (domain.Scenario, error) {
	var saved domain.Scenario
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
				return tx.scenarioChange(ctx, domain.ActionUpdate, sc.ID, &before, &saved)
			case !errors.Is(err, pgx.ErrNoRows):
				return dbError(err, "scenario "+sc.ID)
			}
			saved, err = scanScenario(tx.db.QueryRow(ctx, `INSERT INTO scenarios (id, name, description, request, builtin)
				VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (id) DO NOTHING
				RETURNING `+scenarioColumns,
				sc.ID, sc.Name, sc.Description, sc.Request, sc.Builtin))
			if err == nil {
				return tx.scenarioChange(ctx, domain.ActionCreate, sc.ID, nil, &saved)
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return dbError(err, "scenario "+sc.ID)
			}
		}
		return fmt.Errorf("scenario %s: created and deleted concurrently; try again: %w", sc.ID, library.ErrConflict)
	})
	return saved, err
}

// CreateScenario stores the new scenario sc (its Accepted is ignored)
// with its audit row (create) in the same transaction. Errors:
// library.ErrConflict when the id is taken; library.ErrInvalid as
// SaveScenario.
func (s *Store) CreateScenario(ctx context.Context, sc domain.Scenario) (domain.Scenario, error) {
	var saved domain.Scenario
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
		return tx.scenarioChange(ctx, domain.ActionCreate, sc.ID, nil, &saved)
	})
	return saved, err
}

// UpdateScenario replaces the name, description and request of the
// scenario sc.ID, keeping its accepted output (a changed request then
// shows how its output differs from the one accepted), with its audit row
// (update) in the same transaction. Errors: library.ErrNotFound;
// library.ErrInvalid as SaveScenario.
func (s *Store) UpdateScenario(ctx context.Context, sc domain.Scenario) (domain.Scenario, error) {
	var saved domain.Scenario
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
		return tx.scenarioChange(ctx, domain.ActionUpdate, sc.ID, &before, &saved)
	})
	return saved, err
}

// AcceptScenario records out as the accepted output of the scenario id,
// accepted now by the actor of ctx, with its audit row (accept: the
// output accepted before and the new one, as text) in the same
// transaction. Errors: library.ErrNotFound.
func (s *Store) AcceptScenario(ctx context.Context, id string, out domain.ScenarioOutput) (domain.Scenario, error) {
	report := out.Report
	if report == nil {
		report = []string{} // NULL means never accepted
	}
	var saved domain.Scenario
	err := s.WithTx(ctx, func(tx *Store) error {
		before, err := scanScenario(tx.db.QueryRow(ctx, `SELECT `+scenarioColumns+` FROM scenarios WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return dbError(err, "scenario "+id)
		}
		saved, err = scanScenario(tx.db.QueryRow(ctx, `UPDATE scenarios SET accepted_text = $2, accepted_report = $3,
			accepted_tokens = $4, accepted_at = now(), accepted_by = $5
			WHERE id = $1
			RETURNING `+scenarioColumns,
			id, out.Text, report, out.Tokens, domain.ActorFrom(ctx)))
		if err != nil {
			return dbError(err, "scenario "+id)
		}
		e := domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionAccept, Subject: domain.SubjectScenario, SubjectID: id, After: out.AuditText()}
		if before.Accepted != nil {
			e.Before = before.Accepted.AuditText()
		}
		return tx.audit(ctx, e)
	})
	return saved, err
}

// DeleteScenario deletes the scenario id, with its audit row in the same
// transaction. Errors: library.ErrNotFound.
func (s *Store) DeleteScenario(ctx context.Context, id string) error {
	return s.WithTx(ctx, func(tx *Store) error {
		before, err := scanScenario(tx.db.QueryRow(ctx, `DELETE FROM scenarios WHERE id = $1 RETURNING `+scenarioColumns, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return tx.notFoundOrDeleted(ctx, domain.SubjectScenario, id, "scenario "+id, dbError(err, "scenario "+id))
		} else if err != nil {
			return dbError(err, "scenario "+id)
		}
		return tx.scenarioChange(ctx, domain.ActionDelete, id, &before, nil)
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

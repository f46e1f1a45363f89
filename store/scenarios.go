package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// Scenario is a saved preview situation: an assemble request (S11 shape,
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

// SaveScenario creates or replaces the scenario sc.ID and returns the
// stored row. Errors: library.ErrInvalid for an empty id or a Request that
// is missing, malformed or not a JSON object.
func (s *Store) SaveScenario(ctx context.Context, sc Scenario) (Scenario, error) {
	saved, err := scanScenario(s.db.QueryRow(ctx, `INSERT INTO scenarios (id, name, description, request, builtin)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
			request = EXCLUDED.request, builtin = EXCLUDED.builtin, updated_at = now()
		RETURNING `+scenarioColumns,
		sc.ID, sc.Name, sc.Description, sc.Request, sc.Builtin))
	if err != nil {
		return Scenario{}, dbError(err, "scenario "+sc.ID)
	}
	return saved, nil
}

// DeleteScenario deletes the scenario id. Errors: library.ErrNotFound.
func (s *Store) DeleteScenario(ctx context.Context, id string) error {
	return deleteByID(ctx, s.db, "scenarios", "scenario", id)
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

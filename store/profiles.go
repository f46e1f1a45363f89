package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
)

const profileColumns = `id, name, locale, model, time_zone, prompt_modules,
	system_prompt, skill_disclosure, token_budget, skill_budget, updated_at`

func scanProfile(row pgx.Row) (domain.Profile, error) {
	var p domain.Profile
	err := row.Scan(&p.ID, &p.Name, &p.Locale, &p.Model, &p.TimeZone, &p.PromptModules,
		&p.SystemPrompt, &p.SkillDisclosure, &p.TokenBudget, &p.SkillBudget, &p.UpdatedAt)
	return p, err
}

// promptModules maps nil to an empty array: the column is NOT NULL.
func promptModules(p domain.Profile) []string {
	if p.PromptModules == nil {
		return []string{}
	}
	return p.PromptModules
}

// ListProfiles returns every profile ordered by id (byte order).
func (s *Store) ListProfiles(ctx context.Context) ([]domain.Profile, error) {
	rows, err := s.db.Query(ctx, `SELECT `+profileColumns+` FROM profiles ORDER BY id COLLATE "C"`)
	if err != nil {
		return nil, dbError(err, "list profiles")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Profile, error) { return scanProfile(r) })
	if err != nil {
		return nil, dbError(err, "list profiles")
	}
	return list, nil
}

// GetProfile returns the profile id. Errors: library.ErrNotFound.
func (s *Store) GetProfile(ctx context.Context, id string) (domain.Profile, error) {
	p, err := scanProfile(s.db.QueryRow(ctx, `SELECT `+profileColumns+` FROM profiles WHERE id = $1`, id))
	if err != nil {
		return domain.Profile{}, dbError(err, "profile "+id)
	}
	return p, nil
}

// profileAudit is a profile as the audit log shows it (camelCase JSON).
type profileAudit struct {
	ID              string   `json:"id"`
	Name            string   `json:"name"`
	Locale          string   `json:"locale"`
	Model           string   `json:"model"`
	TimeZone        string   `json:"timeZone"`
	PromptModules   []string `json:"promptModules"`
	SystemPrompt    string   `json:"systemPrompt"`
	SkillDisclosure bool     `json:"skillDisclosure"`
	TokenBudget     int      `json:"tokenBudget"`
	SkillBudget     int      `json:"skillBudget"`
}

// profileChange records a change of a profile from before to after (nil
// for none) in the audit log and announces it on ChangesChannel.
func (s *Store) profileChange(ctx context.Context, action, id string, before, after *domain.Profile) error {
	e := domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: action, Subject: domain.SubjectProfile, SubjectID: id}
	var err error
	if before != nil {
		if e.Before, err = auditJSON(profileAuditOf(*before)); err != nil {
			return err
		}
	}
	if after != nil {
		if e.After, err = auditJSON(profileAuditOf(*after)); err != nil {
			return err
		}
	}
	if err := s.audit(ctx, e); err != nil {
		return err
	}
	return s.notify(ctx, Change{Subject: domain.SubjectProfile, ID: id})
}

func profileAuditOf(p domain.Profile) profileAudit {
	return profileAudit{p.ID, p.Name, p.Locale, p.Model, p.TimeZone, promptModules(p),
		p.SystemPrompt, p.SkillDisclosure, p.TokenBudget, p.SkillBudget}
}

// CreateProfile inserts p and returns the stored row (UpdatedAt set),
// with its audit row and notification in the same transaction.
// Errors: library.ErrConflict when the id is taken; library.ErrInvalid for
// an empty id or a negative token budget.
func (s *Store) CreateProfile(ctx context.Context, p domain.Profile) (domain.Profile, error) {
	var saved domain.Profile
	err := s.WithTx(ctx, func(tx *Store) error {
		var err error
		saved, err = scanProfile(tx.db.QueryRow(ctx, `INSERT INTO profiles (id, name, locale, model, time_zone,
			prompt_modules, system_prompt, skill_disclosure, token_budget, skill_budget)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			RETURNING `+profileColumns,
			p.ID, p.Name, p.Locale, p.Model, p.TimeZone, promptModules(p), p.SystemPrompt, p.SkillDisclosure, p.TokenBudget, p.SkillBudget))
		if err != nil {
			return dbError(err, "profile "+p.ID)
		}
		return tx.profileChange(ctx, domain.ActionCreate, saved.ID, nil, &saved)
	})
	return saved, err
}

// UpdateProfile replaces every field of the profile p.ID and returns the
// stored row, with its audit row and notification in the same
// transaction. Last write wins. Errors: library.ErrNotFound when there is
// no such profile; library.ErrInvalid for a negative token or skill budget.
func (s *Store) UpdateProfile(ctx context.Context, p domain.Profile) (domain.Profile, error) {
	var saved domain.Profile
	err := s.WithTx(ctx, func(tx *Store) error {
		before, err := scanProfile(tx.db.QueryRow(ctx, `SELECT `+profileColumns+` FROM profiles WHERE id = $1 FOR UPDATE`, p.ID))
		if err != nil {
			return dbError(err, "profile "+p.ID)
		}
		saved, err = scanProfile(tx.db.QueryRow(ctx, `UPDATE profiles SET name = $2, locale = $3, model = $4,
			time_zone = $5, prompt_modules = $6, system_prompt = $7, skill_disclosure = $8, token_budget = $9,
			skill_budget = $10, updated_at = now()
			WHERE id = $1
			RETURNING `+profileColumns,
			p.ID, p.Name, p.Locale, p.Model, p.TimeZone, promptModules(p), p.SystemPrompt, p.SkillDisclosure, p.TokenBudget, p.SkillBudget))
		if err != nil {
			return dbError(err, "profile "+p.ID)
		}
		return tx.profileChange(ctx, domain.ActionUpdate, saved.ID, &before, &saved)
	})
	return saved, err
}

// DeleteProfile deletes the profile id, with its audit row and
// notification in the same transaction. Errors: library.ErrNotFound.
func (s *Store) DeleteProfile(ctx context.Context, id string) error {
	return s.WithTx(ctx, func(tx *Store) error {
		before, err := scanProfile(tx.db.QueryRow(ctx, `DELETE FROM profiles WHERE id = $1 RETURNING `+profileColumns, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return tx.notFoundOrDeleted(ctx, domain.SubjectProfile, id, "profile "+id, dbError(err, "profile "+id))
		} else if err != nil {
			return dbError(err, "profile "+id)
		}
		return tx.profileChange(ctx, domain.ActionDelete, id, &before, nil)
	})
}

package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// ledgerListColumns are the columns of a listing: no texts.
const ledgerListColumns = `e.catalogue, e.name, e.kind, e.version, '', e.text_hash, e.removed, e.decision, e.module_id, e.reason,
	e.decided_version, '', e.decided_hash, e.decided_by, e.decided_at, e.first_seen, e.changed_at`

// ledgerColumns are every column of an entry, its texts (t, d) joined.
const ledgerColumns = `e.catalogue, e.name, e.kind, e.version, t.text, e.text_hash, e.removed, e.decision, e.module_id, e.reason,
	e.decided_version, coalesce(d.text, ''), e.decided_hash, e.decided_by, e.decided_at, e.first_seen, e.changed_at`

// ledgerFrom joins an entry e with its text now t and the text decided on d.
const ledgerFrom = ` FROM ledger_entries e JOIN ledger_texts t ON t.hash = e.text_hash LEFT JOIN ledger_texts d ON d.hash = e.decided_hash `

func scanLedger(row pgx.Row) (domain.LedgerEntry, error) {
	var e domain.LedgerEntry
	var decided *time.Time
	err := row.Scan(&e.Catalogue, &e.Name, &e.Kind, &e.Version, &e.Text, &e.Hash, &e.Removed, &e.Decision, &e.ModuleID, &e.Reason,
		&e.DecidedVersion, &e.DecidedText, &e.DecidedHash, &e.DecidedBy, &decided, &e.FirstSeen, &e.ChangedAt)
	if decided != nil {
		e.DecidedAt = *decided
	}
	return e, err
}

// ListLedgerCatalogues returns the source names of the catalogues the
// ledger holds, sorted.
func (s *Store) ListLedgerCatalogues(ctx context.Context) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT DISTINCT catalogue COLLATE "C" FROM ledger_entries ORDER BY 1`)
	if err != nil {
		return nil, dbError(err, "list ledger catalogues")
	}
	list, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbError(err, "list ledger catalogues")
	}
	return list, nil
}

// ListLedger returns every entry of catalogue, removed ones included,
// ordered by name (byte order), without their texts (Text and
// DecidedText are ""; the hashes are set).
func (s *Store) ListLedger(ctx context.Context, catalogue string) ([]domain.LedgerEntry, error) {
	rows, err := s.db.Query(ctx, `SELECT `+ledgerListColumns+` FROM ledger_entries e WHERE e.catalogue = $1 ORDER BY e.name COLLATE "C"`, catalogue)
	if err != nil {
		return nil, dbError(err, "list ledger "+catalogue)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.LedgerEntry, error) { return scanLedger(r) })
	if err != nil {
		return nil, dbError(err, "list ledger "+catalogue)
	}
	return list, nil
}

// GetLedgerEntry returns the entry name of catalogue with its texts.
// Errors: library.ErrNotFound.
func (s *Store) GetLedgerEntry(ctx context.Context, catalogue, name string) (domain.LedgerEntry, error) {
	e, err := scanLedger(s.db.QueryRow(ctx, `SELECT `+ledgerColumns+ledgerFrom+`WHERE e.catalogue = $1 AND e.name = $2`, catalogue, name))
	if err != nil {
		return domain.LedgerEntry{}, dbError(err, fmt.Sprintf("ledger entry %q of %s", name, catalogue))
	}
	return e, nil
}

// SyncLedger writes a sync of catalogue in one transaction: each of
// upserts stored as upstream has it now (created, or its kind, version
// and text replaced, and no longer removed; ChangedAt moves when its
// text did; each text is kept once, by its hash, and kept while the
// ledger lasts), each name of removed marked removed, and one audit entry
// (action sync, After: summary). Decisions are left as they are: the
// flags follow from the texts. Errors: library.ErrInvalid for a value
// the table refuses.
func (s *Store) SyncLedger(ctx context.Context, catalogue string, upserts []domain.LedgerUpstream, removed []string, summary string) error {
	names := make([]string, len(upserts))
	kinds := make([]string, len(upserts))
	versions := make([]string, len(upserts))
	texts := make([]string, len(upserts))
	hashes := make([]string, len(upserts))
	for i, u := range upserts {
		names[i], kinds[i], versions[i], texts[i], hashes[i] = u.Name, u.Kind, u.Version, u.Text, domain.TextHash(u.Text)
	}
	return s.WithTx(ctx, func(tx *Store) error {
		if len(upserts) > 0 {
			_, err := tx.db.Exec(ctx, `INSERT INTO ledger_texts (hash, text)
				SELECT DISTINCT ON (u.hash) u.hash, u.text FROM unnest($1::text[], $2::text[]) AS u(hash, text)
				ON CONFLICT (hash) DO NOTHING`, hashes, texts)
			if err != nil {
				return dbError(err, "sync ledger "+catalogue)
			}
			_, err = tx.db.Exec(ctx, `INSERT INTO ledger_entries AS l (catalogue, name, kind, version, text_hash)
				SELECT $1, u.name, u.kind, u.version, u.hash
				FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS u(name, kind, version, hash)
				ON CONFLICT (catalogue, name) DO UPDATE SET kind = EXCLUDED.kind, version = EXCLUDED.version,
					text_hash = EXCLUDED.text_hash, removed = false,
					changed_at = CASE WHEN l.text_hash <> EXCLUDED.text_hash THEN now() ELSE l.changed_at END`,
				catalogue, names, kinds, versions, hashes)
			if err != nil {
				return dbError(err, "sync ledger "+catalogue)
			}
		}
		if len(removed) > 0 {
			if _, err := tx.db.Exec(ctx, `UPDATE ledger_entries SET removed = true WHERE catalogue = $1 AND name = ANY($2)`, catalogue, removed); err != nil {
				return dbError(err, "sync ledger "+catalogue)
			}
		}
		return tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionSync, Subject: domain.SubjectLedger,
			SubjectID: catalogue, After: summary})
	})
}

// DecideLedger records a decision on the entry name of catalogue, taken
// by the context's actor now on the upstream text the entry has (its
// version, text and hash become the decided ones, which clears its
// flags), with its audit entry (action decide: the decisions before and
// after). When hash is not "" it must be the entry's text hash: the
// decider saw that text. The caller checks the decision's rules
// (ledger.Check). Errors: library.ErrNotFound; library.ErrConflict when
// upstream moved past hash; library.ErrInvalid for what the table
// refuses.
func (s *Store) DecideLedger(ctx context.Context, catalogue, name, decision, moduleID, reason, hash string) (domain.LedgerEntry, error) {
	what := fmt.Sprintf("ledger entry %q of %s", name, catalogue)
	var saved domain.LedgerEntry
	err := s.WithTx(ctx, func(tx *Store) error {
		before, err := scanLedger(tx.db.QueryRow(ctx, `SELECT `+ledgerListColumns+` FROM ledger_entries e WHERE e.catalogue = $1 AND e.name = $2 FOR UPDATE`, catalogue, name))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%s does not exist (sync the catalogue first): %w", what, library.ErrNotFound)
		}
		if err != nil {
			return dbError(err, what)
		}
		if hash != "" && hash != before.Hash {
			return fmt.Errorf("%s changed upstream since you looked at it (a sync came in between): look at it again and decide: %w", what, library.ErrConflict)
		}
		_, err = tx.db.Exec(ctx, `UPDATE ledger_entries SET decision = $3, module_id = $4, reason = $5,
				decided_version = version, decided_hash = text_hash, decided_by = $6, decided_at = now()
			WHERE catalogue = $1 AND name = $2`, catalogue, name, decision, moduleID, reason, domain.ActorFrom(ctx))
		if err != nil {
			return dbError(err, what)
		}
		if saved, err = tx.GetLedgerEntry(ctx, catalogue, name); err != nil {
			return err
		}
		return tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionDecide, Subject: domain.SubjectLedger,
			SubjectID: catalogue + "/" + name, Before: decisionLine(before), After: decisionLine(saved), Note: saved.Reason})
	})
	return saved, err
}

// decisionLine is a decision as the audit log shows it: "port →
// tool.bash (upstream 2.0.14)"; "" while undecided.
func decisionLine(e domain.LedgerEntry) string {
	if e.Decision == domain.DecisionUndecided {
		return ""
	}
	line := e.Decision
	if e.ModuleID != "" {
		line += " → " + e.ModuleID
	}
	if e.DecidedVersion != "" {
		line += " (upstream " + e.DecidedVersion + ")"
	}
	return line
}

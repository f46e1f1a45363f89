package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

const webhookColumns = `id, url, secret, description, created_by, created_at`

func scanWebhook(row pgx.Row) (domain.Webhook, error) {
	var w domain.Webhook
	err := row.Scan(&w.ID, &w.URL, &w.Secret, &w.Description, &w.CreatedBy, &w.CreatedAt)
	return w, err
}

// deliveryColumns are the columns scanDelivery reads, of a delivery d
// joined with its endpoint w and event e.
const deliveryColumns = `d.id, d.webhook_id, w.url, e.key, e.type, e.body, d.status, d.attempts, d.round_start, d.redeliveries,
			d.last_status, d.last_error, d.next_attempt_at, e.created_at, d.updated_at`

// scanDelivery reads the deliveryColumns of row into d, then the columns
// after them into extra.
func scanDelivery(row pgx.Row, d *domain.Delivery, extra ...any) error {
	var body string
	err := row.Scan(append([]any{&d.ID, &d.WebhookID, &d.URL, &d.EventKey, &d.EventType, &body, &d.Status, &d.Attempts, &d.RoundStart, &d.Redeliveries,
		&d.LastStatus, &d.LastError, &d.NextAttemptAt, &d.CreatedAt, &d.UpdatedAt}, extra...)...)
	d.Body = []byte(body)
	return err
}

func webhookName(id int64) string { return "webhook " + strconv.FormatInt(id, 10) }

// webhookAudit is a webhook as an audit entry's Before or After: its
// secret left out.
func webhookAudit(w domain.Webhook) (string, error) {
	return auditJSON(map[string]any{"url": w.URL, "description": w.Description})
}

// ListWebhooks returns every endpoint, oldest first.
func (s *Store) ListWebhooks(ctx context.Context) ([]domain.Webhook, error) {
	rows, err := s.db.Query(ctx, `SELECT `+webhookColumns+` FROM webhooks ORDER BY id`)
	if err != nil {
		return nil, dbError(err, "list webhooks")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Webhook, error) { return scanWebhook(r) })
	if err != nil {
		return nil, dbError(err, "list webhooks")
	}
	return list, nil
}

// GetWebhook returns the endpoint id. Errors: library.ErrNotFound.
func (s *Store) GetWebhook(ctx context.Context, id int64) (domain.Webhook, error) {
	w, err := scanWebhook(s.db.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = $1`, id))
	if err != nil {
		return domain.Webhook{}, dbError(err, webhookName(id))
	}
	return w, nil
}

// CreateWebhook adds w (URL, Secret, Description; the checks are package
// webhook's) with the context's actor as CreatedBy, audited. Errors:
// library.ErrInvalid for a URL or secret the table refuses;
// *domain.DuplicateWebhook when an endpoint sends to the URL already.
func (s *Store) CreateWebhook(ctx context.Context, w domain.Webhook) (domain.Webhook, error) {
	var saved domain.Webhook
	err := s.WithTx(ctx, func(tx *Store) error {
		if err := tx.urlFree(ctx, w.URL, 0); err != nil {
			return err
		}
		var err error
		saved, err = scanWebhook(tx.db.QueryRow(ctx, `INSERT INTO webhooks (url, secret, description, created_by)
			VALUES ($1, $2, $3, $4) RETURNING `+webhookColumns, w.URL, w.Secret, w.Description, domain.ActorFrom(ctx)))
		if err != nil {
			return dbError(err, "webhook "+w.URL)
		}
		after, err := webhookAudit(saved)
		if err != nil {
			return err
		}
		return tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionCreate, Subject: domain.SubjectWebhook,
			SubjectID: strconv.FormatInt(saved.ID, 10), After: after})
	})
	return saved, err
}

// UpdateWebhook sets the URL, description and, when w.Secret is not "",
// the secret of the endpoint w.ID, audited. Pending deliveries go to the
// new URL, signed with the new secret. Errors: library.ErrNotFound,
// library.ErrInvalid as CreateWebhook.
func (s *Store) UpdateWebhook(ctx context.Context, w domain.Webhook) (domain.Webhook, error) {
	var saved domain.Webhook
	err := s.WithTx(ctx, func(tx *Store) error {
		if err := tx.urlFree(ctx, w.URL, w.ID); err != nil {
			return err
		}
		before, err := scanWebhook(tx.db.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = $1 FOR UPDATE`, w.ID))
		if err != nil {
			return dbError(err, webhookName(w.ID))
		}
		saved, err = scanWebhook(tx.db.QueryRow(ctx, `UPDATE webhooks SET url = $2, description = $3,
			secret = CASE WHEN $4 = '' THEN secret ELSE $4 END
			WHERE id = $1 RETURNING `+webhookColumns, w.ID, w.URL, w.Description, w.Secret))
		if err != nil {
			return dbError(err, webhookName(w.ID))
		}
		b, err := webhookAudit(before)
		if err != nil {
			return err
		}
		a, err := webhookAudit(saved)
		if err != nil {
			return err
		}
		return tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionUpdate, Subject: domain.SubjectWebhook,
			SubjectID: strconv.FormatInt(w.ID, 10), Before: b, After: a})
	})
	return saved, err
}

// urlFree refuses url when an endpoint other than id sends to the same
// receiver (domain.SameReceiver; *domain.DuplicateWebhook). It locks the table against other writers
// until the transaction ends, so two forms posted at once cannot both
// pass it.
func (s *Store) urlFree(ctx context.Context, url string, id int64) error {
	if _, err := s.db.Exec(ctx, `LOCK TABLE webhooks IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return dbError(err, "webhooks")
	}
	rows, err := s.db.Query(ctx, `SELECT id, url FROM webhooks WHERE id <> $1 ORDER BY id`, id)
	if err != nil {
		return dbError(err, "webhooks")
	}
	type endpoint struct {
		ID  int64
		URL string
	}
	others, err := pgx.CollectRows(rows, pgx.RowToStructByPos[endpoint])
	if err != nil {
		return dbError(err, "webhooks")
	}
	for _, o := range others {
		if domain.SameReceiver(o.URL, url) {
			return &domain.DuplicateWebhook{URL: o.URL, ID: o.ID}
		}
	}
	return nil
}

// DeleteWebhook removes the endpoint id and its deliveries, audited.
// Errors: library.ErrNotFound.
func (s *Store) DeleteWebhook(ctx context.Context, id int64) error {
	return s.WithTx(ctx, func(tx *Store) error {
		before, err := scanWebhook(tx.db.QueryRow(ctx, `DELETE FROM webhooks WHERE id = $1 RETURNING `+webhookColumns, id))
		if err != nil {
			return dbError(err, webhookName(id))
		}
		b, err := webhookAudit(before)
		if err != nil {
			return err
		}
		return tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionDelete, Subject: domain.SubjectWebhook,
			SubjectID: strconv.FormatInt(id, 10), Before: b})
	})
}

// RecordDriftEvent stores the drift event e (domain.DriftEvent) with a
// pending delivery to every endpoint there is now, in one statement. An
// event whose key is stored already is not stored again (recorded false):
// several processes seeing the same drift make one event. deliveries is
// how many were queued. Errors: library.ErrInvalid for any other type of
// event: the event of an override change is written by the change's own
// transaction (overrideChanged), never on its own.
func (s *Store) RecordDriftEvent(ctx context.Context, e domain.WebhookEvent) (deliveries int, recorded bool, err error) {
	if e.Type != domain.EventDrifted {
		return 0, false, fmt.Errorf("webhook event %s: only a drift is recorded on its own, not %q: %w", e.IdempotencyKey, e.Type, library.ErrInvalid)
	}
	return s.insertEvent(ctx, e)
}

// insertEvent stores e with a pending delivery to every endpoint there is
// now, in one statement, unless an event of its key is stored already
// (recorded false). Inside a transaction it commits with it.
func (s *Store) insertEvent(ctx context.Context, e domain.WebhookEvent) (deliveries int, recorded bool, err error) {
	body, err := json.Marshal(e)
	if err != nil {
		return 0, false, fmt.Errorf("webhook event %s: %w", e.IdempotencyKey, err)
	}
	err = s.db.QueryRow(ctx, `WITH e AS (
			INSERT INTO webhook_events (key, type, body) VALUES ($1, $2, $3)
			ON CONFLICT (key) DO NOTHING RETURNING id),
		d AS (INSERT INTO webhook_deliveries (webhook_id, event_id) SELECT w.id, e.id FROM webhooks w, e RETURNING 1)
		SELECT (SELECT count(*) FROM d), EXISTS (SELECT 1 FROM e)`, e.IdempotencyKey, e.Type, string(body)).Scan(&deliveries, &recorded)
	if err != nil {
		return 0, false, dbError(err, "webhook event "+e.IdempotencyKey)
	}
	return deliveries, recorded, nil
}

// ClaimDeliveries takes up to limit pending deliveries that are due for
// this process to attempt: at most one per endpoint (its oldest due), none
// for the endpoints in busy (those this process is sending to already),
// the oldest first. Each one's Attempts is counted up and it is leased
// for lease (not due again until then, so no other process takes it; if
// this process dies, it is due again after the lease). Rows other
// processes are claiming are skipped, not waited for. The deliveries
// carry the endpoint's URL and secret and the event.
func (s *Store) ClaimDeliveries(ctx context.Context, limit int, lease time.Duration, busy []int64) ([]domain.Delivery, error) {
	if busy == nil {
		busy = []int64{}
	}
	rows, err := s.db.Query(ctx, `UPDATE webhook_deliveries d
		SET attempts = d.attempts + 1, next_attempt_at = now() + $2 * interval '1 millisecond', updated_at = now()
		FROM (SELECT id FROM webhook_deliveries
				-- Checked again here: FOR UPDATE rechecks these conditions on a
				-- row another process claimed meanwhile, never the subquery's.
				WHERE status = 'pending' AND next_attempt_at <= now() AND id IN (
					SELECT DISTINCT ON (webhook_id) id FROM webhook_deliveries
					WHERE status = 'pending' AND next_attempt_at <= now() AND webhook_id <> ALL($3::bigint[])
					ORDER BY webhook_id, next_attempt_at, id)
				ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED) c,
			webhooks w, webhook_events e
		WHERE d.id = c.id AND w.id = d.webhook_id AND e.id = d.event_id
		RETURNING `+deliveryColumns+`, w.secret`, limit, lease.Milliseconds(), busy)
	if err != nil {
		return nil, dbError(err, "claim webhook deliveries")
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Delivery, error) {
		var d domain.Delivery
		err := scanDelivery(r, &d, &d.Secret)
		return d, err
	})
	if err != nil {
		return nil, dbError(err, "claim webhook deliveries")
	}
	return list, nil
}

// FinishAttempt logs attempt a of the delivery id and sets its state by
// outcome: delivered, pending again after outcome.RetryIn, or failed. It
// changes nothing when the delivery is no longer pending at that attempt
// (its lease ran out and another process took it): finished false.
func (s *Store) FinishAttempt(ctx context.Context, id int64, a domain.DeliveryAttempt, outcome domain.AttemptOutcome) (finished bool, err error) {
	status := domain.DeliveryFailed
	switch {
	case outcome.Delivered:
		status = domain.DeliveryDelivered
	case outcome.RetryIn > 0:
		status = domain.DeliveryPending
	}
	err = s.WithTx(ctx, func(tx *Store) error {
		tag, err := tx.db.Exec(ctx, `UPDATE webhook_deliveries SET status = $3, last_status = $4, last_error = $5,
			next_attempt_at = now() + $6 * interval '1 millisecond', updated_at = now()
			WHERE id = $1 AND attempts = $2 AND status = 'pending'`,
			id, a.Attempt, status, a.Status, a.Error, outcome.RetryIn.Milliseconds())
		if err != nil {
			return dbError(err, "webhook delivery "+strconv.FormatInt(id, 10))
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		finished = true
		_, err = tx.db.Exec(ctx, `INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status, error)
			VALUES ($1, $2, $3, $4, $5, $6)`, id, a.Attempt, a.At, a.Duration.Milliseconds(), a.Status, a.Error)
		if err != nil {
			return dbError(err, "webhook delivery "+strconv.FormatInt(id, 10))
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return finished, nil
}

// ListDeliveries returns the newest limit deliveries (1 to 1000), of the
// endpoint webhookID or of all when it is 0, newest event first, each
// with its attempts; their Secret is "". Errors: library.ErrInvalid for
// a limit out of range.
func (s *Store) ListDeliveries(ctx context.Context, webhookID int64, limit int) ([]domain.Delivery, error) {
	if limit < 1 || limit > 1000 {
		return nil, fmt.Errorf("webhook deliveries: limit %d is not within 1 to 1000: %w", limit, library.ErrInvalid)
	}
	return s.queryDeliveries(ctx, "list webhook deliveries", `$1::bigint = 0 OR d.webhook_id = $1
		ORDER BY d.event_id DESC, d.id DESC LIMIT $2`, webhookID, limit)
}

// GetDelivery returns the delivery id of the endpoint webhookID with its
// attempts; its Secret is "". Errors: library.ErrNotFound.
func (s *Store) GetDelivery(ctx context.Context, webhookID, id int64) (domain.Delivery, error) {
	list, err := s.queryDeliveries(ctx, deliveryName(id), `d.webhook_id = $1 AND d.id = $2`, webhookID, id)
	if err != nil {
		return domain.Delivery{}, err
	}
	if len(list) == 0 {
		return domain.Delivery{}, fmt.Errorf("%s of %s does not exist: %w", deliveryName(id), webhookName(webhookID), library.ErrNotFound)
	}
	return list[0], nil
}

func deliveryName(id int64) string { return "webhook delivery " + strconv.FormatInt(id, 10) }

// queryDeliveries returns the deliveries that the SQL condition where
// (and what follows it: order, limit) selects, with args, each with its
// attempts. what names them in errors.
func (s *Store) queryDeliveries(ctx context.Context, what, where string, args ...any) ([]domain.Delivery, error) {
	rows, err := s.db.Query(ctx, `SELECT `+deliveryColumns+`,
			coalesce((SELECT jsonb_agg(jsonb_build_object('attempt', a.attempt, 'at', a.at, 'duration_ms', a.duration_ms,
				'status', a.status, 'error', a.error) ORDER BY a.attempt)
				FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]')
		FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.id = d.event_id
		WHERE `+where, args...)
	if err != nil {
		return nil, dbError(err, what)
	}
	type attemptRow struct {
		Attempt    int       `json:"attempt"`
		At         time.Time `json:"at"`
		DurationMS int       `json:"duration_ms"`
		Status     int       `json:"status"`
		Error      string    `json:"error"`
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Delivery, error) {
		var d domain.Delivery
		var attempts []attemptRow
		if err := scanDelivery(r, &d, &attempts); err != nil {
			return d, err
		}
		for _, a := range attempts {
			d.AttemptLog = append(d.AttemptLog, domain.DeliveryAttempt{Attempt: a.Attempt, At: a.At,
				Duration: time.Duration(a.DurationMS) * time.Millisecond, Status: a.Status, Error: a.Error})
		}
		return d, nil
	})
	if err != nil {
		return nil, dbError(err, what)
	}
	return list, nil
}

// Redeliver makes the failed deliveries of the endpoint webhookID pending
// again, due now, each with a new round of attempts (RoundStart becomes
// its Attempts, Redeliveries counts up; the event, its body and
// idempotency key are unchanged, and the attempts made stay in the log):
// the delivery id, or every failed one when id is 0. Audited (action
// redeliver, after: the deliveries' ids). Returns the ids redelivered,
// oldest first; none is no error when id is 0. Errors:
// library.ErrNotFound for an unknown endpoint or delivery;
// library.ErrConflict when the delivery id is not failed (pending or
// delivered: the message says which).
func (s *Store) Redeliver(ctx context.Context, webhookID, id int64) ([]int64, error) {
	var ids []int64
	err := s.WithTx(ctx, func(tx *Store) error {
		if _, err := scanWebhook(tx.db.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = $1 FOR SHARE`, webhookID)); err != nil {
			return dbError(err, webhookName(webhookID))
		}
		rows, err := tx.db.Query(ctx, `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(),
			round_start = attempts, redeliveries = redeliveries + 1, updated_at = now()
			WHERE webhook_id = $1 AND ($2::bigint = 0 OR id = $2) AND status = 'failed'
			RETURNING id`, webhookID, id)
		if err != nil {
			return dbError(err, "redeliver "+webhookName(webhookID))
		}
		if ids, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
			return dbError(err, "redeliver "+webhookName(webhookID))
		}
		slices.Sort(ids)
		if id != 0 && len(ids) == 0 {
			var status string
			err := tx.db.QueryRow(ctx, `SELECT status FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2`, webhookID, id).Scan(&status)
			if err != nil {
				return dbError(err, deliveryName(id)+" of "+webhookName(webhookID))
			}
			return fmt.Errorf("%s is %s, not failed: only a failed delivery is sent again: %w", deliveryName(id), status, library.ErrConflict)
		}
		if len(ids) == 0 {
			return nil
		}
		after, err := auditJSON(map[string]any{"deliveries": ids})
		if err != nil {
			return err
		}
		return tx.audit(ctx, domain.AuditEntry{Actor: domain.ActorFrom(ctx), Action: domain.ActionRedeliver, Subject: domain.SubjectWebhook,
			SubjectID: strconv.FormatInt(webhookID, 10), After: after})
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// PruneWebhookEvents deletes the events recorded more than olderThan ago
// whose deliveries are all finished (delivered or failed), with their
// deliveries and attempts, and returns how many events went.
func (s *Store) PruneWebhookEvents(ctx context.Context, olderThan time.Duration) (int64, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM webhook_events e
		WHERE e.created_at < now() - $1 * interval '1 millisecond'
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')`, olderThan.Milliseconds())
	if err != nil {
		return 0, dbError(err, "prune webhook events")
	}
	return tag.RowsAffected(), nil
}

// RewriteWebhookSecrets passes every endpoint's stored secret through fn
// in one transaction, the rows locked, and writes back the ones fn
// changes (not audited: the secret itself does not change, only how it
// is stored). Returns how many were written. Errors: fn's first error,
// with nothing written; the database's.
func (s *Store) RewriteWebhookSecrets(ctx context.Context, fn func(id int64, stored string) (string, error)) (rewritten int, err error) {
	err = s.WithTx(ctx, func(tx *Store) error {
		rows, err := tx.db.Query(ctx, `SELECT id, secret FROM webhooks ORDER BY id FOR UPDATE`)
		if err != nil {
			return dbError(err, "read webhook secrets")
		}
		type row struct {
			id     int64
			secret string
		}
		list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			return x, r.Scan(&x.id, &x.secret)
		})
		if err != nil {
			return dbError(err, "read webhook secrets")
		}
		for _, x := range list {
			next, err := fn(x.id, x.secret)
			if err != nil {
				return err
			}
			if next == x.secret {
				continue
			}
			if _, err := tx.db.Exec(ctx, `UPDATE webhooks SET secret = $2 WHERE id = $1`, x.id, next); err != nil {
				return dbError(err, webhookName(x.id))
			}
			rewritten++
		}
		return nil
	})
	if err != nil {
		rewritten = 0
	}
	return rewritten, err
}

package webhook

import (
	"context"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/state"
)

// WatchDrift records a drift event for every published override that
// drifts, until ctx ends: it looks at what served serves every
// Policy.Poll, and again whenever its Generation moved. Every process
// watches; the idempotency key (the override's revision and the drift's
// reason and builtin version) makes one event of a drift however many
// processes see it, and none again after a restart. An event that could
// not be recorded is tried again at the next look.
func (h *Webhooks) WatchDrift(ctx context.Context, served *state.Served) {
	tick := time.NewTicker(h.policy.Poll)
	defer tick.Stop()
	var gen int64
	seen := map[string]bool{} // keys recorded, of drifts still current
	for {
		if v := served.Current(); v.Generation != gen {
			if h.recordDrift(ctx, v, seen) {
				gen = v.Generation
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// recordDrift records the drifts of v not in seen and leaves seen holding
// v's drifts; ok is false when one could not be recorded.
func (h *Webhooks) recordDrift(ctx context.Context, v *state.View, seen map[string]bool) (ok bool) {
	ok = true
	current := map[string]bool{}
	for key, r := range v.Rows.All() {
		d := v.Drift(key.ID, r.Locale)
		if !d.Drifted() {
			continue
		}
		e := domain.DriftEvent(r.ModuleID, r.Locale, r.Revision,
			domain.WebhookDrift{Reason: string(d.Reason), BasedOnVersion: d.BasedOnVersion, BuiltinVersion: d.BuiltinVersion}, h.now())
		k := e.IdempotencyKey
		current[k] = true
		if seen[k] {
			continue
		}
		if err := h.RecordDrift(ctx, e); err != nil {
			if ctx.Err() == nil {
				h.log.Warn("webhook drift event not recorded; trying again", "key", k, "err", err)
			}
			ok = false
			continue
		}
		seen[k] = true
	}
	for k := range seen {
		if !current[k] {
			delete(seen, k)
		}
	}
	return ok
}

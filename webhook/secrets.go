package webhook

import (
	"context"
	"errors"
	"fmt"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/sealed"
)

// ErrNoKey is the error of adding an endpoint, or a new secret, on a
// server started without a key to seal secrets with. It matches
// domain.ErrNotConfigured.
var ErrNoKey error = noKey{}

type noKey struct{}

func (noKey) Error() string {
	return `webhook secrets are stored encrypted, and this server was started without the secret key setting (docs/operating.md, "The secret key")`
}

func (noKey) Unwrap() error { return domain.ErrNotConfigured }

// Reseal seals again, under the current key, every endpoint secret
// stored in plain text (before secrets were sealed) or under a previous
// key of the ring: what finishes a key rotation. It runs when the server
// starts; it returns how many it sealed again. Errors: a secret no key of
// the ring opens (the key it needs was not given), or any endpoint at all
// when the server has no key; the store's. Nothing is written then.
func (h *Webhooks) Reseal(ctx context.Context) (int, error) {
	if h.keys == nil {
		list, err := h.store.ListWebhooks(ctx)
		if err == nil && len(list) > 0 {
			err = fmt.Errorf("%d webhook endpoints have secrets stored: %w", len(list), ErrNoKey)
		}
		return 0, err
	}
	return h.store.RewriteWebhookSecrets(ctx, func(id int64, stored string) (string, error) {
		plain, current, err := h.keys.Open(stored)
		switch {
		case errors.Is(err, sealed.ErrNotSealed):
			return h.keys.Seal(stored), nil
		case err != nil:
			return "", fmt.Errorf("webhook %d: its secret is %w", id, err)
		case !current:
			return h.keys.Seal(plain), nil
		}
		return stored, nil
	})
}

// openSecret returns the plain secret of a claimed delivery. Errors: as
// sealed.Keyring.Open (ErrNoKey without keys).
func (h *Webhooks) openSecret(stored string) (string, error) {
	if h.keys == nil {
		return "", ErrNoKey
	}
	plain, _, err := h.keys.Open(stored)
	return plain, err
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/promptdesk/promptdesk/sealed"
)

// secretKeyFile is the key of a private cluster's webhook secrets, in
// --data-dir beside the cluster (a copy of the folder carries both).
const secretKeyFile = "secret.key"

// secretKeys returns the keys webhook secrets are sealed with: those of
// --secret-key and --previous-secret-keys; else, for a private cluster,
// the key in --data-dir/secret.key, created on first use; else (a
// DATABASE_URL without a key) nil, and endpoints cannot be added.
// Errors: a key that does not parse, naming the setting; previous keys
// without a current one; the key file unreadable or unwritable.
func (a *app) secretKeys(log *slog.Logger) (*sealed.Keyring, error) {
	cfg := a.cli.Serve
	switch {
	case cfg.SecretKey != "":
		keys, err := sealed.NewKeyring(cfg.SecretKey, cfg.PreviousKeys...)
		if err != nil {
			return nil, fmt.Errorf("--secret-key / --previous-secret-keys (PROMPTDESK_SECRET_KEY / PROMPTDESK_PREVIOUS_SECRET_KEYS): %w", err)
		}
		return keys, nil
	case len(cfg.PreviousKeys) > 0:
		return nil, errors.New("--previous-secret-keys (PROMPTDESK_PREVIOUS_SECRET_KEYS) is set without --secret-key (PROMPTDESK_SECRET_KEY): previous keys are for rotating to a new one; set the new key too")
	case a.cli.DatabaseURL != "":
		log.Warn("no secret key (PROMPTDESK_SECRET_KEY): webhook endpoints cannot be added until serve is started with one")
		return nil, nil
	}
	path := filepath.Join(a.cli.DataDir, secretKeyFile)
	text, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		text, err = createKeyFile(path)
		if err == nil {
			log.Info("secret key: created for the webhook secrets of the private cluster", "file", path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	keys, err := sealed.NewKeyring(strings.TrimSpace(string(text)))
	if err != nil {
		return nil, fmt.Errorf("secret key file %s: %w", path, err)
	}
	return keys, nil
}

// createKeyFile writes a new key to path, readable by its owner only,
// and returns what path holds: the file is written whole under another
// name and linked in place, so that of two processes starting on one
// folder, both read the one key that won.
func createKeyFile(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, secretKeyFile+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(sealed.NewKey() + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return os.ReadFile(path)
}

package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/sealed"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// A private cluster keeps its own key beside it, readable by its owner
// only, created once and read again at the next start.
func TestSecretKeyOfAPrivateCluster(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	a := &app{cli: &CLI{DataDir: dir}}
	first, err := a.secretKeys(quietLog)
	if err != nil || first == nil {
		t.Fatalf("secretKeys = %v, %v", first, err)
	}
	info, err := os.Stat(filepath.Join(dir, secretKeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v; want 0600", err, info.Mode().Perm())
	}
	again, err := a.secretKeys(quietLog)
	if err != nil || again.ID() != first.ID() {
		t.Errorf("second start: key %v, %v; want the same key %s", again.ID(), err, first.ID())
	}
}

func TestSecretKeySettings(t *testing.T) {
	key := sealed.NewKey()
	for _, c := range []struct {
		name    string
		cli     CLI
		wantNil bool
		wantErr string
	}{
		{"key and previous", CLI{Serve: ServeFlags{SecretKey: key, PreviousKeys: []string{sealed.NewKey()}}}, false, ""},
		{"DATABASE_URL without a key", CLI{DatabaseURL: "postgres://db/pd"}, true, ""},
		{"a bad key", CLI{Serve: ServeFlags{SecretKey: "not a key!"}}, true, "PROMPTDESK_SECRET_KEY / PROMPTDESK_PREVIOUS_SECRET_KEYS): the key: it is not base64"},
		{"a bad previous key", CLI{Serve: ServeFlags{SecretKey: key, PreviousKeys: []string{"AAAA"}}}, true, "previous key 1: it is 3 bytes"},
		{"previous without current", CLI{DatabaseURL: "postgres://db/pd", Serve: ServeFlags{PreviousKeys: []string{key}}}, true, "without --secret-key"},
	} {
		keys, err := (&app{cli: &c.cli}).secretKeys(quietLog)
		switch {
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: %v; want an error saying %q", c.name, err, c.wantErr)
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case (keys == nil) != c.wantNil:
			t.Errorf("%s: keys %v; want nil %v", c.name, keys, c.wantNil)
		}
	}
}

// serve with DATABASE_URL and no key refuses to start while webhook
// secrets are stored, saying which setting to give.
func TestServeWithoutKeyRefusesStoredSecrets(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := sealed.NewKeyring(sealed.NewKey())
	_, err = st.CreateWebhook(domain.WithActor(context.Background(), "admin"), domain.Webhook{URL: "https://example.com/hook", Secret: keys.Seal("a-secret-of-16-chars")})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", dbURL)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	err = run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--log-level", "error"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "1 webhook endpoints have secrets stored") || !strings.Contains(err.Error(), "PROMPTDESK_SECRET_KEY") {
		t.Errorf("serve without a key: %v; want a refusal naming PROMPTDESK_SECRET_KEY", err)
	}

	t.Setenv("PROMPTDESK_SECRET_KEY", sealed.NewKey())
	err = run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--log-level", "error"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "sealed with key "+keys.ID()) || !strings.Contains(err.Error(), "PROMPTDESK_PREVIOUS_SECRET_KEYS") {
		t.Errorf("serve with another key: %v; want a refusal naming key %s", err, keys.ID())
	}
}

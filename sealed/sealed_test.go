package sealed_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/sealed"
)

func ring(t *testing.T, current string, previous ...string) *sealed.Keyring {
	t.Helper()
	k, err := sealed.NewKeyring(current, previous...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpens(t *testing.T) {
	k := ring(t, sealed.NewKey())
	const secret = "whsec_abcdefghijklmnop"
	a, b := k.Seal(secret), k.Seal(secret)
	if a == b {
		t.Error("two seals of one secret are equal: the nonce is not fresh")
	}
	if strings.Contains(a, secret) || !strings.HasPrefix(a, "sealed:v1:"+k.ID()+":") {
		t.Errorf("sealed text %q: want the prefix and key id %s, and not the secret", a, k.ID())
	}
	got, current, err := k.Open(a)
	if err != nil || got != secret || !current {
		t.Errorf("Open = %q, %v, %v; want %q, true, nil", got, current, err, secret)
	}
}

func TestRotation(t *testing.T) {
	oldKey, newKey := sealed.NewKey(), sealed.NewKey()
	old := ring(t, oldKey)
	stored := old.Seal("s3cret-s3cret-s3cret")

	rotated := ring(t, newKey, oldKey)
	got, current, err := rotated.Open(stored)
	if err != nil || got != "s3cret-s3cret-s3cret" || current {
		t.Fatalf("Open under the rotated ring = %q, %v, %v; want the secret, not current, nil", got, current, err)
	}
	if _, current, err := rotated.Open(rotated.Seal(got)); err != nil || !current {
		t.Errorf("sealed again: current %v, err %v; want true, nil", current, err)
	}

	_, _, err = ring(t, newKey).Open(stored)
	var unknown *sealed.UnknownKeyError
	if !errors.As(err, &unknown) || unknown.ID != old.ID() {
		t.Errorf("Open without the old key: %v; want UnknownKeyError naming %s", err, old.ID())
	}
}

func TestOpenRefuses(t *testing.T) {
	k := ring(t, sealed.NewKey())
	if _, _, err := k.Open("whsec_plain_text_secret"); !errors.Is(err, sealed.ErrNotSealed) {
		t.Errorf("plain text: %v; want ErrNotSealed", err)
	}
	s := k.Seal("abcdefghijklmnopq")
	altered := s[:len(s)-2] + "AA"
	if altered == s {
		altered = s[:len(s)-2] + "BB"
	}
	if _, _, err := k.Open(altered); err == nil || !strings.Contains(err.Error(), "does not decrypt") {
		t.Errorf("altered text: %v; want 'does not decrypt'", err)
	}
}

func TestNewKeyringRefusesBadKeys(t *testing.T) {
	for _, tc := range []struct{ current, previous, want string }{
		{"not base64!", "", "the key: it is not base64"},
		{"c2hvcnQ=", "", "the key: it is 5 bytes"},
		{sealed.NewKey(), "AAAA", "previous key 1: it is 3 bytes"},
	} {
		var prev []string
		if tc.previous != "" {
			prev = []string{tc.previous}
		}
		_, err := sealed.NewKeyring(tc.current, prev...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewKeyring(%q, %q) = %v; want %q", tc.current, tc.previous, err, tc.want)
		}
	}
	// Every base64 form of one key is the same key.
	std := sealed.NewKey()
	url := strings.NewReplacer("+", "-", "/", "_").Replace(strings.TrimRight(std, "="))
	if a, b := ring(t, std), ring(t, url); a.ID() != b.ID() {
		t.Errorf("key ids of one key in two alphabets: %s and %s", a.ID(), b.ID())
	}
}

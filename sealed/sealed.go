// Package sealed encrypts the secrets promptdesk has to read back (a
// webhook's signing key: unlike a password or a token it cannot be kept
// as a hash), so that a database backup alone does not give them away.
// A secret is sealed with AES-256-GCM under the current key of a
// Keyring; earlier keys stay in the ring for opening until every secret
// has been sealed again under the current one (Keyring.Open says when a
// secret needs it), which is how a key is rotated.
//
// A sealed secret is text: "sealed:v1:<key id>:<base64url of nonce and
// ciphertext>", the key id being the first 8 hex digits of the key's
// SHA-256, so the key that opens it is found without trying each one.
package sealed

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeyBytes is the size of a key: 32 bytes (AES-256), written in
// standard or URL-safe base64, padded or not.
const KeyBytes = 32

// prefix starts every sealed secret; its version names the cipher.
const prefix = "sealed:v1:"

// additionalData binds a sealed secret to its use: text sealed for
// another purpose under the same key does not open as one.
var additionalData = []byte("promptdesk secret")

// ErrNotSealed is Open's error for text that is not a sealed secret (a
// secret stored in plain text before sealing).
var ErrNotSealed = errors.New("not a sealed secret")

// UnknownKeyError is Open's error for a secret sealed under a key the
// Keyring does not hold; ID is that key's id.
type UnknownKeyError struct{ ID string }

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("sealed with key %s, which is not among the keys given", e.ID)
}

// Keyring seals under its current key and opens under any of its keys.
// It is safe for concurrent use.
type Keyring struct {
	current string // id of the sealing key
	keys    map[string]cipher.AEAD
}

// NewKey returns a new random key in standard base64 (what
// `openssl rand -base64 32` prints).
func NewKey() string {
	var k [KeyBytes]byte
	_, _ = rand.Read(k[:]) // never fails (crypto/rand)
	return base64.StdEncoding.EncodeToString(k[:])
}

// NewKeyring returns the ring that seals under current and opens under
// current and previous (keys as NewKey writes them). Errors: a key that
// is not base64 of KeyBytes bytes, naming it by position ("key 1" is
// current, "previous key 1" the first of previous) and never by value.
func NewKeyring(current string, previous ...string) (*Keyring, error) {
	k := &Keyring{keys: make(map[string]cipher.AEAD, 1+len(previous))}
	for i, text := range append([]string{current}, previous...) {
		name := "the key"
		if i > 0 {
			name = fmt.Sprintf("previous key %d", i)
		}
		raw, err := decodeKey(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		block, err := aes.NewCipher(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		id := keyID(raw)
		if i == 0 {
			k.current = id
		}
		k.keys[id] = aead
	}
	return k, nil
}

// decodeKey reads a key in any of the four base64 alphabets and paddings.
func decodeKey(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		raw, err := enc.DecodeString(text)
		if err != nil {
			continue
		}
		if len(raw) != KeyBytes {
			return nil, fmt.Errorf("it is %d bytes; a key is %d bytes in base64 (make one with: openssl rand -base64 32)", len(raw), KeyBytes)
		}
		return raw, nil
	}
	return nil, errors.New("it is not base64; a key is 32 random bytes in base64 (make one with: openssl rand -base64 32)")
}

func keyID(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:4])
}

// ID returns the id of the current key: 8 hex digits, safe to log.
func (k *Keyring) ID() string { return k.current }

// Seal returns plain sealed under the current key; each call uses a new
// random nonce, so sealing one secret twice gives two different texts.
func (k *Keyring) Seal(plain string) string {
	aead := k.keys[k.current]
	out := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(out) // never fails (crypto/rand)
	out = aead.Seal(out, out, []byte(plain), additionalData)
	return prefix + k.current + ":" + base64.RawURLEncoding.EncodeToString(out)
}

// Open returns the secret sealed in stored and whether it is sealed
// under the current key (false: seal it again to finish a rotation).
// Errors: ErrNotSealed for plain text; *UnknownKeyError for a key the
// ring lacks; an error saying the text is damaged when it does not
// decrypt (a wrong key with a colliding id, or an altered text).
func (k *Keyring) Open(stored string) (plain string, current bool, err error) {
	rest, ok := strings.CutPrefix(stored, prefix)
	if !ok {
		return "", false, ErrNotSealed
	}
	id, body, ok := strings.Cut(rest, ":")
	if !ok {
		return "", false, errors.New("a sealed secret without its key id")
	}
	aead, ok := k.keys[id]
	if !ok {
		return "", false, &UnknownKeyError{ID: id}
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(raw) < aead.NonceSize() {
		return "", false, fmt.Errorf("a sealed secret under key %s is damaged", id)
	}
	out, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], additionalData)
	if err != nil {
		return "", false, fmt.Errorf("a sealed secret under key %s does not decrypt: it was altered, or sealed under another key with the same id", id)
	}
	return string(out), id == k.current, nil
}

package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery. A receiver verifies Signature (Verify),
// then uses IdempotencyKey to act on each event once: a delivery whose
// answer was lost is sent again, with the same key and body.
const (
	HeaderSignature      = "X-Promptdesk-Signature" // "sha256=" and the hex HMAC-SHA256 of Timestamp + "." + body
	HeaderTimestamp      = "X-Promptdesk-Timestamp" // Unix seconds when the attempt was signed
	HeaderEvent          = "X-Promptdesk-Event"     // the event type, also the body's "type"
	HeaderIdempotencyKey = "Idempotency-Key"        // also the body's "idempotencyKey"
	HeaderAttempt        = "X-Promptdesk-Attempt"   // 1 for the first attempt
)

// signaturePrefix names the signature's algorithm.
const signaturePrefix = "sha256="

// DefaultTolerance is how far a timestamp may be from the receiver's clock
// for Verify: older signed requests are refused as replays.
const DefaultTolerance = 5 * time.Minute

// Sign returns the X-Promptdesk-Signature value of body sent at
// timestamp (Unix seconds) with secret: "sha256=" and the lowercase hex
// HMAC-SHA256, keyed by secret, of the timestamp in decimal, ".", and the
// body's bytes.
func Sign(secret string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return signaturePrefix + hex.EncodeToString(mac.Sum(nil))
}

// ErrSignature is Verify's error for a request this secret did not sign
// (or whose body was changed).
var ErrSignature = errors.New("webhook: the signature does not match")

// Verify checks a delivery as received: the X-Promptdesk-Signature and
// X-Promptdesk-Timestamp header values and the raw body, against secret,
// at time now, accepting timestamps within tolerance of now. Errors:
// ErrSignature for a wrong signature; a malformed header or a timestamp
// out of tolerance, named.
func Verify(secret, signature, timestamp string, body []byte, now time.Time, tolerance time.Duration) error {
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("webhook: %s %q is not Unix seconds", HeaderTimestamp, timestamp)
	}
	if d := now.Sub(time.Unix(ts, 0)).Abs(); d > tolerance {
		return fmt.Errorf("webhook: %s is %s away from now, more than %s", HeaderTimestamp, d.Round(time.Second), tolerance)
	}
	if !strings.HasPrefix(signature, signaturePrefix) {
		return fmt.Errorf("webhook: %s %q does not start with %q", HeaderSignature, signature, signaturePrefix)
	}
	if !hmac.Equal([]byte(signature), []byte(Sign(secret, ts, body))) {
		return ErrSignature
	}
	return nil
}

package strictjson

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// Whole numbers are read by value, not by spelling; out of range is
// refused by name; times take RFC 3339's lower-case t and z.
func TestDecodeNumbersAndTimes(t *testing.T) {
	type target struct {
		N   int              `json:"n"`
		S   int32            `json:"s"`
		Pin map[string]int   `json:"pin"`
		At  time.Time        `json:"at"`
		Ptr *time.Time       `json:"ptr"`
		L   map[string]int64 `json:"l"`
	}
	for _, c := range []struct {
		in, field, words string
		check            func(target) bool
	}{
		{`{"n":1.0}`, "", "", func(v target) bool { return v.N == 1 }},
		{`{"n":1E2}`, "", "", func(v target) bool { return v.N == 100 }},
		{`{"n":-25e-1}`, "n", "not a whole number", nil},
		{`{"s":2147483647}`, "", "", func(v target) bool { return v.S == 2147483647 }},
		{`{"s":2147483648}`, "s", "out of range", nil},
		{`{"pin":{"a@en":99999999999999999999}}`, "pin.a@en", "out of range", nil},
		{`{"l":{"x":-9223372036854775808}}`, "", "", func(v target) bool { return v.L["x"] == -9223372036854775808 }},
		{`{"n":1E999999999}`, "n", "out of range", nil},
		{`{"n":"1"}`, "n", "expected int", nil},
		{`{"at":"2026-12-03t15:45:00z"}`, "", "", func(v target) bool { return v.At.Equal(time.Date(2026, 12, 3, 15, 45, 0, 0, time.UTC)) }},
		{`{"ptr":"2026-12-03T15:45:00.5+01:00"}`, "", "", func(v target) bool {
			return v.Ptr != nil && v.Ptr.Equal(time.Date(2026, 12, 3, 14, 45, 0, 5e8, time.UTC))
		}},
		{`{"at":"2026-12-03 15:45:00Z"}`, "at", "not an RFC 3339 time", nil},
	} {
		var v target
		err := Decode([]byte(c.in), &v)
		if c.check != nil {
			if err != nil || !c.check(v) {
				t.Errorf("%s: %v %+v", c.in, err, v)
			}
			continue
		}
		var le *library.Error
		if !errors.As(err, &le) || le.Code != library.CodeInvalidRequest || le.Field != c.field || !strings.Contains(le.Msg, c.words) {
			t.Errorf("%s: %v, want invalid_request on %q saying %q", c.in, err, c.field, c.words)
		}
	}
}

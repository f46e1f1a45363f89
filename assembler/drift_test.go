package assembler_test

import (
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
)

// DriftOf gives every reason, and the same answer for an override in a
// locale without a builtin, which was copied from another locale.
func TestDriftOf(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(
		mod{id: "base.greet", version: 3, body: "builtin v3"},
		mod{id: "base.greet", version: 3, body: "builtin v3 zh", locale: "zh-CN"},
	)...)
	en, _ := snap.Module("base.greet", "en-US")
	zh, _ := snap.Module("base.greet", "zh-CN")
	tests := []struct {
		name         string
		id, locale   string
		basedOn      int
		snapshot     string
		want         assembler.DriftReason
		wantBuiltinV int
	}{
		{"up to date", "base.greet", "en-US", 3, en.Text, "", 3},
		{"user module", "base.mine", "en-US", 0, "", "", 0},
		{"user module whose id the library gained", "base.greet", "en-US", 0, "", assembler.DriftBuiltinAdded, 3},
		{"version raised", "base.greet", "en-US", 2, "old text", assembler.DriftVersionRaised, 3},
		{"version lowered", "base.greet", "en-US", 4, en.Text, assembler.DriftVersionLowered, 3},
		{"text changed without a bump", "base.greet", "en-US", 3, "other text", assembler.DriftTextChanged, 3},
		{"the zh-CN builtin is its own base", "base.greet", "zh-CN", 3, en.Text, assembler.DriftTextChanged, 3},
		{"no builtin in ja-JP, copied from zh-CN", "base.greet", "ja-JP", 3, zh.Text, "", 3},
		{"no builtin in ja-JP, copied from a text no locale has now", "base.greet", "ja-JP", 3, "gone", assembler.DriftTextChanged, 3},
		{"builtin removed", "base.gone", "en-US", 2, "old text", assembler.DriftBuiltinRemoved, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := assembler.DriftOf(&assembler.Override{ID: tt.id, Locale: tt.locale, BasedOnVersion: tt.basedOn, BaseSnapshot: tt.snapshot}, snap)
			if d.Reason != tt.want || d.BuiltinVersion != tt.wantBuiltinV || d.BasedOnVersion != tt.basedOn || d.Drifted() != (tt.want != "") {
				t.Errorf("DriftOf = %+v, want reason %q, builtin v%d, based on v%d", d, tt.want, tt.wantBuiltinV, tt.basedOn)
			}
		})
	}
}

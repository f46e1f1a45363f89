package assembler_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/promptdesk/promptdesk/assembler"
)

// Summaries are cut to SummaryRunes runes with an ellipsis, never
// inside a character or a grapheme cluster; text of that length or less
// is unchanged.
func TestTruncateSummaries(t *testing.T) {
	t.Parallel()
	const n = assembler.SummaryRunes
	family := "\U0001F468\u200D\U0001F469\u200D\U0001F467" // 👨‍👩‍👧: 5 runes, one grapheme
	flag := "\U0001F1E8\U0001F1F3"                         // 🇨🇳: 2 runes, one grapheme
	tests := []struct {
		name, in, want string
	}{
		{"200 Chinese characters", strings.Repeat("中", 200), strings.Repeat("中", 120) + "…"},
		// 118 + 5 runes = 123 > 120: the family is dropped whole.
		{"118 a then a family emoji", strings.Repeat("a", 118) + family + " and more text", strings.Repeat("a", 118) + "…"},
		// 117 + 5 = 122 > 120: dropped too; 115 + 5 = 120 fits and is kept.
		{"115 a then a family emoji", strings.Repeat("a", 115) + family + "bc", strings.Repeat("a", 115) + family + "…"},
		// 119 + 2 runes = 121 > 120: the flag is dropped whole.
		{"119 a then a flag", strings.Repeat("a", 119) + flag + " more", strings.Repeat("a", 119) + "…"},
		{"118 a then a flag", strings.Repeat("a", 118) + flag + " more", strings.Repeat("a", 118) + flag + "…"},
		{"exactly 120 characters", strings.Repeat("中", 60) + strings.Repeat("a", 60), strings.Repeat("中", 60) + strings.Repeat("a", 60)},
		{"120 runes ending in a flag", strings.Repeat("b", 118) + flag, strings.Repeat("b", 118) + flag},
		{"121 characters", strings.Repeat("x", 121), strings.Repeat("x", 120) + "…"},
		{"combining accent kept with its letter", strings.Repeat("a", 119) + "e\u0301" + "z", strings.Repeat("a", 119) + "…"},
		{"spaces before the cut trimmed", strings.Repeat("a", 115) + "     tail", strings.Repeat("a", 115) + "…"},
		{"short", "short summary", "short summary"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := assembler.Truncate(tt.in, n)
			if got != tt.want {
				t.Errorf("Truncate:\n got %q\nwant %q", got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("output is not valid UTF-8: %q", got)
			}
			kept, cut := strings.CutSuffix(got, "…")
			if !cut {
				kept = got
			}
			if r := utf8.RuneCountInString(kept); r > n {
				t.Errorf("kept %d runes, want at most %d", r, n)
			}
			if !strings.HasPrefix(tt.in, kept) {
				t.Errorf("kept text is not a prefix of the input")
			}
			// A cut on a grapheme boundary leaves the clusters of the two
			// parts adding up to those of the whole.
			rest := tt.in[len(kept):]
			if uniseg.GraphemeClusterCount(kept)+uniseg.GraphemeClusterCount(rest) != uniseg.GraphemeClusterCount(tt.in) {
				t.Errorf("cut splits a grapheme cluster: kept %q", kept)
			}
		})
	}
}

// A 5 MB summary is cut without reading more than it needs.
func TestTruncateLargeInput(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("长", 5<<20/3)
	got := assembler.Truncate(big, assembler.SummaryRunes)
	if want := strings.Repeat("长", 120) + "…"; got != want {
		t.Errorf("Truncate of 5 MB: got %d bytes, want 120 characters and …", len(got))
	}
}

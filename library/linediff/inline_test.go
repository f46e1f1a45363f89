package linediff

import (
	"slices"
	"strings"
	"testing"
)

// Chinese, Japanese and Korean inputs are written with escapes: Go
// source holds no such text.
const (
	zhBrief  = "\u7b80\u660e\u627c\u8981"       // "concise"
	zhFocus  = "\uff0c\u91cd\u70b9\u7a81\u51fa" // ", focus on the key points"
	zhStop   = "\u3002"                         // full stop
	jaTest   = "\u30c6\u30b9\u30c8\u3067\u3059" // katakana then hiragana
	koLang   = "\ud55c\uad6d\uc5b4"             // three Hangul syllables
	hanWords = "\u4e2d\u6587"                   // two Han characters
)

func TestTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Be brief,  please.", []string{"Be", " ", "brief", ",", "  ", "please", "."}},
		{"don't re-use v1.2", []string{"don't", " ", "re", "-", "use", " ", "v1.2"}},
		{zhBrief + zhStop, []string{"\u7b80", "\u660e", "\u627c", "\u8981", zhStop}},
		{jaTest, []string{"\u30c6", "\u30b9", "\u30c8", "\u3067", "\u3059"}},
		{koLang + " ok", []string{"\ud55c", "\uad6d", "\uc5b4", " ", "ok"}},
		{"abc" + hanWords + "def", []string{"abc", "\u4e2d", "\u6587", "def"}},
		{"caf\u0065\u0301 au lait", []string{"caf\u0065\u0301", " ", "au", " ", "lait"}},
		{"", nil},
	} {
		if got := Tokens(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// show writes spans with the changed ones in brackets.
func show(spans []Span) string {
	if spans == nil {
		return "<no spans>"
	}
	var b strings.Builder
	for _, s := range spans {
		if s.Changed {
			b.WriteString("[" + s.Text + "]")
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

func TestInline(t *testing.T) {
	t.Parallel()
	long := strings.Repeat(hanWords, 1600)
	for _, tc := range []struct {
		name     string
		old, new string
		// want is the inline view of each line of Diff(old, new).
		want []string
	}{
		{
			name: "one Chinese character becomes a clause",
			old:  "intro\n" + zhBrief + zhStop + "\nend\n",
			new:  "intro\n" + zhBrief + zhFocus + zhStop + "\nend\n",
			want: []string{"<no spans>", zhBrief + zhStop, zhBrief + "[" + zhFocus + "]" + zhStop, "<no spans>"},
		},
		{
			name: "a word added, a word changed",
			old:  "Be brief and answer in colour.\n",
			new:  "Be very brief and answer in color.\n",
			want: []string{"Be brief and answer in [colour].", "Be [very ]brief and answer in [color]."},
		},
		{
			name: "Korean by character",
			old:  koLang + " text\n",
			new:  "\ud55c\uad6d\uc778 text\n",
			want: []string{"\ud55c\uad6d[\uc5b4] text", "\ud55c\uad6d[\uc778] text"},
		},
		{
			name: "a deleted line pairs with the similar inserted line after a new one",
			old:  "keep\nAnswer in three short bullet points.\n",
			new:  "keep\nA completely new rule here.\nAnswer in four short bullet points.\n",
			want: []string{"<no spans>", "Answer in [three] short bullet points.", "<no spans>", "Answer in [four] short bullet points."},
		},
		{
			name: "unlike lines keep whole-line marks",
			old:  "The quick brown fox.\n",
			new:  "Nothing in common here!\n",
			want: []string{"<no spans>", "<no spans>"},
		},
		{
			name: "a pair over the budget keeps whole-line marks",
			old:  "a " + long + " b\n",
			new:  "c " + long + " d\n",
			want: []string{"<no spans>", "<no spans>"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lines := Diff(tc.old, tc.new)
			spans := Inline(lines)
			if len(spans) != len(lines) {
				t.Fatalf("Inline gave %d entries for %d lines", len(spans), len(lines))
			}
			var got []string
			for i, l := range lines {
				if l.Op != Equal && spans[i] != nil {
					if joined := strings.ReplaceAll(strings.ReplaceAll(show(spans[i]), "[", ""), "]", ""); joined != l.Text {
						t.Errorf("line %d: spans join to %q, want the line %q", i, joined, l.Text)
					}
				}
				got = append(got, show(spans[i]))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Inline =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestInlineWindow(t *testing.T) {
	t.Parallel()
	// The similar inserted line is past the pairing window: no pair.
	var added []string
	for i := range pairWindow {
		added = append(added, strings.Repeat("x", i+1))
	}
	lines := Diff("Answer in three short bullet points.\n", strings.Join(added, "\n")+"\nAnswer in four short bullet points.\n")
	for i, s := range Inline(lines) {
		if s != nil {
			t.Errorf("line %d %q paired: %s", i, lines[i].Text, show(s))
		}
	}
}

func TestInlineBudget(t *testing.T) {
	t.Parallel()
	// Every line of the benchmark's rewritten text costs 160,000 cells:
	// the budget pairs the first 26 and leaves the rest whole.
	old, new := largePair("rewritten")
	lines := Diff(old, new)
	paired := 0
	for i, s := range Inline(lines) {
		if s != nil && lines[i].Op == Insert {
			paired++
		}
	}
	if want := inlineBudget / (400 * 400); paired != want {
		t.Errorf("%d lines paired, want %d", paired, want)
	}
}

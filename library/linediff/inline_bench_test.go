package linediff

import (
	"strings"
	"testing"
)

// hanLine is a line of n Han characters, different for each seed.
func hanLine(seed, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteRune(rune(0x4e00 + (seed*7919+i*31)%2000))
	}
	return b.String()
}

// englishLine is a line of n words, different for each seed.
func englishLine(seed, n int) string {
	words := []string{"answer", "briefly", "the", "user", "with", "sources", "and", "never", "invent", "facts", "cite", "each", "document"}
	var out []string
	for i := range n {
		out = append(out, words[(seed*13+i*7)%len(words)])
	}
	return strings.Join(out, " ") + "."
}

// largePair returns a text of about 175 KB and an edit of it.
//   - cjk: 300 lines of 200 Han characters; every fifth line gets one
//     character changed and a clause added;
//   - english: 1,500 lines of 18 words; every fifth line gets one word
//     changed and one added;
//   - rewritten: 150 lines of 400 Han characters, every line rewritten in
//     its second half with the same characters in another order: each
//     pair passes the similarity test and needs a real diff of 400
//     tokens (160,000 cells), so the budget runs out after 26 lines and
//     the others keep whole-line marks.
func largePair(kind string) (old, new string) {
	var o, n []string
	switch kind {
	case "cjk":
		for i := range 300 {
			l := hanLine(i, 200)
			o = append(o, l)
			if i%5 == 0 {
				r := []rune(l)
				r[100] = 0x3001
				l = string(r) + hanLine(i+1000, 6)
			}
			n = append(n, l)
		}
	case "english":
		for i := range 1500 {
			l := englishLine(i, 18)
			o = append(o, l)
			if i%5 == 0 {
				l = strings.Replace(l, "the", "any", 1) + " Always."
			}
			n = append(n, l)
		}
	case "rewritten":
		for i := range 150 {
			l := hanLine(i, 400)
			o = append(o, l)
			r := []rune(l)
			half := r[200:]
			for j := range half {
				k := (j*37 + 11) % len(half)
				half[j], half[k] = half[k], half[j]
			}
			n = append(n, string(r))
		}
	}
	return strings.Join(o, "\n") + "\n", strings.Join(n, "\n") + "\n"
}

// BenchmarkInline times the server's diff of two large texts: the line
// diff and its folding alone (lines), then with the inline marks
// (inline).
func BenchmarkInline(b *testing.B) {
	for _, kind := range []string{"cjk", "english", "rewritten"} {
		old, new := largePair(kind)
		b.Run(kind+"/lines", func(b *testing.B) {
			b.SetBytes(int64(len(old) + len(new)))
			for b.Loop() {
				Fold(Diff(old, new), 3)
			}
		})
		b.Run(kind+"/inline", func(b *testing.B) {
			b.SetBytes(int64(len(old) + len(new)))
			for b.Loop() {
				Inline(Fold(Diff(old, new), 3))
			}
		})
	}
}

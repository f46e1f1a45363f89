package linediff

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Span is a piece of a changed line in an inline diff: text that the
// line's partner line has too, or text that changed.
type Span struct {
	Text    string
	Changed bool
}

// The bounds of Inline's work, so that a diff of two large texts stays
// fast. A deleted line looks for its partner among the next pairWindow
// inserted lines of its hunk only. Each pair costs (n+m)² cells, n and m
// its tokens left after the common start and end are taken off (the
// worst case of the token diff); once a diff has spent inlineBudget
// cells, its remaining changed lines keep whole-line marks.
const (
	pairWindow   = 8
	inlineBudget = 1 << 22
)

// Tokens splits a line into the units an inline diff compares: words as
// Unicode text segmentation (UAX #29) finds them, runs of spaces, single
// punctuation marks, and each Han, Hiragana, Katakana or Hangul character
// on its own, because those scripts do not put spaces between words. A
// change inside a word marks the whole word; a change in a Chinese,
// Japanese or Korean sentence marks only the characters that changed.
func Tokens(s string) []string {
	var out []string
	state := -1
	for s != "" {
		var word string
		word, s, state = uniseg.FirstWordInString(s, state)
		if !hasCJK(word) {
			out = append(out, word)
			continue
		}
		gs := -1
		for word != "" {
			var g string
			g, word, _, gs = uniseg.FirstGraphemeClusterInString(word, gs)
			out = append(out, g)
		}
	}
	return out
}

// cjk are the scripts whose characters are tokens of their own.
var cjk = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul}

func hasCJK(s string) bool {
	for _, r := range s {
		// Every one of these scripts lies above U+1100: most runes of
		// other scripts are let go without a table look-up.
		if r >= 0x1100 && unicode.IsOneOf(cjk, r) {
			return true
		}
	}
	return false
}

// Inline marks what changed inside the changed lines of a diff (as Diff
// or Fold return it). It returns one entry per line: nil for a line that
// keeps a whole-line mark, else the line's text cut into Spans.
//
// Lines are paired within a hunk (a run of deleted and inserted lines):
// each deleted line, in order, with the first of the next few inserted
// lines after the last pair that is similar to it, that is whose kept
// text is at least half of the shorter line's (spaces not counted). A
// pair is compared token by token (see Tokens). Lines without a partner
// and pairs past the work bounds (pairWindow, inlineBudget) get nil.
func Inline(lines []Line) [][]Span {
	out := make([][]Span, len(lines))
	p := pairer{budget: inlineBudget, dmp: diffmatchpatch.New()}
	// A diff's own bound is the budget: no time limit, same result on
	// every machine.
	p.dmp.DiffTimeout = 0
	for i := 0; i < len(lines); {
		if lines[i].Op != Delete && lines[i].Op != Insert {
			i++
			continue
		}
		var dels, ins []int
		for ; i < len(lines) && (lines[i].Op == Delete || lines[i].Op == Insert); i++ {
			if lines[i].Op == Delete {
				dels = append(dels, i)
			} else {
				ins = append(ins, i)
			}
		}
		p.hunk(lines, dels, ins, out)
	}
	return out
}

// pairer pairs the lines of one diff, spending its budget.
type pairer struct {
	budget int
	dmp    *diffmatchpatch.DiffMatchPatch
}

// hunk pairs the deleted lines dels with the inserted lines ins (indexes
// into lines) and writes the spans of each pair into out.
func (p *pairer) hunk(lines []Line, dels, ins []int, out [][]Span) {
	if len(dels) == 0 || len(ins) == 0 {
		return
	}
	toks := make(map[int]tokens, len(dels)+len(ins))
	tokensOf := func(i int) tokens {
		t, ok := toks[i]
		if !ok {
			t.list = Tokens(lines[i].Text)
			t.visible = visible(t.list)
			toks[i] = t
		}
		return t
	}
	next := 0
	for _, d := range dels {
		for k := next; k < len(ins) && k < next+pairWindow; k++ {
			a, b, ok := p.pair(tokensOf(d), tokensOf(ins[k]))
			if ok {
				out[d], out[ins[k]] = a, b
				next = k + 1
				break
			}
		}
		if next >= len(ins) || p.budget <= 0 {
			return
		}
	}
}

// tokens are a line's tokens and how many of their runes are not spaces.
type tokens struct {
	list    []string
	visible int
}

// pair compares two lines' tokens and returns their spans, or false when
// the lines are not similar or the pair does not fit in the budget. The
// cheap tests come first: the budget, then an upper bound of the text
// the diff can keep.
func (p *pairer) pair(ot, nt tokens) (a, b []Span, ok bool) {
	old, new := ot.list, nt.list
	shorter := min(ot.visible, nt.visible)
	if shorter == 0 {
		return nil, nil, false
	}
	pre := 0
	for pre < len(old) && pre < len(new) && old[pre] == new[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
	om, nm := old[pre:len(old)-suf], new[pre:len(new)-suf]
	mid := len(om) + len(nm)
	if mid*mid > p.budget || mid > codeEnd-codeBase {
		return nil, nil, false
	}
	kept := visible(old[:pre]) + visible(old[len(old)-suf:])
	if 2*(kept+shared(om, nm)) < shorter {
		return nil, nil, false
	}
	p.budget -= max(mid*mid, 1)
	a = addSpan(a, old[:pre], false)
	b = addSpan(b, new[:pre], false)
	ro, rn := encode(om, nm)
	i, j := 0, 0
	for _, d := range p.dmp.DiffCleanupSemantic(p.dmp.DiffMainRunes(ro, rn, false)) {
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			kept += visible(om[i : i+n])
			a = addSpan(a, om[i:i+n], false)
			b = addSpan(b, nm[j:j+n], false)
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			a = addSpan(a, om[i:i+n], true)
			i += n
		case diffmatchpatch.DiffInsert:
			b = addSpan(b, nm[j:j+n], true)
			j += n
		}
	}
	if 2*kept < shorter {
		return nil, nil, false
	}
	a = addSpan(a, old[len(old)-suf:], false)
	b = addSpan(b, new[len(new)-suf:], false)
	return a, b, true
}

// The codes encode gives tokens: private-use characters, which the
// diff's semantic clean-up treats all alike. There are more of them than
// a pair within the budget has tokens.
const (
	codeBase = 0xE000
	codeEnd  = 0xF900
)

// encode gives each distinct token of a pair one rune, so that the diff
// compares tokens. The pair has at most codeEnd-codeBase tokens.
func encode(old, new []string) (ro, rn []rune) {
	codes := make(map[string]rune, len(old)+len(new))
	code := func(t string) rune {
		c, seen := codes[t]
		if !seen {
			c = codeBase + rune(len(codes))
			codes[t] = c
		}
		return c
	}
	ro = make([]rune, len(old))
	for i, t := range old {
		ro[i] = code(t)
	}
	rn = make([]rune, len(new))
	for i, t := range new {
		rn[i] = code(t)
	}
	return ro, rn
}

// addSpan appends the tokens as one span, joined to the last span when
// that has the same mark.
func addSpan(spans []Span, toks []string, changed bool) []Span {
	if len(toks) == 0 {
		return spans
	}
	text := strings.Join(toks, "")
	if n := len(spans); n > 0 && spans[n-1].Changed == changed {
		spans[n-1].Text += text
		return spans
	}
	return append(spans, Span{Text: text, Changed: changed})
}

// visible counts the runes of toks that are not spaces.
func visible(toks []string) int {
	n := 0
	for _, t := range toks {
		for _, r := range t {
			if !unicode.IsSpace(r) {
				n++
			}
		}
	}
	return n
}

// shared is the most visible runes a diff of two token lists can keep:
// the visible runes of the tokens both have, counted as often as the
// rarer side has them. It lets unlike lines go before the diff runs.
func shared(old, new []string) int {
	count := make(map[string]int, len(old))
	for _, t := range old {
		count[t]++
	}
	n := 0
	for _, t := range new {
		if count[t] > 0 {
			count[t]--
			n += visible([]string{t})
		}
	}
	return n
}

package lint

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// text is module text prepared for cue matching: lower case, every run
// of blank space (line breaks included) folded to one space, with the
// file line of each byte kept so that a match can name its line.
type text struct {
	s     string
	lines []int
}

// newText prepares raw, whose first line is file line firstLine.
func newText(raw string, firstLine int) text {
	var b strings.Builder
	lines := make([]int, 0, len(raw))
	line := firstLine
	space := false
	for _, r := range raw {
		if unicode.IsSpace(r) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
				lines = append(lines, line)
			}
			space = true
			if r == '\n' {
				line++
			}
			continue
		}
		space = false
		n, _ := b.WriteRune(unicode.ToLower(r))
		for range n {
			lines = append(lines, line)
		}
	}
	return text{s: b.String(), lines: lines}
}

// fold lower-cases a cue and folds its blank space like newText.
func fold(cue string) string { return strings.ToLower(strings.Join(strings.Fields(cue), " ")) }

// find returns the earliest match of any cue and the file line it is on.
// A cue that starts with a Latin letter or digit matches only at the start
// of a word ("only" does not match "commonly", "mistake" matches
// "mistakes"); other cues (Chinese) match anywhere.
func (t text) find(cues []string) (cue string, line int, ok bool) {
	best := -1
	for _, c := range cues {
		f := fold(c)
		if i := t.index(f); i >= 0 && (best < 0 || i < best) {
			best, cue = i, c
		}
	}
	if best < 0 {
		return "", 0, false
	}
	return cue, t.lines[best], true
}

// has reports whether any cue matches.
func (t text) has(cues []string) bool {
	_, _, ok := t.find(cues)
	return ok
}

// index is the byte offset of the first match of the folded cue f.
func (t text) index(f string) int {
	if f == "" {
		return -1
	}
	wordStart := isWordByte(f[0])
	for from := 0; from <= len(t.s)-len(f); {
		i := strings.Index(t.s[from:], f)
		if i < 0 {
			return -1
		}
		i += from
		if !wordStart || i == 0 || !isWordByte(t.s[i-1]) {
			return i
		}
		from = i + 1
	}
	return -1
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// opening returns the module body's opening paragraph: the first lines
// that are neither blank, nor a Markdown heading, nor an XML-style tag
// line such as <task>, up to the next blank line, with the file line it
// starts on. Lines are joined with a space.
func opening(body string, bodyLine int) (para string, line int) {
	var parts []string
	for i, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		skip := t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">")
		if len(parts) == 0 {
			if !skip {
				parts, line = append(parts, t), bodyLine+i
			}
			continue
		}
		if t == "" {
			break
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " "), line
}

// firstSentence cuts para after the first sentence end: a character of
// ends followed by blank space or the end of the paragraph, or any
// non-ASCII end (a full stop such as U+3002 needs no space after it).
func firstSentence(para string, ends []string) string {
	for i := 0; i < len(para); {
		r, size := utf8.DecodeRuneInString(para[i:])
		for _, e := range ends {
			if !strings.HasPrefix(para[i:], e) {
				continue
			}
			after := i + len(e)
			if r >= utf8.RuneSelf || after == len(para) || para[after] == ' ' {
				return para[:after]
			}
		}
		i += size
	}
	return para
}

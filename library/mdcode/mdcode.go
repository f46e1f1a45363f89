// Package mdcode finds the code in a Markdown text — fenced code blocks
// and inline code spans — for the checks that read text differently
// there: brace text in code is the code's own syntax, not a placeholder
// meant (library/lint), and conflict markers shown in a code block are an
// example, not an unresolved merge (library.ParseAll).
package mdcode

import "strings"

// Fence follows the fenced code blocks of a Markdown text line by line
// (CommonMark: a run of at least three backticks or tildes indented at
// most three spaces opens a block; a run of the same character at least
// as long, with nothing after it, closes it; a block left open runs to
// the end). The zero value is outside any block.
type Fence struct {
	char byte // '`' or '~' while inside a block, else 0
	n    int  // length of the opening run
}

// Line reads the next line and reports whether it belongs to a code
// block, its fence lines included.
func (f *Fence) Line(l string) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || t == "" || t[0] != '`' && t[0] != '~' {
		return f.char != 0
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	switch {
	case n < 3:
		return f.char != 0
	case f.char == 0:
		if t[0] == '`' && strings.Contains(t[n:], "`") {
			return false // a backtick after the run: inline code, not a fence
		}
		f.char, f.n = t[0], n
	case t[0] == f.char && n >= f.n && strings.TrimSpace(t[n:]) == "":
		f.char = 0
	}
	return true
}

// CodeLines returns the 1-based numbers of the lines of text that belong
// to fenced code blocks, fence lines included, as a set.
func CodeLines(text string) map[int]bool {
	var f Fence
	out := map[int]bool{}
	for i, l := range strings.Split(text, "\n") {
		if f.Line(strings.TrimRight(l, "\r")) {
			out[i+1] = true
		}
	}
	return out
}

// Spans returns the byte ranges [start, end) of the inline code spans of
// line l: a run of backticks up to the next run of the same length. A run
// with no match is literal backticks.
func Spans(l string) [][2]int {
	var out [][2]int
	for i := 0; i < len(l); {
		if l[i] != '`' {
			i++
			continue
		}
		n := len(l[i:]) - len(strings.TrimLeft(l[i:], "`"))
		closed := false
		for j := i + n; j < len(l); {
			if l[j] != '`' {
				j++
				continue
			}
			m := len(l[j:]) - len(strings.TrimLeft(l[j:], "`"))
			if m == n {
				out = append(out, [2]int{i, j + m})
				i, closed = j+m, true
				break
			}
			j += m
		}
		if !closed {
			i += n
		}
	}
	return out
}

// InSpan reports whether byte offset at lies inside one of spans.
func InSpan(spans [][2]int, at int) bool {
	for _, s := range spans {
		if at >= s[0] && at < s[1] {
			return true
		}
	}
	return false
}

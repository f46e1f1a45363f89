// Package linediff compares module texts line by line and merges them
// three ways (revision history, drift review and rebase). It is built
// on github.com/sergi/go-diff/diffmatchpatch and does no I/O.
package linediff

import (
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Op says what happened to a line between two texts.
type Op int8

// The line operations. Folded stands for a run of unchanged lines that a
// view leaves out (see Fold).
const (
	Equal Op = iota
	Insert
	Delete
	Folded
)

// String returns "equal", "insert", "delete" or "folded".
func (op Op) String() string {
	switch op {
	case Insert:
		return "insert"
	case Delete:
		return "delete"
	case Folded:
		return "folded"
	}
	return "equal"
}

// Line is one line of a diff, without its newline.
type Line struct {
	Op   Op
	Text string
	// Old and New are the 1-based line numbers in the old and new text;
	// Old is 0 for an inserted line, New 0 for a deleted one.
	Old, New int
	// Count is the number of unchanged lines a Folded line stands for.
	Count int
}

// Diff returns the line diff that turns old into new. CRLF counts as LF,
// and a missing newline at the end does not count as a change.
func Diff(old, new string) []Line {
	old, new = normalize(old), normalize(new)
	if old == new && old == "" {
		return nil
	}
	dmp := diffmatchpatch.New()
	a, b, table := dmp.DiffLinesToChars(old, new)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), table)
	var out []Line
	o, n := 1, 1
	for _, d := range diffs {
		for _, text := range splitLines(d.Text) {
			l := Line{Text: text}
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				l.Op, l.Old, l.New = Equal, o, n
				o, n = o+1, n+1
			case diffmatchpatch.DiffDelete:
				l.Op, l.Old = Delete, o
				o++
			case diffmatchpatch.DiffInsert:
				l.Op, l.New = Insert, n
				n++
			}
			out = append(out, l)
		}
	}
	return out
}

// Count returns how many lines a diff inserts and deletes.
func Count(lines []Line) (inserted, deleted int) {
	for _, l := range lines {
		switch l.Op {
		case Insert:
			inserted++
		case Delete:
			deleted++
		}
	}
	return inserted, deleted
}

// Fold keeps context unchanged lines around every change and replaces
// each longer unchanged run by one Folded line, so a diff without changes
// folds to a single Folded line.
func Fold(lines []Line, context int) []Line {
	context = max(context, 0)
	var out []Line
	for i := 0; i < len(lines); {
		if lines[i].Op != Equal {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i
		for j < len(lines) && lines[j].Op == Equal {
			j++
		}
		// lines[i:j] is an unchanged run: keep context lines after the
		// change before it and before the change after it.
		keepHead, keepTail := context, context
		if i == 0 {
			keepHead = 0
		}
		if j == len(lines) {
			keepTail = 0
		}
		if run := j - i; run <= keepHead+keepTail+1 {
			out = append(out, lines[i:j]...)
		} else {
			out = append(out, lines[i:i+keepHead]...)
			out = append(out, Line{Op: Folded, Count: run - keepHead - keepTail, Old: lines[i+keepHead].Old, New: lines[i+keepHead].New})
			out = append(out, lines[j-keepTail:j]...)
		}
		i = j
	}
	return out
}

// normalize turns CRLF into LF and ends a non-empty text with a newline.
func normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// splitLines splits newline-terminated text into lines without newlines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

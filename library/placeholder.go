package library

import "strings"

// Placeholder is one `{{name}}` in a text. Line is 1-based within
// the scanned text.
type Placeholder struct {
	Name string
	Line int
}

// Piece is one part of a scanned text: literal text when Name is empty,
// otherwise the placeholder Name.
type Piece struct {
	Literal string
	Name    string
}

// Scan splits text into literal pieces and placeholders: `{{name}}`
// with name `[a-z_][a-z0-9_.-]*` is a placeholder, `\{{name}}` is the
// literal `{{name}}`, and any other brace text is literal. Adjacent literal
// text is merged, so the result alternates literal and placeholder pieces.
func Scan(text string) []Piece {
	var pieces []Piece
	// The literal run so far as spans [from, to) of text, adjacent spans
	// merged: a run without an escape is one span, a substring of text
	// rather than a copy (a library holds every module's pieces).
	var run [][2]int
	add := func(from, to int) {
		switch {
		case from == to:
		case len(run) > 0 && run[len(run)-1][1] == from:
			run[len(run)-1][1] = to
		default:
			run = append(run, [2]int{from, to})
		}
	}
	flush := func() {
		switch len(run) {
		case 0:
			return
		case 1:
			pieces = append(pieces, Piece{Literal: text[run[0][0]:run[0][1]]})
		default:
			var b strings.Builder
			for _, r := range run {
				b.WriteString(text[r[0]:r[1]])
			}
			pieces = append(pieces, Piece{Literal: b.String()})
		}
		run = run[:0]
	}
	i := 0
	for {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			add(i, len(text))
			break
		}
		j += i
		name, end, ok := placeholderAt(text, j)
		if !ok {
			add(i, j+1)
			i = j + 1
			continue
		}
		if j > i && text[j-1] == '\\' {
			add(i, j-1)
			add(j, end)
		} else {
			add(i, j)
			flush()
			pieces = append(pieces, Piece{Name: name})
		}
		i = end
	}
	flush()
	return pieces
}

// Placeholders lists the placeholders of text in order, with their lines.
func Placeholders(text string) []Placeholder {
	var out []Placeholder
	line := 1
	for _, p := range Scan(text) {
		if p.Name == "" {
			line += strings.Count(p.Literal, "\n")
			continue
		}
		out = append(out, Placeholder{Name: p.Name, Line: line})
	}
	return out
}

// placeholderAt reads `{{name}}` starting at text[i] == '{'.
func placeholderAt(text string, i int) (name string, end int, ok bool) {
	k := i + 2
	start := k
	for k < len(text) && isNameByte(text[k], k == start) {
		k++
	}
	if k == start || k+1 >= len(text) || text[k] != '}' || text[k+1] != '}' {
		return "", 0, false
	}
	return text[start:k], k + 2, true
}

func isNameByte(c byte, first bool) bool {
	if c >= 'a' && c <= 'z' || c == '_' {
		return true
	}
	return !first && (c >= '0' && c <= '9' || c == '.' || c == '-')
}

// ValidPlaceholderName reports whether s matches `[a-z_][a-z0-9_.-]*`.
func ValidPlaceholderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return true
}

package library

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"
)

// yamlError turns go-yaml's error about text, whose first line is line
// first of file, into a *FileError: what opens the message ("frontmatter
// is not valid YAML"). go-yaml names the token where it gave up, which
// for a flow list or mapping left open ("triggers: [a") is the next key,
// a line or more after the cause: then the error names the line where
// the "[" or "{" opened. Field is the top-level key the line belongs to.
func yamlError(file, what, text string, first int, err error) *FileError {
	var ye yaml.Error
	if !errors.As(err, &ye) || ye.GetToken() == nil {
		return &FileError{File: file, Line: first, Msg: what + ": " + err.Error()}
	}
	lines := strings.Split(text, "\n")
	line := ye.GetToken().Position.Line // 1-based in text
	msg := what + ": " + ye.GetMessage()
	if l, open, ok := unclosedFlow(lines); ok && l <= line {
		line = l
		kind, closer := "list", "]"
		if open == '{' {
			kind, closer = "mapping", "}"
		}
		msg = fmt.Sprintf("%s: the %s opened with %q on this line is never closed with %q", what, kind, string(open), closer)
	}
	if line >= 1 && line <= len(lines) && strings.HasPrefix(strings.TrimLeft(lines[line-1], " "), "\t") && strings.Contains(msg, "'\t'") {
		msg += " (YAML indents with spaces; this line starts with a tab)"
	}
	return &FileError{File: file, Line: line + first - 1, Field: topLevelKey(lines, line), Msg: msg}
}

// keyLine matches a line that starts a top-level mapping entry: a plain
// or quoted key at column 0, then ":" and a blank or the line end.
var keyLine = regexp.MustCompile(`^(?:"([^"]*)"|'([^']*)'|([^\s#"'\[\]{},&*!|>%@` + "`" + `-][^#]*?))\s*:(?:\s|$)`)

// topLevelKey is the top-level key whose entry holds line (1-based) of
// lines: the key of the nearest line at column 0 at or before it that is
// not an item of a list ("- "), or "" when that line is no key (a stray
// word). A line itself indented with a tab that reads as a key names that
// key.
func topLevelKey(lines []string, line int) string {
	if line >= 1 && line <= len(lines) && strings.HasPrefix(lines[line-1], "\t") {
		// A key indented with a tab ("\ttitle: T") is meant as a key of
		// its own, not as part of the entry above it.
		if m := keyLine.FindStringSubmatch(strings.TrimLeft(lines[line-1], " \t")); m != nil {
			return m[1] + m[2] + strings.TrimSpace(m[3])
		}
	}
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		l := lines[i]
		if t := strings.TrimSpace(l); t == "" || t[0] == '#' || l[0] == ' ' || l[0] == '\t' || t == "-" || strings.HasPrefix(t, "- ") {
			continue
		}
		m := keyLine.FindStringSubmatch(l)
		if m == nil {
			return ""
		}
		return m[1] + m[2] + strings.TrimSpace(m[3])
	}
	return ""
}

// unclosedFlow finds a flow list or mapping that is never closed: the
// innermost one still open when a line indented no deeper than the line
// where the outermost opened starts a new entry, or when the text ends.
// It returns the 1-based line where that one opened and its bracket.
// Quoted scalars, comments and block scalars are skipped; a bracket inside
// a plain scalar of block context ("title: a [b") opens nothing. ok is
// false when nothing is left open or the brackets do not nest.
func unclosedFlow(lines []string) (line int, open byte, ok bool) {
	type opener struct {
		line, indent int
		c            byte
	}
	var stack []opener
	var quote byte    // the quote of a quoted scalar going on past a line end
	blockIndent := -1 // in a block scalar: lines indented deeper are its text
	for i, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		t := strings.TrimSpace(l)
		if blockIndent >= 0 {
			if t == "" || indent > blockIndent {
				continue
			}
			blockIndent = -1
		}
		if quote == 0 && len(stack) > 0 && t != "" && t[0] != '#' && t[0] != ']' && t[0] != '}' && t[0] != ',' && indent <= stack[0].indent {
			top := stack[len(stack)-1]
			return top.line, top.c, true
		}
		start := quote == 0 // at the start of a value
		for j := 0; j < len(l); j++ {
			c := l[j]
			if quote != 0 {
				switch {
				case quote == '"' && c == '\\':
					j++
				case quote == '\'' && c == '\'' && j+1 < len(l) && l[j+1] == '\'':
					j++
				case c == quote:
					quote = 0
				}
				continue
			}
			flow := len(stack) > 0
			switch {
			case c == ' ' || c == '\t':
				continue
			case c == '#' && (j == 0 || l[j-1] == ' ' || l[j-1] == '\t'):
				j = len(l)
				continue
			case start && (c == '[' || c == '{'):
				stack = append(stack, opener{i + 1, indent, c})
				continue
			case start && (c == '"' || c == '\''):
				quote = c
				start = false
				continue
			case start && !flow && (c == '|' || c == '>'):
				blockIndent = indent
				j = len(l)
				continue
			case start && c == '-' && (j+1 == len(l) || l[j+1] == ' '):
				continue
			case start && (c == '&' || c == '!' || c == '*'):
				for j+1 < len(l) && l[j+1] != ' ' {
					j++
				}
				continue
			case flow && (c == ']' || c == '}'):
				want := byte('[')
				if c == '}' {
					want = '{'
				}
				if stack[len(stack)-1].c != want {
					return 0, 0, false
				}
				stack = stack[:len(stack)-1]
				start = false
				continue
			case flow && c == ',':
				start = true
				continue
			case c == ':' && (j+1 == len(l) || l[j+1] == ' ' || l[j+1] == '\t'):
				start = true
				continue
			}
			start = false
			if !flow { // a plain scalar of block context: up to ": " or " #"
				for j+1 < len(l) && !(l[j+1] == ':' && (j+2 == len(l) || l[j+2] == ' ')) && !(l[j+1] == '#' && l[j] == ' ') {
					j++
				}
			} else {
				for j+1 < len(l) && !strings.ContainsRune(",[]{}", rune(l[j+1])) && !(l[j+1] == ':' && (j+2 == len(l) || l[j+2] == ' ')) {
					j++
				}
			}
		}
	}
	if len(stack) > 0 && quote == 0 {
		top := stack[len(stack)-1]
		return top.line, top.c, true
	}
	return 0, 0, false
}

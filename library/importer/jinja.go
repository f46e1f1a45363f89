package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"unicode"

	"github.com/promptdesk/promptdesk/library"
)

// jinjaIndex is the manifest of a Jinja template set.
const jinjaIndex = "index.json"

// jinjaEntry is one templates.<name> entry of index.json.
type jinjaEntry struct {
	name string
	line int
	path string // slash path under the source folder
	vars []string
}

// importJinja converts the templates an index.json declares ({"templates":
// {name: {path, variables}}}) into one module each, <layer>.<name> with the
// declared variables. `{{ name }}` becomes `{{name}}`; comments are dropped
// (they render nothing; whitespace control is honoured) and noted. Any
// other Jinja construct (statements such as {% if %} and {% for %},
// filters, attribute access, expressions) has no equivalent: the template
// is not imported and each construct is listed with its line.
func importJinja(b *builder, fsys fs.FS) error {
	data, err := fs.ReadFile(fsys, jinjaIndex)
	if err != nil {
		return fmt.Errorf("no %s in the source folder: a Jinja template set declares its templates there: %w", jinjaIndex, err)
	}
	idx := b.add(Outcome{Source: jinjaIndex, Status: StatusUsed})
	entries, err := readJinjaIndex(b, idx, b.normalize(jinjaIndex, data))
	if err != nil {
		return err
	}
	files, hidden, err := b.walk(fsys, ".")
	if err != nil {
		return err
	}
	declared := map[string]jinjaEntry{}
	for _, e := range entries {
		bad := func(msg string) {
			b.add(Outcome{Source: jinjaIndex, Item: "templates." + e.name, Line: e.line, Status: StatusNotImported, Reasons: []Note{{Msg: msg}}})
		}
		clean := path.Clean(e.path)
		switch st, statErr := fs.Stat(fsys, clean); {
		case e.path == "" || path.IsAbs(e.path) || clean == ".." || strings.HasPrefix(clean, "../"):
			bad(fmt.Sprintf("path %q is not a file inside the source folder", e.path))
		case statErr != nil:
			bad(fmt.Sprintf("the template file %s is missing", e.path))
		case st.IsDir():
			bad(fmt.Sprintf("path %s is a folder, not a template file", e.path))
		default:
			if prev, dup := declared[clean]; dup {
				bad(fmt.Sprintf("the file %s is declared already by templates.%s", e.path, prev.name))
				continue
			}
			e.path = clean
			declared[clean] = e
		}
	}
	for _, f := range files {
		switch e, ok := declared[f]; {
		case f == jinjaIndex:
		case ok:
			importJinjaTemplate(b, fsys, e)
		case path.Ext(f) == ".md":
			b.add(Outcome{Source: f, Status: StatusNotImported, Reasons: []Note{{Msg: "not declared in index.json, so its variables are unknown"}}})
		default:
			b.skip(f, "not a template declared in index.json")
		}
	}
	b.skipHidden(hidden)
	return nil
}

// readJinjaIndex reads index.json, keeping each template's line. Entries
// it cannot use are outcomes; a file that is not the index's JSON shape is
// the error.
func readJinjaIndex(b *builder, idx int, text string) ([]jinjaEntry, error) {
	fail := func(off int64, msg string) error {
		return fmt.Errorf("%s:%d: %s", jinjaIndex, lineAt(text, int(min(off, int64(len(text))))), msg)
	}
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail(se.Offset, "not valid JSON: "+se.Error())
		}
		return fmt.Errorf("%s: not valid JSON: %w", jinjaIndex, err)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	if tok, err := dec.Token(); err != nil {
		return nil, syntax(err)
	} else if tok != json.Delim('{') {
		return nil, fail(dec.InputOffset(), `expected an object {"templates": {…}}`)
	}
	var entries []jinjaEntry
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		key, _ := tok.(string)
		line := lineAt(text, int(dec.InputOffset()))
		if key != "templates" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, syntax(err)
			}
			b.note(idx, line, "key %s has no place in the module format; not kept", key)
			continue
		}
		found = true
		if tok, err := dec.Token(); err != nil {
			return nil, syntax(err)
		} else if tok != json.Delim('{') {
			return nil, fail(dec.InputOffset(), `"templates" must be an object {name: {"path": …, "variables": […]}}`)
		}
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, syntax(err)
			}
			name, _ := tok.(string)
			e := jinjaEntry{name: name, line: lineAt(text, int(dec.InputOffset()))}
			var raw map[string]json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				var te *json.UnmarshalTypeError
				if !errors.As(err, &te) {
					return nil, syntax(err)
				}
				raw = nil
			}
			bad := func(msg string) {
				b.add(Outcome{Source: jinjaIndex, Item: "templates." + name, Line: e.line, Status: StatusNotImported, Reasons: []Note{{Msg: msg}}})
			}
			switch {
			case seen[name]:
				bad("declared twice; the first declaration is used")
				continue
			case raw == nil:
				bad(`the entry must be an object {"path": …, "variables": […]}`)
				continue
			}
			seen[name] = true
			ok := true
			for k, v := range raw {
				switch k {
				case "path":
					ok = ok && json.Unmarshal(v, &e.path) == nil
				case "variables":
					ok = ok && json.Unmarshal(v, &e.vars) == nil
				default:
					b.note(idx, e.line, "templates.%s.%s has no place in the module format; not kept", name, k)
				}
			}
			if !ok {
				bad(`"path" must be a string and "variables" a list of strings`)
				continue
			}
			entries = append(entries, e)
		}
		if _, err := dec.Token(); err != nil {
			return nil, syntax(err)
		}
	}
	if !found {
		return nil, fail(0, `no "templates" object`)
	}
	return entries, nil
}

func importJinjaTemplate(b *builder, fsys fs.FS, e jinjaEntry) {
	i := b.add(Outcome{Source: e.path, Item: "template " + e.name, Status: StatusImported})
	text, n, ok := b.readText(fsys, e.path)
	if !ok {
		b.fail(i, n)
		return
	}
	pieces, problems, comments := lexJinja(text)
	if len(problems) > 0 {
		b.fail(i, problems...)
		return
	}
	b.out(i).Notes = append(b.out(i).Notes, comments...)

	var vars []string
	declared := map[string]bool{}
	for _, raw := range e.vars {
		v, msg, ok := variable(raw)
		if !ok {
			b.fail(i, Note{File: jinjaIndex, Line: e.line, Msg: fmt.Sprintf("index.json declares the variable %q, which is not a placeholder name ([a-z_][a-z0-9_.-]*)", raw)})
			return
		}
		if msg != "" {
			b.noteAt(i, Note{File: jinjaIndex, Line: e.line}, "%s", msg)
		}
		if !declared[raw] {
			declared[raw] = true
			vars = append(vars, v)
		}
	}
	used := map[string]bool{}
	var w body
	for _, pc := range pieces {
		if pc.field == "" {
			w.text(pc.lit)
			continue
		}
		v, _, _ := variable(pc.field)
		if !declared[pc.field] {
			declared[pc.field] = true
			vars = append(vars, v)
			b.note(i, pc.line, "{{ %s }} is not declared in index.json; declared as a variable", pc.field)
		}
		used[pc.field] = true
		if !w.placeholder(v) {
			b.fail(i, Note{Line: pc.line, Msg: fmt.Sprintf("{{ %s }} follows a backslash: a module cannot hold a literal backslash right before a placeholder", pc.field)})
			return
		}
	}
	for _, raw := range e.vars {
		if !used[raw] {
			b.noteAt(i, Note{File: jinjaIndex, Line: e.line}, "variable %s is declared in index.json but the template does not use it; kept declared", raw)
		}
	}
	if w.escaped > 0 {
		b.note(i, 0, "%d literal {{name}} sequence(s) written \\{{name}} so they stay text", w.escaped)
	}
	name, ok := b.name(i, Note{File: jinjaIndex, Line: e.line}, e.name)
	if !ok {
		return
	}
	out := w.String()
	description := b.description(i, out, e.name)
	b.module(i, spec{
		layer:       b.layer(defaultLayer(e.name)),
		name:        name,
		locale:      b.locale(i, out),
		title:       e.name,
		description: description,
		variables:   vars,
		body:        out,
	})
}

// jinjaName is a bare variable reference, the only expression a module
// placeholder can stand for.
var jinjaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// lexJinja splits a Jinja template into literal text and bare variable
// references. Comments are dropped, with a note; whitespace control (`-`)
// trims the neighbouring text as Jinja does. Every other construct is a
// problem with its line.
func lexJinja(s string) (pieces []piece, problems, comments []Note) {
	trimNext := false
	literal := func(t string) {
		if trimNext {
			t = strings.TrimLeftFunc(t, unicode.IsSpace)
			trimNext = false
		}
		if t != "" {
			pieces = append(pieces, piece{lit: t})
		}
	}
	i := 0
	for i < len(s) {
		j := openTag(s, i)
		if j < 0 {
			literal(s[i:])
			break
		}
		literal(s[i:j])
		line := lineAt(s, j)
		closer := map[byte]string{'{': "}}", '%': "%}", '#': "#}"}[s[j+1]]
		k := strings.Index(s[j+2:], closer)
		if k < 0 {
			problems = append(problems, Note{Line: line, Msg: fmt.Sprintf("a Jinja tag %s… that is never closed with %s", s[j:j+2], closer)})
			break
		}
		k += j + 2
		tag := s[j : k+2]
		inner := s[j+2 : k]
		if strings.HasPrefix(inner, "-") {
			if n := len(pieces); n > 0 && pieces[n-1].field == "" {
				pieces[n-1].lit = strings.TrimRightFunc(pieces[n-1].lit, unicode.IsSpace)
				if pieces[n-1].lit == "" {
					pieces = pieces[:n-1]
				}
			}
		}
		trimRight := strings.HasSuffix(inner, "-")
		inner = strings.TrimSpace(strings.Trim(inner, "-+"))
		switch s[j+1] {
		case '#':
			comments = append(comments, Note{Line: line, Msg: "Jinja comment {# … #} dropped (it renders nothing)"})
		case '%':
			keyword, _, _ := strings.Cut(inner, " ")
			short := "{% " + keyword + " %}"
			if full := oneLineTag(tag); full != short {
				short += " (" + full + ")"
			}
			problems = append(problems, Note{Line: line, Msg: fmt.Sprintf("Jinja %s has no equivalent in the module format", short)})
		default:
			switch {
			case jinjaName.MatchString(inner) && library.ValidPlaceholderName(inner):
				pieces = append(pieces, piece{field: inner, line: line})
			case jinjaName.MatchString(inner):
				problems = append(problems, Note{Line: line, Msg: fmt.Sprintf("Jinja variable %s is not a placeholder name ([a-z_][a-z0-9_.-]*)", tag)})
			default:
				problems = append(problems, Note{Line: line, Msg: fmt.Sprintf("Jinja %s %s has no equivalent in the module format", expressionKind(inner), oneLineTag(tag))})
			}
		}
		trimNext = trimRight
		i = k + 2
	}
	return pieces, problems, comments
}

// openTag is the index of the next `{{`, `{%` or `{#` at or after i, or -1.
func openTag(s string, i int) int {
	for {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 || i+j+1 >= len(s) {
			return -1
		}
		j += i
		if c := s[j+1]; c == '{' || c == '%' || c == '#' {
			return j
		}
		i = j + 1
	}
}

// expressionKind names what makes a Jinja expression more than a variable.
func expressionKind(expr string) string {
	switch {
	case strings.Contains(expr, "|"):
		return "filter"
	case strings.ContainsAny(expr, ".["):
		return "attribute access"
	case strings.Contains(expr, "("):
		return "call"
	}
	return "expression"
}

// oneLineTag is a tag's text with its line breaks folded, for messages.
func oneLineTag(tag string) string {
	s, _ := oneLine(tag)
	return s
}

package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"golang.org/x/text/language"

	"github.com/promptdesk/promptdesk/library"
)

// wkText is one prompt text of a WeKnora template in one locale.
type wkText struct {
	text      string
	line      int // file line of the text's first line
	fieldLine int // file line of its key (content:, user:)
}

// wkLocale is what a template says in one locale.
type wkLocale struct {
	title, description string
	descriptionLine    int
	content, user      *wkText
}

// importWeKnora converts WeKnora's config/prompt_templates/*.yaml (or the
// *.yaml files of the source folder itself) into one module per template
// and locale with content: `content` becomes <layer>.<id>, the optional
// `user` prompt <layer>.<id>.user. The top-level content is in --locale
// (default: detected); i18n.<locale> gives that locale's title and
// description, and its own content when it has one. `{{name}}` stays a
// placeholder, declared as a variable. Fields with no place in the module
// format (mode, default, has_knowledge_base, …) are noted.
func importWeKnora(b *builder, fsys fs.FS) error {
	root := "."
	if isDir(fsys, "config/prompt_templates") {
		root = "config/prompt_templates"
	}
	files, hidden, err := b.walk(fsys, root)
	if err != nil {
		return err
	}
	found := false
	for _, p := range files {
		if ext := path.Ext(p); ext == ".yaml" || ext == ".yml" {
			found = true
			importWeKnoraFile(b, fsys, p)
		} else {
			b.skip(p, "not a WeKnora template file (*.yaml)")
		}
	}
	b.skipHidden(hidden)
	if !found {
		return errors.New("no WeKnora template files: expected config/prompt_templates/*.yaml")
	}
	return nil
}

func importWeKnoraFile(b *builder, fsys fs.FS, p string) {
	whole := func(n Note) { b.add(Outcome{Source: p, Status: StatusNotImported, Reasons: []Note{n}}) }
	text, n, ok := b.readText(fsys, p)
	if !ok {
		whole(n)
		return
	}
	root, bad := parseYAML(text, 1)
	if bad != nil {
		whole(*bad)
		return
	}
	fields, ok := yamlMapping(root, 1)
	if !ok {
		whole(Note{Line: 1, Msg: "expected a mapping with a templates: list"})
		return
	}
	var list []ast.Node
	listLine := 0
	for _, f := range fields {
		if f.key != "templates" {
			b.add(Outcome{Source: p, Item: "key " + f.key, Line: f.line, Status: StatusNotImported,
				Reasons: []Note{{Msg: "not a templates: list; not read"}}})
			continue
		}
		seq, ok := unwrapYAML(f.value).(*ast.SequenceNode)
		if !ok {
			whole(Note{Line: f.line, Msg: "templates: must be a list of templates"})
			return
		}
		list, listLine = seq.Values, f.line
	}
	if list == nil {
		whole(Note{Line: max(listLine, 1), Msg: "no templates: list with templates in it"})
		return
	}
	for k, item := range list {
		importWeKnoraTemplate(b, p, k, item)
	}
}

func importWeKnoraTemplate(b *builder, p string, k int, item ast.Node) {
	line := yamlLine(item, 1)
	i := b.add(Outcome{Source: p, Item: fmt.Sprintf("template #%d", k+1), Line: line, Status: StatusImported})
	fields, ok := yamlMapping(item, 1)
	if !ok {
		b.fail(i, Note{Line: line, Msg: "a template must be a mapping (id, name, description, content, …)"})
		return
	}
	var rawID string
	idLine := line
	top := &wkLocale{} // the top-level name, description and texts
	i18n := map[string]*wkLocale{}
	for _, f := range fields {
		switch f.key {
		case "id", "name", "description":
			s, ok := yamlString(f.value)
			if !ok {
				b.fail(i, Note{Line: f.line, Msg: fmt.Sprintf("field %s must be a string", f.key)})
				return
			}
			switch f.key {
			case "id":
				rawID, idLine = strings.TrimSpace(s), f.line
				b.out(i).Item = "template " + rawID
			case "name":
				top.title = s
			default:
				top.description, top.descriptionLine = s, f.line
			}
		case "content", "user":
			t, ok := weKnoraText(f)
			if !ok {
				b.fail(i, Note{Line: f.line, Msg: fmt.Sprintf("field %s must be a string", f.key)})
				return
			}
			if f.key == "content" {
				top.content = t
			} else {
				top.user = t
			}
		case "i18n":
			if !weKnoraI18n(b, i, f, i18n) {
				return
			}
		default:
			b.note(i, f.line, "field %s: %s has no place in the module format; not kept", f.key, yamlText(f.value))
		}
	}
	if rawID == "" {
		b.fail(i, Note{Line: line, Msg: "the template has no id"})
		return
	}
	name, ok := b.name(i, Note{Line: idLine}, rawID)
	if !ok {
		return
	}
	layer := b.layer(defaultLayer(p, rawID))

	// The locales with content: i18n ones first, then the top-level
	// content in --locale or its detected locale unless i18n has that one.
	parts := map[string]*wkLocale{}
	var titleOnly []string
	for loc, l := range i18n {
		if l.content != nil || l.user != nil {
			parts[loc] = l
		}
	}
	if top.content != nil || top.user != nil {
		sample := top.content
		if sample == nil {
			sample = top.user
		}
		loc := b.locale(i, sample.text)
		if _, dup := parts[loc]; dup {
			b.note(i, sample.line, "the top-level content is replaced by the i18n %s content", loc)
		} else {
			l := i18n[loc]
			if l == nil {
				l = &wkLocale{}
			}
			l.content, l.user = top.content, top.user
			parts[loc] = l
		}
	}
	if len(parts) == 0 {
		b.fail(i, Note{Line: line, Msg: "the template has no content"})
		return
	}
	for _, loc := range sortedKeys(i18n) {
		if parts[loc] == nil {
			titleOnly = append(titleOnly, loc)
		}
	}
	if len(titleOnly) > 0 {
		b.note(i, line, "i18n %s: a title and description without content of their own; not kept (WeKnora shows the one content in every language; promptdesk serves it to other locales through the fallback locale)", strings.Join(titleOnly, ", "))
	}

	locales := sortedKeys(parts)
	for _, part := range []struct {
		suffix string
		get    func(*wkLocale) *wkText
	}{
		{"", func(l *wkLocale) *wkText { return l.content }},
		{".user", func(l *wkLocale) *wkText { return l.user }},
	} {
		texts := map[string]*wkText{}
		for _, loc := range locales {
			if t := part.get(parts[loc]); t != nil {
				texts[loc] = t
			}
		}
		if len(texts) == 0 {
			continue
		}
		if part.suffix != "" {
			b.note(i, texts[sortedKeys(texts)[0]].fieldLine, "field user (the user prompt) imported as the module %s.%s%s", layer, name, part.suffix)
		}
		if !weKnoraModules(b, i, layer, name+part.suffix, texts, parts, top, part.suffix != "") {
			return
		}
	}
}

// weKnoraText reads a content or user field: its text and the file line
// where the text starts (the line after `key: |` for a block).
func weKnoraText(f yamlField) (*wkText, bool) {
	s, ok := yamlString(f.value)
	if !ok {
		return nil, false
	}
	line := f.line
	if _, block := unwrapYAML(f.value).(*ast.LiteralNode); block {
		line++
	}
	return &wkText{text: s, line: line, fieldLine: f.line}, true
}

// weKnoraI18n reads the i18n mapping into out; false when it failed i.
func weKnoraI18n(b *builder, i int, f yamlField, out map[string]*wkLocale) bool {
	locs, ok := yamlMapping(f.value, 1)
	if !ok {
		b.fail(i, Note{Line: f.line, Msg: "field i18n must map locales to name and description"})
		return false
	}
	for _, lf := range locs {
		tag, err := language.Parse(lf.key)
		if err != nil {
			b.note(i, lf.line, "i18n %s; not kept", library.LocaleProblem(lf.key))
			continue
		}
		kvs, ok := yamlMapping(lf.value, 1)
		if !ok {
			b.note(i, lf.line, "i18n %s is not a mapping; not kept", lf.key)
			continue
		}
		l := &wkLocale{}
		for _, kv := range kvs {
			switch kv.key {
			case "name", "description":
				s, ok := yamlString(kv.value)
				if !ok {
					b.note(i, kv.line, "i18n %s %s is not a string; not kept", lf.key, kv.key)
				} else if kv.key == "name" {
					l.title = s
				} else {
					l.description, l.descriptionLine = s, kv.line
				}
			case "content", "user":
				t, ok := weKnoraText(kv)
				if !ok {
					b.fail(i, Note{Line: kv.line, Msg: fmt.Sprintf("i18n %s %s must be a string", lf.key, kv.key)})
					return false
				}
				if kv.key == "content" {
					l.content = t
				} else {
					l.user = t
				}
			default:
				b.note(i, kv.line, "i18n %s %s: %s has no place in the module format; not kept", lf.key, kv.key, yamlText(kv.value))
			}
		}
		out[tag.String()] = l
	}
	return true
}

// weKnoraModules writes the module name in every locale of texts, with
// the union of their placeholders as variables (all locales of a module
// share one variable list).
func weKnoraModules(b *builder, i int, layer library.Layer, name string, texts map[string]*wkText, parts map[string]*wkLocale, top *wkLocale, user bool) bool {
	pieces := map[string][]piece{}
	var vars []string
	seen := map[string]bool{}
	for _, loc := range sortedKeys(texts) {
		ps, problems := parseDoubleBraces(texts[loc].text, texts[loc].line)
		if len(problems) > 0 {
			b.fail(i, problems...)
			return false
		}
		pieces[loc] = ps
		for _, pc := range ps {
			if pc.field != "" && !seen[pc.field] {
				seen[pc.field] = true
				v, msg, _ := variable(pc.field)
				if msg != "" {
					b.note(i, pc.line, "%s", msg)
				}
				vars = append(vars, v)
			}
		}
	}
	for _, loc := range sortedKeys(texts) {
		var w body
		for _, pc := range pieces[loc] {
			if pc.field == "" {
				w.text(pc.lit)
				continue
			}
			v, _, _ := variable(pc.field)
			if !w.placeholder(v) {
				b.fail(i, Note{Line: pc.line, Msg: fmt.Sprintf("{{%s}} follows a backslash: a module cannot hold a literal backslash right before a placeholder", pc.field)})
				return false
			}
		}
		if w.escaped > 0 {
			b.note(i, texts[loc].line, "%d literal {{name}} sequence(s) written \\{{name}} so they stay text", w.escaped)
		}
		t, d, dLine := top.title, top.description, top.descriptionLine
		if l := parts[loc]; l.title != "" {
			t = l.title
		}
		if l := parts[loc]; l.description != "" {
			d, dLine = l.description, l.descriptionLine
		}
		t, _ = oneLine(t)
		if t == "" {
			t = name
		}
		if user {
			t += " (user prompt)"
		}
		d, lines := oneLine(d)
		if lines > 1 {
			b.note(i, dLine, "description (%s) joined from %d lines into one (a module description is one line)", loc, lines)
		}
		if d == "" {
			d = b.description(i, texts[loc].text, t)
		}
		out := w.String()
		if !b.module(i, spec{layer: layer, name: name, locale: loc, title: t, description: d, variables: vars, body: out}) {
			return false
		}
	}
	return true
}

// piece is literal text or one placeholder of a source template.
type piece struct {
	lit   string
	field string
	line  int // file line of the placeholder
}

// tagLike matches text that a template engine would read as a
// placeholder but promptdesk would not: `{{ name }}`, `{{.Name}}`,
// `{{Name}}`.
var tagLike = regexp.MustCompile(`^\{\{-?\s*[.$]?[A-Za-z_][A-Za-z0-9_.-]*\s*-?\}\}`)

// parseDoubleBraces splits a text whose placeholders are `{{name}}` (the
// promptdesk syntax) into literal text and placeholders; first is the
// file line of the text's first line. Brace text that looks like a
// placeholder of another engine is a problem with its line; other braces
// are literal text.
func parseDoubleBraces(s string, first int) ([]piece, []Note) {
	var out []piece
	var problems []Note
	i := 0
	for {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			break
		}
		j += i
		if end, ok := placeholderEnd(s, j); ok {
			if j > i {
				out = append(out, piece{lit: s[i:j]})
			}
			out = append(out, piece{field: s[j+2 : end-2], line: first - 1 + lineAt(s, j)})
			i = end
			continue
		}
		if m := tagLike.FindString(s[j:]); m != "" {
			problems = append(problems, Note{Line: first - 1 + lineAt(s, j), Msg: fmt.Sprintf("%s looks like a placeholder but is not one in promptdesk (names are [a-z_][a-z0-9_.-]*, no spaces); write it {{name}}", m)})
		}
		out = append(out, piece{lit: s[i : j+1]})
		i = j + 1
	}
	if i < len(s) {
		out = append(out, piece{lit: s[i:]})
	}
	return out, problems
}

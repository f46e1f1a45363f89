package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"golang.org/x/text/language"

	"github.com/promptdesk/promptdesk/library"
)

// maiMeta is the file of a locale folder naming each prompt.
const maiMeta = ".meta.toml"

// maiPrompt is one parsed .prompt file.
type maiPrompt struct {
	outcome int
	locale  string
	name    string // file name without .prompt
	pieces  []piece
}

// maiEntry is one [name] table of a .meta.toml.
type maiEntry struct {
	line        int
	title       string
	description string
	// descriptionAt is where the description is (File and Line).
	descriptionAt Note
	extra         []Note // fields with no place in the module format
	problems      []Note // fields of the wrong type
	used          bool
}

// importMaiBot converts MaiBot's prompts/<locale>/<name>.prompt (or
// <locale>/<name>.prompt when the source folder is prompts/ itself) into
// one module per prompt and locale. The locale's .meta.toml [name] table
// gives title (display_name) and description. Python str.format fields
// `{name}` become placeholders: a field naming another prompt of the set
// is an include of that prompt's module, any other a declared variable;
// `{{` and `}}` are the literal braces `{` and `}` they render as. The
// locales of one prompt declare the union of their fields (a module has
// one variable list), and a locale that lacks one is noted.
func importMaiBot(b *builder, fsys fs.FS) error {
	if b.opts.Locale != "" {
		return errors.New("--locale does not apply to MaiBot prompts: each takes the locale of its folder (prompts/<locale>/)")
	}
	root := "."
	if isDir(fsys, "prompts") {
		root = "prompts"
	}
	files, hidden, err := b.walk(fsys, root)
	if err != nil {
		return err
	}
	metas := map[string]string{} // locale → .meta.toml path
	var prompts []*maiPrompt
	for _, p := range files {
		parts := strings.Split(rel(root, p), "/")
		isPrompt := strings.HasSuffix(p, ".prompt")
		var locale string
		if len(parts) == 2 {
			if tag, err := language.Parse(parts[0]); err == nil {
				locale = tag.String()
			}
		}
		switch {
		case len(parts) == 2 && locale == "" && (isPrompt || parts[1] == maiMeta):
			b.add(Outcome{Source: p, Status: StatusNotImported, Reasons: []Note{{Msg: "folder " + library.LocaleProblem(parts[0])}}})
		case len(parts) == 2 && parts[1] == maiMeta:
			metas[locale] = p
		case len(parts) == 2 && isPrompt:
			prompts = append(prompts, &maiPrompt{locale: locale, name: strings.TrimSuffix(parts[1], ".prompt")})
			prompts[len(prompts)-1].outcome = b.add(Outcome{Source: p, Status: StatusImported})
		case isPrompt:
			b.add(Outcome{Source: p, Status: StatusNotImported, Reasons: []Note{{Msg: "not in a locale folder: MaiBot prompts are prompts/<locale>/<name>.prompt"}}})
		default:
			b.skip(p, "not a MaiBot .prompt file or .meta.toml")
		}
	}
	b.skipHidden(hidden)
	if len(prompts) == 0 && len(metas) == 0 {
		return errors.New("no MaiBot prompts: expected prompts/<locale>/<name>.prompt and prompts/<locale>/.meta.toml")
	}

	entries := map[string]map[string]*maiEntry{} // locale → name → entry
	for _, locale := range sortedKeys(metas) {
		p := metas[locale]
		entries[locale] = readMaiMeta(b, fsys, p, b.add(Outcome{Source: p, Status: StatusUsed}))
	}

	byName := map[string][]*maiPrompt{}          // the prompts that parse
	byFile := map[string]map[string]*maiPrompt{} // every prompt file: name → locale → prompt
	for _, pr := range prompts {
		if e := entries[pr.locale][pr.name]; e != nil {
			e.used = true
		}
		if byFile[pr.name] == nil {
			byFile[pr.name] = map[string]*maiPrompt{}
		}
		byFile[pr.name][pr.locale] = pr
		if readMaiPrompt(b, fsys, pr) {
			byName[pr.name] = append(byName[pr.name], pr)
		}
	}
	ids := map[string]string{}  // prompt name → module id
	mods := map[string]string{} // prompt name → module name
	for _, name := range sortedKeys(byFile) {
		mod, ok := moduleName(name)
		for _, pr := range byName[name] {
			switch {
			case !ok:
				b.fail(pr.outcome, Note{Msg: fmt.Sprintf("name %q has no letters or digits to make a module name of ([a-z0-9._-])", name)})
			case mod != name:
				b.note(pr.outcome, 0, "name %q renamed %q (module names are lowercase [a-z0-9._-])", name, mod)
			}
		}
		if ok {
			mods[name] = mod
			ids[name] = string(b.layer(defaultLayer(name))) + "." + mod
		}
	}
	inc := &maiIncludes{byName: byName, files: byFile, ids: ids, memo: map[*maiPrompt][2]string{}, busy: map[*maiPrompt]bool{}}
	for _, name := range sortedKeys(byName) {
		if ids[name] == "" {
			continue
		}
		prs := byName[name]
		sort.Slice(prs, func(i, j int) bool { return prs[i].locale < prs[j].locale })
		vars := maiVariables(prs, inc)
		for _, pr := range prs {
			buildMaiModule(b, pr, entries[pr.locale][pr.name], metas[pr.locale] != "", mods[name], inc, vars)
		}
	}

	for _, locale := range sortedKeys(entries) {
		for _, name := range sortedKeys(entries[locale]) {
			if e := entries[locale][name]; !e.used {
				b.add(Outcome{Source: metas[locale], Item: "[" + name + "]", Line: e.line, Status: StatusNotImported,
					Reasons: []Note{{Msg: fmt.Sprintf("no prompt file %s.prompt in the %s folder", name, locale)}}})
			}
		}
	}
	return nil
}

// readMaiMeta reads one .meta.toml; problems are noted on outcome i.
func readMaiMeta(b *builder, fsys fs.FS, p string, i int) map[string]*maiEntry {
	text, n, ok := b.readText(fsys, p)
	if !ok {
		b.fail(i, n)
		return nil
	}
	var tables map[string]any
	md, err := toml.Decode(text, &tables)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			b.fail(i, Note{Line: pe.Position.Line, Msg: "not valid TOML: " + pe.Message})
		} else {
			b.fail(i, Note{Msg: "not valid TOML: " + err.Error()})
		}
		return nil
	}
	lines := tomlLines(text)
	out := map[string]*maiEntry{}
	for _, key := range md.Keys() {
		if len(key) != 1 {
			continue
		}
		name := key[0]
		table, ok := tables[name].(map[string]any)
		if !ok {
			b.note(i, lines[name], "%s is not a [table]; ignored", name)
			continue
		}
		e := &maiEntry{line: lines[name]}
		for _, k := range md.Keys() {
			if len(k) != 2 || k[0] != name {
				continue
			}
			line := lines[name+"."+k[1]]
			switch v := table[k[1]]; k[1] {
			case "display_name", "description":
				s, ok := v.(string)
				if !ok {
					e.problems = append(e.problems, Note{File: p, Line: line, Msg: fmt.Sprintf("[%s] %s is not a string; not used", name, k[1])})
					continue
				}
				if k[1] == "display_name" {
					e.title = s
				} else {
					e.description, e.descriptionAt = s, Note{File: p, Line: line}
				}
			default:
				e.extra = append(e.extra, Note{File: p, Line: line, Msg: fmt.Sprintf("[%s] %s = %v has no place in the module format; not kept", name, k[1], v)})
			}
		}
		out[name] = e
	}
	return out
}

// tomlLines finds the line of each [table] header ("name") and key
// ("name.key") of a simple TOML file, for messages.
func tomlLines(text string) map[string]int {
	lines := map[string]int{}
	table := ""
	for n, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "[["):
			end := strings.Index(l, "]")
			if end < 0 {
				continue
			}
			table = strings.Trim(strings.TrimSpace(l[1:end]), `"'`)
			lines[table] = n + 1
		case table != "" && strings.Contains(l, "=") && !strings.HasPrefix(l, "#"):
			key := strings.Trim(strings.TrimSpace(l[:strings.Index(l, "=")]), `"'`)
			lines[table+"."+key] = n + 1
		}
	}
	return lines
}

// readMaiPrompt reads and parses one .prompt file; false when it fails.
func readMaiPrompt(b *builder, fsys fs.FS, pr *maiPrompt) bool {
	p := b.out(pr.outcome).Source
	text, n, ok := b.readText(fsys, p)
	if !ok {
		b.fail(pr.outcome, n)
		return false
	}
	var fails, noEquivalent []Note
	pr.pieces, fails, noEquivalent = parsePyFormat(text)
	// Text MaiBot's own engine fails on breaks the format: each is a
	// finding, and the prompt stays out, since what was meant is unknown.
	for _, n := range fails {
		b.finding(pr.outcome, n.Line, "%s", n.Msg)
	}
	if len(fails) > 0 {
		noEquivalent = append(noEquivalent, Note{Msg: "MaiBot's own engine fails on this text (the findings below), so what was meant cannot be known"})
	}
	if len(noEquivalent) > 0 {
		b.fail(pr.outcome, noEquivalent...)
		return false
	}
	return true
}

// maiVariables is the variable list every locale of one prompt declares:
// the fields that are not includes, in order of first use over the
// locales (sorted), renamed where they are environment values.
func maiVariables(prs []*maiPrompt, inc *maiIncludes) []string {
	var vars []string
	seen := map[string]bool{}
	for _, pr := range prs {
		for _, pc := range pr.pieces {
			if pc.field == "" || inc.files[pc.field] != nil || seen[pc.field] {
				continue
			}
			seen[pc.field] = true
			name, _, _ := variable(pc.field)
			vars = append(vars, name)
		}
	}
	return vars
}

// buildMaiModule writes the module of one prompt in one locale.
// An include is written between the blank text the included prompt's
// text begins and ends with (maiIncludes), so that the line structure
// around it is MaiBot's.
func buildMaiModule(b *builder, pr *maiPrompt, e *maiEntry, hasMeta bool, mod string, inc *maiIncludes, vars []string) {
	i := pr.outcome
	var w body
	used := map[string]bool{}
	noted := map[string]bool{}
	for _, pc := range pr.pieces {
		if pc.field == "" {
			w.text(pc.lit)
			continue
		}
		var name, lead, trail string
		if inc.files[pc.field] != nil {
			// MaiBot inserts the prompt it has under that name in this
			// locale: that prompt must come in for this one to.
			id, target := inc.ids[pc.field], inc.target(pc.field, pr.locale)
			if target != nil {
				what := fmt.Sprintf("the prompt %s (%s)", pc.field, b.out(target.outcome).Source)
				if id == "" {
					b.fail(i, Note{Line: pc.line, Msg: unmetReason(what)})
					return
				}
				b.need(i, pc.line, target.outcome, what)
			}
			name = id
			var same bool
			lead, trail, same = inc.edges(pc.field, pr.locale)
			if !noted[name] {
				b.note(i, pc.line, "field {%s} names the prompt %s: included as {{%s}}", pc.field, pc.field, id)
			}
			switch {
			case !same:
				b.note(i, pc.line, "the prompt %s has no %s text and its other locales begin or end with different blank lines: the line breaks around {{%s}} are not kept", pc.field, pr.locale, id)
			case lead != "" || trail != "":
				b.note(i, pc.line, "{{%s}} is written between the blank text its prompt's text begins and ends with (%q before, %q after): MaiBot inserts the whole text", id, lead, trail)
			}
		} else {
			var msg string
			name, msg, _ = variable(pc.field)
			if msg != "" && !noted[name] {
				b.note(i, pc.line, "%s", msg)
			}
		}
		noted[name] = true
		used[name] = true
		w.text(lead)
		if !w.placeholder(name) {
			b.fail(i, Note{Line: pc.line, Msg: fmt.Sprintf("field {%s} follows a backslash: a module cannot hold a literal backslash right before a placeholder", pc.field)})
			return
		}
		w.text(trail)
	}
	for _, v := range vars {
		if !used[v] {
			b.note(i, 0, "variable %s is used by another locale of %s but not this one; declared here too (all locales of a module share one variable list)", v, pr.name)
		}
	}
	out := w.String()
	if w.escaped > 0 {
		b.note(i, 0, "%d literal {{name}} sequence(s) written \\{{name}} so they stay text", w.escaped)
	}
	title, description := pr.name, ""
	switch {
	case e == nil && hasMeta:
		b.note(i, 0, "no [%s] table in the %s %s: the title is the file name", pr.name, pr.locale, maiMeta)
	case e == nil:
		b.note(i, 0, "no %s in the %s folder: the title is the file name", maiMeta, pr.locale)
	default:
		b.out(i).Notes = append(b.out(i).Notes, e.problems...)
		b.out(i).Notes = append(b.out(i).Notes, e.extra...)
		if t, _ := oneLine(e.title); t != "" {
			title = t
		}
		d, lines := oneLine(e.description)
		if lines > 1 {
			b.noteAt(i, e.descriptionAt, "description of [%s] joined from %d lines into one (a module description is one line)", pr.name, lines)
		}
		description = d
	}
	if description == "" {
		description = b.description(i, out, title)
	}
	b.module(i, spec{
		layer:       b.layer(defaultLayer(pr.name)),
		name:        mod,
		locale:      pr.locale,
		title:       title,
		description: description,
		variables:   vars,
		body:        out,
	})
}

// defaultLayer is the layer of a prompt named name when --layer is not
// given: agent when a word of the name is agent or subagent (a system
// prompt of an agent role), else aux (a job rendered on request).
func defaultLayer(names ...string) library.Layer {
	for _, n := range names {
		for _, w := range strings.FieldsFunc(strings.ToLower(path.Base(n)), func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' }) {
			if w == "agent" || w == "subagent" {
				return library.LayerAgent
			}
		}
	}
	return library.LayerAux
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

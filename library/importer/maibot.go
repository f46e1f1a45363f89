package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"golang.org/x/text/language"

	"github.com/promptdesk/promptdesk/library"
)

// The metadata files of a locale folder, as MaiBot reads them: a
// locale-wide file whose [name] (or [templates.name]) tables describe
// prompts, and per-prompt files <name>.meta.toml and <name>.meta.json
// whose top-level keys describe the prompt of that name.
const (
	maiMeta     = ".meta.toml"
	maiMetaJSON = ".meta.json"
)

// maiPrompt is one parsed .prompt file.
type maiPrompt struct {
	outcome int
	locale  string
	name    string // file name without .prompt: the name fields use
	module  string // the path under the locale folder, folders joined with dots (chat.x)
	pieces  []piece
}

// maiEntry is the metadata of one prompt in one locale.
type maiEntry struct {
	file        string // the metadata file
	item        string // "[name]", "[templates.name]"; "" for a per-prompt file
	line        int
	outcome     int // the outcome of the per-prompt file; -1 for a table of a locale file
	title       string
	description string
	// descriptionAt is where the description is (File and Line).
	descriptionAt Note
	extra         []Note // fields with no place in the module format
	problems      []Note // fields of the wrong type
	used          bool
}

// importMaiBot converts MaiBot's prompts/<locale>/<name>.prompt (or
// <locale>/<name>.prompt when the source folder is prompts/ itself; also
// in category folders below the locale, <locale>/chat/<name>.prompt, as
// MaiBot loads them recursively) into one module per prompt and locale.
// The locale's metadata (.meta.toml [name] or [templates.name] tables,
// .meta.json, <name>.meta.toml, <name>.meta.json) gives title
// (display_name) and description. Python str.format fields `{name}`
// become placeholders: a field naming another prompt of the set is an
// include of that prompt's module, any other a declared variable; `{{`
// and `}}` are the literal braces `{` and `}` they render as. The
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
	entries := map[string]map[string]*maiEntry{} // locale → name → entry
	var metaFiles []string
	var prompts []*maiPrompt
	refused := map[string]string{} // prompt name → a .prompt file refused for its place
	for _, p := range files {
		parts := strings.Split(rel(root, p), "/")
		base := parts[len(parts)-1]
		isPrompt := strings.HasSuffix(base, ".prompt")
		isMeta := base == maiMeta || base == maiMetaJSON || strings.HasSuffix(base, maiMeta) || strings.HasSuffix(base, maiMetaJSON)
		var locale string
		if len(parts) >= 2 {
			if tag, err := language.Parse(parts[0]); err == nil {
				locale = tag.String()
			}
		}
		switch {
		case len(parts) >= 2 && locale == "" && (isPrompt || isMeta):
			if isPrompt {
				refused[strings.TrimSuffix(base, ".prompt")] = p
			}
			b.add(Outcome{Source: p, Status: StatusNotImported, Reasons: []Note{{Msg: "folder " + library.LocaleProblem(parts[0])}}})
		case locale != "" && isMeta:
			metaFiles = append(metaFiles, p)
		case locale != "" && isPrompt:
			name := strings.TrimSuffix(base, ".prompt")
			mod := strings.Join(append(slices.Clone(parts[1:len(parts)-1]), name), ".")
			pr := &maiPrompt{locale: locale, name: name, module: mod}
			pr.outcome = b.add(Outcome{Source: p, Status: StatusImported})
			prompts = append(prompts, pr)
		case isPrompt:
			refused[strings.TrimSuffix(base, ".prompt")] = p
			b.add(Outcome{Source: p, Status: StatusNotImported, Reasons: []Note{{Msg: "not in a locale folder: MaiBot prompts are prompts/<locale>/<name>.prompt"}}})
		default:
			b.skip(p, "not a MaiBot .prompt file or prompt metadata (.meta.toml, .meta.json)")
		}
	}
	b.skipHidden(hidden)
	if len(prompts) == 0 && len(metaFiles) == 0 {
		return errors.New("no MaiBot prompts: expected prompts/<locale>/<name>.prompt and prompts/<locale>/.meta.toml")
	}

	// Locale-wide files first, so that a per-prompt file, the more
	// specific, wins (noted).
	sort.SliceStable(metaFiles, func(i, j int) bool {
		return maiLocaleWide(metaFiles[i]) && !maiLocaleWide(metaFiles[j])
	})
	for _, p := range metaFiles {
		locale, _ := language.Parse(strings.Split(rel(root, p), "/")[0])
		if entries[locale.String()] == nil {
			entries[locale.String()] = map[string]*maiEntry{}
		}
		readMaiMetaFile(b, fsys, p, entries[locale.String()])
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
		if other := byFile[pr.name][pr.locale]; other != nil {
			b.fail(pr.outcome, Note{Msg: fmt.Sprintf("MaiBot already has a prompt %s in %s (%s): fields name prompts by file name, so the two cannot both be used", pr.name, pr.locale, b.out(other.outcome).Source)})
			continue
		}
		byFile[pr.name][pr.locale] = pr
		if readMaiPrompt(b, fsys, pr) {
			byName[pr.name] = append(byName[pr.name], pr)
		}
	}
	ids := map[string]string{}  // prompt name → module id
	mods := map[string]string{} // prompt name → module name
	for _, name := range sortedKeys(byFile) {
		// The module name comes from the first locale's path; a locale
		// that files the prompt in another folder is noted.
		first := byFile[name][sortedKeys(byFile[name])[0]]
		mod, ok := moduleName(first.module)
		for _, pr := range byName[name] {
			switch {
			case !ok:
				b.fail(pr.outcome, Note{Msg: fmt.Sprintf("name %q has no letters or digits to make a module name of ([a-z0-9._-])", first.module)})
			case pr.module != first.module:
				b.note(pr.outcome, 0, "module name %q from %s (all locales of a prompt are one module)", mod, b.out(first.outcome).Source)
			case mod != pr.module:
				b.note(pr.outcome, 0, "name %q renamed %q (module names are lowercase [a-z0-9._-])", pr.module, mod)
			}
		}
		if ok {
			mods[name] = mod
			ids[name] = string(b.layer(defaultLayer(name))) + "." + mod
		}
	}
	inc := &maiIncludes{byName: byName, files: byFile, ids: ids, refused: refused,
		maibot: b.opts.MaiBotLocale, serve: b.opts.FallbackLocale,
		memo: map[*maiPrompt][2]string{}, busy: map[*maiPrompt]bool{}}
	for _, name := range sortedKeys(byName) {
		if ids[name] == "" {
			continue
		}
		prs := byName[name]
		sort.Slice(prs, func(i, j int) bool { return prs[i].locale < prs[j].locale })
		vars := maiVariables(prs, inc)
		for _, pr := range prs {
			buildMaiModule(b, pr, entries[pr.locale][pr.name], mods[name], inc, vars)
		}
	}

	for _, locale := range sortedKeys(entries) {
		for _, name := range sortedKeys(entries[locale]) {
			e := entries[locale][name]
			if e.used {
				continue
			}
			reason := Note{Msg: fmt.Sprintf("no prompt file %s.prompt in the %s folder", name, locale)}
			if e.outcome >= 0 {
				b.fail(e.outcome, reason)
				continue
			}
			b.add(Outcome{Source: e.file, Item: e.item, Line: e.line, Status: StatusNotImported, Reasons: []Note{reason}})
		}
	}
	return nil
}

// maiLocaleWide reports whether the metadata file p describes many
// prompts (.meta.toml, .meta.json) rather than the one it is named after.
func maiLocaleWide(p string) bool {
	base := path.Base(p)
	return base == maiMeta || base == maiMetaJSON
}

// readMaiMetaFile reads one metadata file into entries (by prompt name).
// A locale-wide file is an outcome "used" whose [name] and
// [templates.name] tables are entries; a per-prompt file is the entry of
// its prompt, an outcome of its own ("used" once its prompt is found).
func readMaiMetaFile(b *builder, fsys fs.FS, p string, entries map[string]*maiEntry) {
	wide := maiLocaleWide(p)
	i := b.add(Outcome{Source: p, Status: StatusUsed})
	text, n, ok := b.readText(fsys, p)
	if !ok {
		b.fail(i, n)
		return
	}
	var tables map[string]any
	var lines map[string]int
	if strings.HasSuffix(p, ".json") {
		if err := json.Unmarshal([]byte(text), &tables); err != nil {
			line := 0
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line = lineAt(text, int(se.Offset))
			}
			b.fail(i, Note{Line: line, Msg: "not a JSON object: " + err.Error()})
			return
		}
		lines = jsonLines(text)
	} else {
		if _, err := toml.Decode(text, &tables); err != nil {
			var pe toml.ParseError
			if errors.As(err, &pe) {
				b.fail(i, Note{Line: pe.Position.Line, Msg: "not valid TOML: " + pe.Message})
			} else {
				b.fail(i, Note{Msg: "not valid TOML: " + err.Error()})
			}
			return
		}
		lines = tomlLines(text)
	}
	put := func(name string, e *maiEntry) {
		if prev := entries[name]; prev != nil {
			b.note(i, e.line, "%s is also described in %s%s; this file is used", name, prev.file, itemSuffix(prev.item))
			if prev.outcome >= 0 {
				b.fail(prev.outcome, Note{Msg: fmt.Sprintf("%s describes %s too and is used instead", p, name)})
			}
		}
		entries[name] = e
	}
	if !wide {
		name := strings.TrimSuffix(strings.TrimSuffix(path.Base(p), maiMeta), maiMetaJSON)
		e := maiEntryOf(p, "", tables, lines)
		e.outcome = i
		put(name, e)
		return
	}
	for _, name := range sortedKeys(tables) {
		table, ok := tables[name].(map[string]any)
		switch {
		case !ok:
			b.note(i, lines[name], "%s is not a table; ignored", name)
		case name == "templates":
			for _, sub := range sortedKeys(table) {
				t, ok := table[sub].(map[string]any)
				if !ok {
					b.note(i, lines["templates."+sub], "templates.%s is not a table; ignored", sub)
					continue
				}
				e := maiEntryOf(p, "templates."+sub, t, lines)
				e.outcome = -1
				put(sub, e)
			}
		default:
			e := maiEntryOf(p, name, table, lines)
			e.outcome = -1
			put(name, e)
		}
	}
}

// maiEntryOf reads the keys of table, the metadata of a prompt found
// under key (the table's path, "" for a whole per-prompt file) in file p;
// lines gives the line of each key path.
func maiEntryOf(p, key string, table map[string]any, lines map[string]int) *maiEntry {
	at := func(k string) string {
		if key == "" {
			return k
		}
		return key + "." + k
	}
	shown := "[" + key + "] "
	if key == "" {
		shown = ""
	}
	e := &maiEntry{file: p, line: lines[key]}
	if key != "" {
		e.item = "[" + key + "]"
	}
	for _, k := range sortedKeys(table) {
		line := lines[at(k)]
		switch v := table[k]; k {
		case "display_name", "description":
			s, ok := v.(string)
			if !ok {
				e.problems = append(e.problems, Note{File: p, Line: line, Msg: fmt.Sprintf("%s%s is not a string; not used", shown, k)})
				continue
			}
			if k == "display_name" {
				e.title = s
			} else {
				e.description, e.descriptionAt = s, Note{File: p, Line: line}
			}
		default:
			e.extra = append(e.extra, Note{File: p, Line: line, Msg: fmt.Sprintf("%s%s = %v has no place in the module format; not kept", shown, k, v)})
		}
	}
	sort.SliceStable(e.extra, func(i, j int) bool { return e.extra[i].Line < e.extra[j].Line })
	return e
}

// tomlLines finds the line of each [table] header ("name", "templates.x")
// and key ("name.key"; top-level keys as "key") of a simple TOML file, for
// messages.
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
		case strings.Contains(l, "=") && !strings.HasPrefix(l, "#"):
			key := strings.Trim(strings.TrimSpace(l[:strings.Index(l, "=")]), `"'`)
			if table != "" {
				key = table + "." + key
			}
			if _, seen := lines[key]; !seen {
				lines[key] = n + 1
			}
		}
	}
	return lines
}

// jsonLines finds the line of each key of a JSON object nested up to two
// deep ("name", "name.key", "templates.name.key"), for messages: the
// first line holding the quoted key after its parent's line.
func jsonLines(text string) map[string]int {
	lines := map[string]int{}
	src := strings.Split(text, "\n")
	find := func(key string, from int) int {
		q := `"` + key + `"`
		for n := from; n < len(src); n++ {
			if strings.Contains(src[n], q) {
				return n + 1
			}
		}
		return 0
	}
	var walk func(prefix string, v any, from int)
	walk = func(prefix string, v any, from int) {
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, sub := range obj {
			full := k
			if prefix != "" {
				full = prefix + "." + k
			}
			line := find(k, from)
			lines[full] = line
			if line > 0 && strings.Count(full, ".") < 2 {
				walk(full, sub, line)
			}
		}
	}
	var root any
	if json.Unmarshal([]byte(text), &root) == nil {
		walk("", root, 0)
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
func buildMaiModule(b *builder, pr *maiPrompt, e *maiEntry, mod string, inc *maiIncludes, vars []string) {
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
		if src, ok := inc.refused[pc.field]; ok && inc.files[pc.field] == nil {
			b.fail(i, Note{Line: pc.line, Msg: unmetReason(fmt.Sprintf("the prompt %s (%s)", pc.field, src))})
			return
		}
		if inc.files[pc.field] != nil {
			// MaiBot inserts the prompt it has under that name in this
			// locale: that prompt must come in for this one to.
			id, target := inc.ids[pc.field], inc.target(pc.field, pr.locale)
			if why := inc.unresolved(pc.field, pr.locale, func(t *maiPrompt) string { return b.out(t.outcome).Source }); why != "" {
				b.fail(i, Note{Line: pc.line, Msg: why})
				return
			}
			if target != nil {
				what := fmt.Sprintf("the prompt %s (%s)", pc.field, b.out(target.outcome).Source)
				if id == "" {
					b.fail(i, Note{Line: pc.line, Msg: unmetReason(what)})
					return
				}
				b.need(i, pc.line, target.outcome, what)
			}
			name = id
			lead, trail = inc.edges(pc.field, pr.locale)
			if !noted[name] {
				b.note(i, pc.line, "field {%s} names the prompt %s: included as {{%s}}", pc.field, pc.field, id)
			}
			if lead != "" || trail != "" {
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
	case e == nil:
		b.note(i, 0, "no [%s] table in the %s %s or %s, and no %s%s or %s%s: the title is the file name", pr.name, pr.locale, maiMeta, maiMetaJSON, pr.name, maiMeta, pr.name, maiMetaJSON)
	default:
		if e.outcome >= 0 {
			b.note(i, 0, "title and description from %s", e.file)
		}
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

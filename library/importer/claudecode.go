package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/mdcode"
)

// ClaudeCodeSource is the upstream source name of the claude-code
// catalogue: the `upstream.source` of its modules and the source
// ReadClaudeCodeCatalogue returns.
const ClaudeCodeSource = "claude-code"

// claudeCodeFolder is the catalogue's folder of fragments in its repository.
const claudeCodeFolder = "system-prompts"

// ccKind is one fragment kind of the catalogue: its file-name prefix
// (without the dash), the header name's prefix before the colon, and
// the layer its modules take.
type ccKind struct {
	prefix string
	title  string
	layer  library.Layer
}

// ccKinds are the fragment kinds, longest prefix first where one prefix
// starts another. Tool descriptions and parameters are read with a tool;
// agent prompts are the prompts of subagents; the main system prompt's
// sections are the base every assembly starts from; system reminders and
// data (reference texts, templates) are inserted beside the conversation,
// the aux layer; a skill is a task the model is given on demand (a manual
// trigger: a profile lists it).
var ccKinds = []ccKind{
	{"tool-description", "Tool Description", library.LayerTool},
	{"tool-parameter", "Tool Parameter", library.LayerTool},
	{"system-prompt", "System Prompt", library.LayerBase},
	{"system-reminder", "System Reminder", library.LayerAux},
	{"agent-prompt", "Agent Prompt", library.LayerAgent},
	{"skill", "Skill", library.LayerTask},
	{"data", "Data", library.LayerAux},
}

// CatalogueEntry is one fragment of an external catalogue, whether or not
// it could be imported.
type CatalogueEntry struct {
	// Name is the fragment's upstream name (header `name`), or the file
	// stem when the header gives none.
	Name string
	// Kind is the fragment kind, e.g. "tool-description"; "" when neither
	// the file name nor the header name tells it.
	Kind string
	// Version is the upstream version (ccVersion), "" when absent.
	Version string
	// Path is the fragment file's slash path relative to SRC.
	Path string
	// Text is the fragment body without its header, exactly as upstream
	// wrote it but for line endings, read as LF (and a byte order mark
	// removed); "" when the file is not UTF-8 text.
	Text string
	// ModuleID is the module id it imports as; "" when not imported.
	ModuleID string
}

// ReadClaudeCodeCatalogue reads the claude-code catalogue at src (the
// repository, or its system-prompts folder) with the importer's default
// options and returns its source name (ClaudeCodeSource) and one entry
// per fragment file (*.md in the catalogue folder), in path order. The
// error is for a folder that cannot be read or holds no fragment; every
// fragment is an entry, imported or not.
func ReadClaudeCodeCatalogue(src string) (source string, entries []CatalogueEntry, err error) {
	b := newBuilder(FormatClaudeCode, Options{})
	frags, err := readClaudeCode(b, os.DirFS(src))
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", src, err)
	}
	if err := b.finish(); err != nil {
		return "", nil, fmt.Errorf("%s: %w", src, err)
	}
	byPath := map[string]Outcome{}
	for _, o := range b.res.Outcomes {
		byPath[o.Source] = o
	}
	for _, f := range frags {
		e := CatalogueEntry{Name: f.name, Kind: f.kind, Version: f.version, Path: f.path, Text: f.text}
		if o := byPath[f.path]; o.Status == StatusImported && len(o.Modules) == 1 {
			e.ModuleID, _ = library.IDFromFileName(path.Base(o.Modules[0]))
		}
		entries = append(entries, e)
	}
	return ClaudeCodeSource, entries, nil
}

// ccFragment is one fragment file as read.
type ccFragment struct {
	path    string
	name    string
	kind    string
	version string
	text    string
}

// importClaudeCode converts the catalogue's fragments into one module
// each (docs/importers.md).
func importClaudeCode(b *builder, fsys fs.FS) error {
	_, err := readClaudeCode(b, fsys)
	return err
}

// readClaudeCode records an outcome for every file under fsys and returns
// the fragments, in path order. The catalogue folder is fsys's
// system-prompts folder when it has one, else fsys itself.
func readClaudeCode(b *builder, fsys fs.FS) ([]ccFragment, error) {
	root := "."
	if isDir(fsys, claudeCodeFolder) {
		root = claudeCodeFolder
	}
	files, hidden, err := b.walk(fsys, ".")
	if err != nil {
		return nil, err
	}
	var frags []ccFragment
	for _, f := range files {
		switch {
		case root != "." && !strings.HasPrefix(f, root+"/"):
			b.skip(f, "not in the catalogue folder "+claudeCodeFolder+"/")
		case strings.Contains(rel(root, f), "/"):
			b.skip(f, "in a subfolder: the catalogue's fragments are the files of one flat folder")
		case path.Ext(f) != ".md":
			b.skip(f, "not a fragment (fragments are .md files)")
		default:
			frags = append(frags, importFragment(b, fsys, f))
		}
	}
	b.skipHidden(hidden)
	if len(frags) == 0 {
		return nil, fmt.Errorf("no fragment files: a claude-code catalogue is a folder %s/ of .md files, each starting with an <!-- … --> header", claudeCodeFolder)
	}
	return frags, nil
}

// ccHeader is a fragment's header as read: fields by key, with the line
// of each key in the file.
type ccHeader struct {
	fields   []yamlField
	bodyLine int // file line where the body starts
}

// splitHeader cuts the header comment off text: the first line is
// exactly `<!--` and a later line exactly `-->` closes it. found is false
// when the first line is no `<!--`; problem is set for one never closed.
func splitHeader(text string) (yamlText, body string, bodyLine int, found bool, problem *Note) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "<!--" {
		return "", text, 1, false, nil
	}
	off, line := 0, 2
	for {
		cur, after, more := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(cur, " \t") == "-->" {
			if !more {
				return rest[:off], "", line + 1, true, nil
			}
			return rest[:off], after, line + 1, true, nil
		}
		if !more {
			return "", "", 0, true, &Note{Line: 1, Msg: "the header <!-- is never closed by a line -->"}
		}
		off += len(cur) + 1
		line++
	}
}

// importFragment converts one fragment file, recording its outcome.
func importFragment(b *builder, fsys fs.FS, p string) ccFragment {
	stem := strings.TrimSuffix(path.Base(p), ".md")
	frag := ccFragment{path: p, name: stem}
	i := b.add(Outcome{Source: p, Status: StatusImported})
	text, n, ok := b.readText(fsys, p)
	if !ok {
		frag.kind = kindOf(stem, "")
		b.fail(i, n)
		return frag
	}
	yml, bodyText, bodyLine, found, problem := splitHeader(text)
	frag.text = bodyText
	if problem != nil {
		frag.kind = kindOf(stem, "")
		b.fail(i, *problem)
		return frag
	}
	var title, description string
	var vars []ccVar
	fail := func(n Note) ccFragment {
		frag.kind = kindOf(stem, frag.name)
		b.fail(i, n)
		return frag
	}
	if !found {
		b.finding(i, 1, "no header: a fragment starts with an <!-- … --> comment holding its name, description and ccVersion")
	} else {
		fields, bad := readHeader(yml)
		if bad != nil {
			return fail(*bad)
		}
		for _, f := range fields {
			switch f.key {
			case "name":
				title, _ = yamlString(f.value)
				frag.name = headerName(title, stem)
			case "description":
				description, _ = yamlString(f.value)
			case "ccVersion":
				frag.version, _ = yamlString(f.value)
			case "variables":
				var bad *Note
				if vars, bad = headerVariables(f); bad != nil {
					return fail(*bad)
				}
			default:
				b.note(i, f.line, "header field %s %s has no place in the module format; not kept", f.key, yamlText(f.value))
			}
		}
		for _, k := range []struct {
			key string
			v   string
		}{{"name", title}, {"description", description}, {"ccVersion", frag.version}} {
			if strings.TrimSpace(k.v) == "" {
				b.finding(i, 1, "the header gives no %s", k.key)
			}
		}
	}
	frag.kind = kindOf(stem, frag.name)
	kind, ok := lookupKind(frag.kind)
	if !ok {
		return fail(Note{Msg: fmt.Sprintf("unknown fragment kind: the file name starts with none of %s, nor does the header name", kindPrefixes())})
	}
	conv, problems := convertFragment(bodyText, bodyLine, vars)
	if len(problems) > 0 {
		b.fail(i, problems...)
		return frag
	}
	b.out(i).Notes = append(b.out(i).Notes, conv.notes...)
	if strings.TrimSpace(title) == "" {
		title = stem
	}
	if d, lines := oneLine(description); d != "" {
		if lines > 1 {
			b.note(i, 0, "the description's %d lines joined into one", lines)
		}
		description = d
	} else {
		description = b.description(i, conv.body, title)
	}
	layer := b.layer(kind.layer)
	name, ok := b.name(i, Note{}, stem)
	if !ok {
		return frag
	}
	name = fitName(b, i, layer, name)
	s := spec{
		layer:       layer,
		name:        name,
		locale:      b.locale(i, conv.body),
		title:       strings.TrimSpace(title),
		description: description,
		variables:   conv.variables,
		body:        conv.body,
		upstream:    &library.Upstream{Source: ClaudeCodeSource, Name: strings.TrimSpace(title), Version: strings.TrimSpace(frag.version)},
	}
	if layer == library.LayerTask {
		s.manual = true
		b.note(i, 0, "a task module with a manual trigger: it enters a prompt when a profile lists it")
	}
	b.module(i, s)
	return frag
}

// headerName is the fragment name the header gives, else the file stem.
func headerName(name, stem string) string {
	if strings.TrimSpace(name) == "" {
		return stem
	}
	return strings.TrimSpace(name)
}

// readHeader parses the header's YAML; header lines start at file line 2.
func readHeader(yml string) ([]yamlField, *Note) {
	if strings.TrimSpace(yml) == "" {
		return nil, nil
	}
	node, bad := parseYAML(yml, 2)
	if bad != nil {
		bad.Msg = "header: " + bad.Msg
		return nil, bad
	}
	fields, ok := yamlMapping(node, 2)
	if !ok {
		return nil, &Note{Line: 2, Msg: "header: expected key: value lines (name, description, ccVersion, variables)"}
	}
	return fields, nil
}

// ccVar is a variable the header declares: its name as written, the
// placeholder it becomes and the header line.
type ccVar struct {
	raw, name string
	line      int
}

// headerVariables reads the header's variables list.
func headerVariables(f yamlField) ([]ccVar, *Note) {
	if yamlNull(f.value) {
		return nil, nil
	}
	items, isList := yamlList(f.value)
	if !isList {
		return nil, &Note{Line: f.line, Msg: "header: variables must be a list of names"}
	}
	var out []ccVar
	for _, it := range items {
		s, ok := yamlString(it)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, &Note{Line: yamlLine(it, 2), Msg: fmt.Sprintf("header: variables holds %s, which is not a name", yamlText(it))}
		}
		out = append(out, ccVar{raw: s, line: yamlLine(it, 2)})
	}
	return out, nil
}

// kindOf is the fragment kind told by the file stem's prefix, else by the
// header name's prefix before its colon ("Tool Description: Bash"); ""
// when neither names a kind.
func kindOf(stem, name string) string {
	for _, k := range ccKinds {
		if strings.HasPrefix(stem, k.prefix+"-") {
			return k.prefix
		}
	}
	if before, _, ok := strings.Cut(name, ":"); ok {
		for _, k := range ccKinds {
			if strings.EqualFold(strings.TrimSpace(before), k.title) {
				return k.prefix
			}
		}
	}
	return ""
}

func lookupKind(prefix string) (ccKind, bool) {
	for _, k := range ccKinds {
		if k.prefix == prefix {
			return k, true
		}
	}
	return ccKind{}, false
}

func kindPrefixes() string {
	names := make([]string, len(ccKinds))
	for i, k := range ccKinds {
		names[i] = k.prefix + "-"
	}
	return strings.Join(names, ", ")
}

// fitName shortens name so that the id <layer>.<name> fits
// library.MaxIDLength: the name is cut and ends in 8 hex digits of the
// SHA-256 of the whole name, so two long names stay apart; noted.
func fitName(b *builder, i int, layer library.Layer, name string) string {
	room := library.MaxIDLength - len(layer) - 1
	if len(name) <= room {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	short := strings.TrimRight(name[:room-9], "-._") + "-" + hex.EncodeToString(sum[:4])
	b.note(i, 0, "module name %q shortened to %q (a module id has at most %d bytes)", name, short, library.MaxIDLength)
	return short
}

// ccConversion is a fragment body as a module body.
type ccConversion struct {
	body      string
	variables []string
	notes     []Note
}

// jsIdent is a JavaScript identifier, the only `${…}` a placeholder can
// stand for.
var jsIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// upperPlaceholder is a `{{NAME}}` placeholder of the catalogue.
var upperPlaceholder = regexp.MustCompile(`^\{\{([A-Z][A-Z0-9_]*)\}\}`)

// convertFragment turns a fragment body (starting at file line first)
// into module text: `${NAME}` of a declared variable and `{{NAME}}`
// become placeholders; any other `${IDENT}` is literal text; a `${…}`
// expression is literal inside code (a fenced block or a code span) when
// it uses no declared variable — shell syntax such as ${HOME:-/tmp} —
// and otherwise cannot be expressed: each is a problem with its line.
func convertFragment(text string, first int, declared []ccVar) (ccConversion, []Note) {
	var c ccConversion
	var problems []Note
	at := func(off int) int { return first - 1 + lineAt(text, off) }
	byRaw := map[string]string{}
	rawOf := map[string]ccVar{}
	var order []string
	add := func(v ccVar) bool {
		if _, ok := byRaw[v.raw]; ok {
			return true
		}
		name, note, ok := variable(strings.ToLower(v.raw))
		if !ok {
			problems = append(problems, Note{Line: v.line, Msg: fmt.Sprintf("variable %s does not make a placeholder name ([a-z_][a-z0-9_.-]*) lower-cased", v.raw)})
			return false
		}
		if prev, taken := rawOf[name]; taken {
			problems = append(problems, Note{Line: v.line, Msg: fmt.Sprintf("variables %s (line %d) and %s both become the placeholder {{%s}}", prev.raw, prev.line, v.raw, name)})
			return false
		}
		if note != "" {
			c.notes = append(c.notes, Note{Line: v.line, Msg: note})
		}
		byRaw[v.raw] = name
		rawOf[name] = v
		order = append(order, name)
		return true
	}
	isDeclared := map[string]bool{}
	for _, v := range declared {
		if isDeclared[v.raw] {
			c.notes = append(c.notes, Note{Line: v.line, Msg: fmt.Sprintf("variable %s declared twice; declared once", v.raw)})
			continue
		}
		isDeclared[v.raw] = true
		add(v)
	}
	used := map[string]bool{}
	code := mdcode.CodeLines(text)
	inCode := func(off int) bool {
		if code[lineAt(text, off)] {
			return true
		}
		start := strings.LastIndexByte(text[:off], '\n') + 1
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		return mdcode.InSpan(mdcode.Spans(text[start:off+end]), off-start)
	}
	var w body
	literals, unclosed := 0, 0
	from := 0
	for k := 0; k < len(text); k++ {
		switch {
		case strings.HasPrefix(text[k:], "${"):
			if k > 0 && text[k-1] == '\\' {
				continue // an escaped ${ is text as it stands
			}
			end := jsExprEnd(text, k)
			if end < 0 {
				if !inCode(k) {
					problems = append(problems, Note{Line: at(k), Msg: "${ is never closed by }: the text is cut short or not the catalogue's"})
				}
				// Each unclosed ${ is a scan to the end of the text: a
				// bound keeps a text made of them from taking minutes.
				if unclosed++; unclosed > maxUnclosed {
					return c, append(problems, Note{Line: at(k), Msg: fmt.Sprintf("more than %d ${ are never closed by }: the text is not the catalogue's", maxUnclosed)})
				}
				continue
			}
			inner := text[k+2 : end-1]
			expr := strings.TrimSpace(inner)
			if jsIdent.MatchString(expr) {
				if !isDeclared[expr] {
					literals++
					k = end - 1
					continue
				}
				w.text(text[from:k])
				used[expr] = true
				if !w.placeholder(byRaw[expr]) {
					problems = append(problems, Note{Line: at(k), Msg: fmt.Sprintf("${%s} follows a backslash: a module cannot hold a literal backslash right before a placeholder", expr)})
				}
				from, k = end, end-1
				continue
			}
			refs := jsRefs(inner, isDeclared)
			switch {
			case len(refs) > 0:
				what := "variable " + refs[0]
				if len(refs) > 1 {
					what = "variables " + strings.Join(refs, ", ")
				}
				problems = append(problems, Note{Line: at(k), Msg: fmt.Sprintf("the JavaScript %s ${%s} uses the declared %s: the module format has placeholders, no expressions", jsKind(expr), shortExpr(expr), what)})
			case !inCode(k):
				problems = append(problems, Note{Line: at(k), Msg: fmt.Sprintf("the JavaScript %s ${%s} stands outside code, so upstream computes it: the module format has placeholders, no expressions", jsKind(expr), shortExpr(expr))})
			default:
				literals++
			}
			k = end - 1
		case strings.HasPrefix(text[k:], "{{"):
			m := upperPlaceholder.FindStringSubmatch(text[k:])
			if m == nil {
				continue
			}
			raw := m[1]
			if !isDeclared[raw] && byRaw[raw] == "" {
				if !add(ccVar{raw: raw, line: at(k)}) {
					continue
				}
				c.notes = append(c.notes, Note{Line: at(k), Msg: fmt.Sprintf("{{%s}} is not declared in the header; declared as the variable %s", raw, byRaw[raw])})
			}
			used[raw] = true
			w.text(text[from:k])
			if !w.placeholder(byRaw[raw]) {
				problems = append(problems, Note{Line: at(k), Msg: fmt.Sprintf("{{%s}} follows a backslash: a module cannot hold a literal backslash right before a placeholder", raw)})
			}
			from = k + len(m[0])
			k = from - 1
		}
	}
	w.text(text[from:])
	for _, v := range declared {
		if !used[v.raw] && isDeclared[v.raw] {
			c.notes = append(c.notes, Note{Line: v.line, Msg: fmt.Sprintf("variable %s is declared in the header but the text does not use it as ${%s}; kept declared", v.raw, v.raw)})
			used[v.raw] = true
		}
	}
	if literals > 0 {
		c.notes = append(c.notes, Note{Msg: fmt.Sprintf("%d ${…} kept as literal text: a name the header does not declare, or shell syntax inside code", literals)})
	}
	c.body = w.String()
	if w.escaped > 0 {
		c.notes = append(c.notes, Note{Msg: fmt.Sprintf("%d literal {{name}} sequence(s) written \\{{name}} so they stay text", w.escaped)})
	}
	c.variables = order
	return c, problems
}

// maxUnclosed is how many `${` left open a fragment may hold (shell
// text in code may have a few).
const maxUnclosed = 100

// jsExprEnd is the index just past the `}` that closes the `${` at
// s[i], or -1: braces nest, and quoted strings (to the end of their line)
// and template literals (with their own `${…}`) are passed over.
func jsExprEnd(s string, i int) int {
	depth := 0
	for k := i + 2; k < len(s); k++ {
		switch c := s[k]; c {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return k + 1
			}
			depth--
		case '\'', '"':
			if e := quoteEnd(s, k); e > 0 {
				k = e
			}
		case '`':
			e := templateEnd(s, k)
			if e < 0 {
				return -1
			}
			k = e
		}
	}
	return -1
}

// quoteEnd is the index of the quote closing the string opened at s[k]
// on the same line, or -1 (then the quote is a character of its own).
func quoteEnd(s string, k int) int {
	for j := k + 1; j < len(s) && s[j] != '\n'; j++ {
		switch s[j] {
		case '\\':
			j++
		case s[k]:
			return j
		}
	}
	return -1
}

// templateEnd is the index of the backtick closing the template literal
// opened at s[k], or -1.
func templateEnd(s string, k int) int {
	for j := k + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == '`':
			return j
		case strings.HasPrefix(s[j:], "${"):
			e := jsExprEnd(s, j)
			if e < 0 {
				return -1
			}
			j = e - 1
		}
	}
	return -1
}

// jsName finds identifiers in an expression.
var jsName = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)

// jsRefs are the declared variables an expression names, in order, once
// each; a name after a dot is a member, not a variable.
func jsRefs(expr string, declared map[string]bool) []string {
	var out []string
	for _, m := range jsName.FindAllStringIndex(expr, -1) {
		name := expr[m[0]:m[1]]
		if !declared[name] || m[0] > 0 && expr[m[0]-1] == '.' || slices.Contains(out, name) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// jsKind names what makes an expression more than a name.
func jsKind(expr string) string {
	switch {
	case strings.Contains(expr, "?") && strings.Contains(expr, ":"):
		return "ternary"
	case strings.Contains(expr, "("):
		return "call"
	case strings.ContainsAny(expr, ".["):
		return "member access"
	case strings.ContainsAny(expr, "+-*/%"):
		return "arithmetic"
	}
	return "expression"
}

// shortExpr is an expression on one line, cut at 80 characters.
func shortExpr(expr string) string {
	s, _ := oneLine(expr)
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

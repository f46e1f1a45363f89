// Package importer turns other systems' prompt files into promptdesk
// module files (docs/importers.md): Agent Skills folders, MaiBot prompt
// folders, WeKnora prompt-template YAML files, index.json + Jinja
// template sets and the claude-code catalogue of system-prompt fragments. Each converter is a pure function over an fs.FS rooted at
// the source folder; its Result holds the module files it produced (in the
// library layout, checked with library.Load) and one Outcome per source
// file or entry: imported, not imported (with the reason and line),
// attached (a resource file of an item), used (a manifest) or skipped
// (not part of the format). Nothing is dropped silently: what has
// no place in the module format is named in an Outcome's notes.
package importer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/promptdesk/promptdesk/library"
)

// Format names a source format (the --from value of `promptdesk import`).
type Format string

// The source formats.
const (
	// FormatSkills is a folder of Agent Skills: <name>/SKILL.md with YAML
	// frontmatter (name, description, optional fields) and a markdown body.
	FormatSkills Format = "skills"
	// FormatMaiBot is MaiBot's prompts/<locale>/<name>.prompt (Python
	// str.format templates) with <locale>/.meta.toml.
	FormatMaiBot Format = "maibot"
	// FormatWeKnora is WeKnora's config/prompt_templates/*.yaml.
	FormatWeKnora Format = "weknora"
	// FormatJinjaIndex is an index.json declaring templates {name: {path,
	// variables}} plus the Jinja .md files it names.
	FormatJinjaIndex Format = "jinja-index"
	// FormatClaudeCode is the claude-code-system-prompts catalogue: a flat
	// system-prompts/ folder of markdown fragments, each opening with an
	// <!-- … --> header (name, description, ccVersion, variables).
	FormatClaudeCode Format = "claude-code"
)

// Formats lists the formats Import accepts.
var Formats = []Format{FormatSkills, FormatMaiBot, FormatWeKnora, FormatJinjaIndex, FormatClaudeCode}

// Options tune a conversion. The zero value is the default of every format.
type Options struct {
	// Layer replaces the format's default layer (task for skills; agent for
	// agent prompts, else aux, for the others). "" keeps the default.
	Layer library.Layer
	// Locale is the BCP 47 locale of text whose source names none (skills,
	// Jinja templates, WeKnora's top-level content). "" detects it from the
	// script of each text: Japanese kana → ja-JP, Hangul → ko-KR, Han →
	// zh-CN, else en-US. MaiBot sources take their locale from the folder
	// and refuse this option.
	Locale string
	// Hidden enters hidden folders (names starting with a dot, such as
	// .claude/skills) except .git; by default they are listed once as
	// skipped and not read.
	Hidden bool
	// MaiBotLocale is MaiBot's default locale: the locale whose prompt
	// MaiBot inserts where the includer's locale has none of that name.
	// "" is zh-CN, MaiBot's own default.
	MaiBotLocale string
	// FallbackLocale is the locale promptdesk serves where the requested
	// one has no text (serve's --fallback-locale); "" is en-US. A MaiBot
	// include that promptdesk would fill from another locale than MaiBot
	// does is refused at import.
	FallbackLocale string
}

// Status is what became of one source item.
type Status string

// The statuses of an Outcome.
const (
	// StatusImported: the item became the module files in Outcome.Modules.
	StatusImported Status = "imported"
	// StatusNotImported: the item belongs to the format but could not be
	// mapped; Outcome.Reasons say why. Import exits 1 when any item has it.
	StatusNotImported Status = "not imported"
	// StatusAttached: a resource file of an item (an Agent Skill's
	// script, reference or asset) that its text may refer to; it is no
	// module and comes in with nothing, but it is no failure either.
	StatusAttached Status = "attached"
	// StatusUsed: a manifest (.meta.toml, index.json) whose entries were
	// applied to the modules; its entries that could not be are outcomes
	// of their own.
	StatusUsed Status = "used"
	// StatusSkipped: the file is not part of the format (a licence, a
	// readme, a hidden folder); listed so that nothing goes unmentioned.
	StatusSkipped Status = "skipped"
)

// Note is one remark on an item: Line is 1-based in the item's source
// file, or in File when the remark concerns another file (the index.json
// entry of a Jinja template, the .meta.toml table of a MaiBot prompt); 0
// when no one line is concerned.
type Note struct {
	File string
	Line int
	Msg  string
}

// String is "line N: msg", "file:N: msg" for another file, or msg when
// no line is concerned.
func (n Note) String() string {
	switch {
	case n.File != "" && n.Line > 0:
		return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Msg)
	case n.File != "":
		return n.File + ": " + n.Msg
	case n.Line > 0:
		return fmt.Sprintf("line %d: %s", n.Line, n.Msg)
	}
	return n.Msg
}

// Outcome is what became of one source file, or of one entry inside a
// file that holds several (a WeKnora template, a .meta.toml table, an
// index.json entry).
type Outcome struct {
	// Source is the file's path under the source folder, slash-separated.
	Source string
	// Item names the entry inside Source ("template default_rewrite",
	// "[maisaka_timing_gate]"); "" when the outcome is the whole file.
	Item string
	// Line is the 1-based line of Item in Source; 0 for a whole file.
	Line   int
	Status Status
	// Modules are the module files the item became (Module.Path).
	Modules []string
	// Reasons say why the item was not imported or was skipped.
	Reasons []Note
	// Findings are the rules of the source's own format that the item
	// breaks (an Agent Skill's name over 64 characters, …), one per rule;
	// what can be imported is imported all the same. Import exits 2 when
	// there are findings and every item came in.
	Findings []Note
	// Notes say what changed on the way in: renames, derived fields,
	// fields with no place in the module format, dropped comments.
	Notes []Note
}

// Module is one module file produced by an import.
type Module struct {
	// Path is the file in the library layout: modules/<locale>/<layer>-<name>.md.
	Path   string
	ID     string
	Locale string
	// Text is the whole module file; it parses with library.Parse.
	Text string

	outcome int
}

// Result is a conversion: the module files and the outcome of every
// source item, in source order.
type Result struct {
	Format   Format
	Modules  []Module
	Outcomes []Outcome
}

// Counts returns how many outcomes have each status.
func (r *Result) Counts() map[Status]int {
	n := map[Status]int{}
	for _, o := range r.Outcomes {
		n[o.Status]++
	}
	return n
}

// Findings counts the findings of all outcomes.
func (r *Result) Findings() int {
	n := 0
	for _, o := range r.Outcomes {
		n += len(o.Findings)
	}
	return n
}

// Import converts the source folder fsys in format. The error is for bad
// options or a folder that is not of the format at all (no SKILL.md, no
// index.json, …); every problem with a single file or entry is an Outcome
// instead. The modules of the Result load together with library.Load.
func Import(format Format, fsys fs.FS, opts Options) (*Result, error) {
	if opts.Layer != "" && !library.ValidLayer(opts.Layer) {
		return nil, fmt.Errorf("layer %q: unknown layer (allowed: base, env, task, agent, tool, aux, style)", opts.Layer)
	}
	if opts.Locale != "" {
		loc, err := library.CanonicalLocale(opts.Locale)
		if err != nil {
			return nil, fmt.Errorf("locale %s", library.LocaleProblem(opts.Locale))
		}
		opts.Locale = loc
	}
	for _, l := range []struct {
		flag string
		v    *string
		def  string
	}{{"--maibot-locale", &opts.MaiBotLocale, "zh-CN"}, {"--fallback-locale", &opts.FallbackLocale, "en-US"}} {
		if *l.v == "" {
			*l.v = l.def
			continue
		}
		loc, err := library.CanonicalLocale(*l.v)
		if err != nil {
			return nil, fmt.Errorf("%s %s", l.flag, library.LocaleProblem(*l.v))
		}
		*l.v = loc
	}
	b := newBuilder(format, opts)
	var err error
	switch format {
	case FormatSkills:
		err = importSkills(b, fsys)
	case FormatMaiBot:
		err = importMaiBot(b, fsys)
	case FormatWeKnora:
		err = importWeKnora(b, fsys)
	case FormatJinjaIndex:
		err = importJinja(b, fsys)
	case FormatClaudeCode:
		err = importClaudeCode(b, fsys)
	default:
		return nil, fmt.Errorf("unknown format %q (known: %s)", format, formatList())
	}
	if err != nil {
		return nil, err
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	return b.res, nil
}

func formatList() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// newBuilder starts a conversion; opts are checked already.
func newBuilder(format Format, opts Options) *builder {
	return &builder{res: &Result{Format: format}, opts: opts, mods: map[string]*Module{}}
}

// builder collects outcomes and modules while a converter runs.
type builder struct {
	res  *Result
	opts Options
	mods map[string]*Module // by path; Result.Modules is filled by finish
	// needs lists, by outcome, the items it includes: when one of them is
	// not imported, neither is the outcome (finish).
	needs map[int][]need
	// fileNotes are notes on a whole source file (how it was read), by
	// path: finish gives them to the file's first outcome.
	fileNotes map[string][]Note
}

// fileNote records a note on the source file p as a whole.
func (b *builder) fileNote(p string, n Note) {
	if b.fileNotes == nil {
		b.fileNotes = map[string][]Note{}
	}
	b.fileNotes[p] = append(b.fileNotes[p], n)
}

// need is an item an outcome includes: Outcome is its index, What names it
// in the reason ("the prompt inner (prompts/en-US/inner.prompt)"), Line is
// where the include sits.
type need struct {
	line    int
	outcome int
	what    string
}

// need records that outcome i includes outcome of, at line.
func (b *builder) need(i, line, of int, what string) {
	if b.needs == nil {
		b.needs = map[int][]need{}
	}
	b.needs[i] = append(b.needs[i], need{line: line, outcome: of, what: what})
}

// unmetReason is the reason an item is not imported when an item it
// includes is not.
func unmetReason(what string) string {
	return fmt.Sprintf("includes %s, which was not imported", what)
}

// failUnmet fails every imported outcome that includes one that is not
// imported, until none is left: an item that includes a failed item
// fails too, and so on.
func (b *builder) failUnmet() {
	for changed := true; changed; {
		changed = false
		for _, i := range slices.Sorted(maps.Keys(b.needs)) {
			if b.out(i).Status != StatusImported {
				continue
			}
			var reasons []Note
			for _, n := range b.needs[i] {
				if b.out(n.outcome).Status != StatusImported {
					reasons = append(reasons, Note{Line: n.line, Msg: unmetReason(n.what)})
				}
			}
			if len(reasons) > 0 {
				b.fail(i, reasons...)
				changed = true
			}
		}
	}
}

// add appends an outcome and returns its index.
func (b *builder) add(o Outcome) int {
	b.res.Outcomes = append(b.res.Outcomes, o)
	return len(b.res.Outcomes) - 1
}

func (b *builder) out(i int) *Outcome { return &b.res.Outcomes[i] }

// skip records a file that is not part of the format.
func (b *builder) skip(source, reason string) {
	b.add(Outcome{Source: source, Status: StatusSkipped, Reasons: []Note{{Msg: reason}}})
}

// fail marks outcome i not imported and withdraws its modules.
func (b *builder) fail(i int, reasons ...Note) {
	o := b.out(i)
	o.Status = StatusNotImported
	o.Reasons = append(o.Reasons, reasons...)
	for _, p := range o.Modules {
		delete(b.mods, p)
	}
	o.Modules = nil
}

// note adds a remark to outcome i.
func (b *builder) note(i int, line int, format string, args ...any) {
	b.noteAt(i, Note{Line: line}, format, args...)
}

// noteAt adds a remark to outcome i at the file and line of at.
func (b *builder) noteAt(i int, at Note, format string, args ...any) {
	at.Msg = fmt.Sprintf(format, args...)
	b.out(i).Notes = append(b.out(i).Notes, at)
}

// finding records a rule of the source's format that outcome i breaks.
func (b *builder) finding(i int, line int, format string, args ...any) {
	b.out(i).Findings = append(b.out(i).Findings, Note{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// layer is the layer of a module whose format default is def.
func (b *builder) layer(def library.Layer) library.Layer {
	if b.opts.Layer != "" {
		return b.opts.Layer
	}
	return def
}

// locale is the locale of a text whose source names none: --locale, else
// the locale detected from the text (noted on outcome i).
func (b *builder) locale(i int, text string) string {
	if b.opts.Locale != "" {
		return b.opts.Locale
	}
	loc := detectLocale(text)
	b.note(i, 0, "locale %s detected from the text's script (set --locale to choose)", loc)
	return loc
}

// spec is a module to produce.
type spec struct {
	layer       library.Layer
	name        string // valid module name
	locale      string
	title       string
	description string
	variables   []string
	body        string
	manual      bool              // a task module with a manual trigger
	upstream    *library.Upstream // where the text came from; nil for none
}

// module builds the module file of s for outcome i. A problem fails the
// outcome with the reason and returns false.
func (b *builder) module(i int, s spec) bool {
	id := string(s.layer) + "." + s.name
	p := path.Join("modules", s.locale, library.FileName(id))
	if prev, taken := b.mods[p]; taken {
		other := b.res.Outcomes[prev.outcome]
		b.fail(i, Note{Msg: fmt.Sprintf("module %s (%s) is already produced from %s%s", id, s.locale, other.Source, itemSuffix(other.Item))})
		return false
	}
	body := strings.Trim(s.body, "\n")
	if strings.TrimSpace(body) == "" {
		b.fail(i, Note{Msg: "the text is empty: a module needs a body"})
		return false
	}
	var t strings.Builder
	t.WriteString("---\n")
	fmt.Fprintf(&t, "id: %s\nlayer: %s\nversion: 1\n", id, s.layer)
	fmt.Fprintf(&t, "title: %s\ndescription: %s\n", quote(s.title), quote(s.description))
	if len(s.variables) > 0 {
		q := make([]string, len(s.variables))
		for k, v := range s.variables {
			q[k] = quote(v)
		}
		fmt.Fprintf(&t, "variables: [%s]\n", strings.Join(q, ", "))
	}
	if s.manual {
		t.WriteString("triggers: [{kind: manual}]\n")
	}
	if u := s.upstream; u != nil {
		fmt.Fprintf(&t, "upstream: {source: %s", u.Source)
		if u.Name != "" {
			fmt.Fprintf(&t, ", name: %s", quote(u.Name))
		}
		if u.Version != "" {
			fmt.Fprintf(&t, ", version: %s", quote(u.Version))
		}
		t.WriteString("}\n")
	}
	t.WriteString("---\n")
	t.WriteString(body)
	t.WriteString("\n")
	text := t.String()
	if len(text) > library.MaxModuleBytes {
		b.fail(i, Note{Msg: library.TooLarge(len(text))})
		return false
	}
	m, err := library.Parse(p, []byte(text))
	if err != nil {
		b.fail(i, Note{Msg: "the module does not parse: " + err.Error()})
		return false
	}
	if m.Title != s.title || m.Description != s.description || m.Upstream.String() != s.upstream.String() {
		return b.internal(i, p, "title or description changed in the frontmatter")
	}
	b.mods[p] = &Module{Path: p, ID: id, Locale: s.locale, Text: text, outcome: i}
	b.out(i).Modules = append(b.out(i).Modules, p)
	return true
}

// internal fails outcome i for a bug of the importer, never for bad input.
func (b *builder) internal(i int, p, msg string) bool {
	b.fail(i, Note{Msg: fmt.Sprintf("internal error writing %s: %s", p, msg)})
	return false
}

func itemSuffix(item string) string {
	if item == "" {
		return ""
	}
	return " (" + item + ")"
}

// quote writes s as a YAML double-quoted scalar on one line.
func quote(s string) string {
	var q strings.Builder
	q.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			q.WriteByte('\\')
			q.WriteRune(r)
		case r == '\t':
			q.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&q, `\u%04x`, r)
		default:
			q.WriteRune(r)
		}
	}
	q.WriteByte('"')
	return q.String()
}

// finish checks that the modules load together: an item that includes
// one that was not imported fails (failUnmet), a module that does not load
// (an include cycle, an include of a module that failed) fails its
// outcome, and the checks repeat until the rest loads. Modules end sorted
// by path.
func (b *builder) finish() error {
	for {
		b.failUnmet()
		if len(b.mods) == 0 {
			break
		}
		fes := b.check()
		if len(fes) == 0 {
			break
		}
		failed := map[int][]Note{}
		for _, fe := range fes {
			m, ok := b.mods[fe.File]
			if !ok {
				return fmt.Errorf("checking the imported modules: %w", fe)
			}
			oi := m.outcome
			failed[oi] = append(failed[oi], Note{Msg: "the module does not load: " + fe.Error()})
		}
		idx := make([]int, 0, len(failed))
		for oi := range failed {
			idx = append(idx, oi)
		}
		sort.Ints(idx)
		for _, oi := range idx {
			b.fail(oi, failed[oi]...)
		}
	}
	for _, m := range b.mods {
		b.res.Modules = append(b.res.Modules, *m)
	}
	sort.SliceStable(b.res.Outcomes, func(i, j int) bool {
		a, c := b.res.Outcomes[i], b.res.Outcomes[j]
		if a.Source != c.Source {
			return a.Source < c.Source
		}
		return a.Line < c.Line
	})
	// A file's notes go first on its first outcome in the report.
	for k := range b.res.Outcomes {
		o := &b.res.Outcomes[k]
		if n, ok := b.fileNotes[o.Source]; ok {
			o.Notes = append(n, o.Notes...)
			delete(b.fileNotes, o.Source)
		}
	}
	sort.Slice(b.res.Modules, func(i, j int) bool { return b.res.Modules[i].Path < b.res.Modules[j].Path })
	return nil
}

// check parses the modules as module files (in path order, as the loader
// reads a folder) and, when all parse, builds them into a snapshot: the
// errors of the files that do not parse, else of the cross-file rules.
func (b *builder) check() library.FileErrors {
	paths := slices.Sorted(maps.Keys(b.mods))
	var parts library.Parts
	var errs library.FileErrors
	for _, p := range paths {
		m, err := library.ParseModuleFile(p, b.mods[p].Locale, []byte(b.mods[p].Text))
		if err != nil {
			errs = append(errs, library.AsFileErrors(p, err)...)
			continue
		}
		parts.Modules = append(parts.Modules, m)
	}
	if len(errs) > 0 {
		return errs
	}
	_, err := library.Build(parts)
	return library.AsFileErrors("", err)
}

// existing lists the module files of r that exist in dir already.
func (r *Result) existing(dir string) ([]string, error) {
	var out []string
	for _, m := range r.Modules {
		p := filepath.Join(dir, filepath.FromSlash(m.Path))
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return out, nil
}

// WriteDir writes every module file under dir in the library layout. It
// writes nothing and returns an error naming the files when any exists
// already, unless force.
func (r *Result) WriteDir(dir string, force bool) error {
	existing, err := r.existing(dir)
	if err != nil {
		return err
	}
	if len(existing) > 0 && !force {
		return fmt.Errorf("%d module file(s) exist already, nothing written (use --force to overwrite):\n  %s",
			len(existing), strings.Join(existing, "\n  "))
	}
	for _, m := range r.Modules {
		p := filepath.Join(dir, filepath.FromSlash(m.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(m.Text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteBuiltin adds the embedded builtin library to the library folder
// dir after WriteDir, so that the folder assembles a whole system prompt
// (base, env and the other layers around the imported modules): every
// builtin module file whose id was not imported (in any locale: all
// locales of an id share one version and variable list) and that does not
// exist in dir yet, and every label file dir lacks. It returns how many
// files it wrote and the ids it left to the imported modules.
func (r *Result) WriteBuiltin(dir string) (written int, shadowed []string, err error) {
	imported := map[string]bool{}
	for _, m := range r.Modules {
		imported[m.ID] = true
	}
	seen := map[string]bool{}
	err = fs.WalkDir(library.BuiltinFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if id, ok := library.IDFromFileName(path.Base(p)); ok && strings.HasPrefix(p, "modules/") && imported[id] {
			if !seen[id] {
				seen[id] = true
				shadowed = append(shadowed, id)
			}
			return nil
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if _, err := os.Lstat(dst); err == nil {
			return nil
		}
		data, err := fs.ReadFile(library.BuiltinFS(), p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		written++
		return os.WriteFile(dst, data, 0o644)
	})
	sort.Strings(shadowed)
	return written, shadowed, err
}

// Report writes one line per outcome, indented lines for its reasons and
// notes, and a summary line. root is prefixed to source paths.
func (r *Result) Report(w io.Writer, root string) {
	for _, o := range r.Outcomes {
		src := filepath.Join(root, filepath.FromSlash(o.Source))
		if o.Line > 0 {
			src = fmt.Sprintf("%s:%d", src, o.Line)
		}
		src += itemSuffix(o.Item)
		switch o.Status {
		case StatusImported:
			fmt.Fprintf(w, "%-12s %s → %s\n", o.Status, src, strings.Join(o.Modules, ", "))
		case StatusUsed:
			fmt.Fprintf(w, "%-12s %s\n", o.Status, src)
		default:
			if len(o.Reasons) == 1 {
				fmt.Fprintf(w, "%-12s %s: %s\n", o.Status, src, o.Reasons[0])
				break
			}
			fmt.Fprintf(w, "%-12s %s:\n", o.Status, src)
			for _, n := range o.Reasons {
				fmt.Fprintf(w, "%12s %s\n", "reason:", n)
			}
		}
		for _, n := range o.Findings {
			fmt.Fprintf(w, "%12s %s\n", "finding:", n)
		}
		for _, n := range o.Notes {
			fmt.Fprintf(w, "%12s %s\n", "note:", n)
		}
	}
	n := r.Counts()
	fmt.Fprintf(w, "%s: imported %d, not imported %d, attached %d, used %d, skipped %d of %d source items from %s; %d module files converted; %d findings\n",
		r.Format, n[StatusImported], n[StatusNotImported], n[StatusAttached], n[StatusUsed], n[StatusSkipped], len(r.Outcomes), root, len(r.Modules), r.Findings())
	fmt.Fprintln(w, "Blank lines and spaces at the start and end of each text, such as its final line break, are not kept (a module's text is trimmed); those inside it are, also around an include.")
}

package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/goccy/go-yaml"
	"golang.org/x/text/language"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// The fidelity test renders every imported module the way promptdesk
// serves it (assembler.Render on the imported folder's snapshot: what POST
// /api/v1/render runs on the served library) and its source the way the
// source system renders it, by that system's rules written out below,
// with the same values, and compares the two texts byte for byte.

// fidelityClass is how a promptdesk rendering compares with the source's.
type fidelityClass int

const (
	// identical: byte for byte.
	classIdentical fidelityClass = iota
	// finalNewline: the source's text has one more line break at its end.
	classFinalNewline
	// blankEdges: the texts differ only in blank text at their start or
	// end (a module's text is trimmed).
	classBlankEdges
	// real: anything else.
	classReal
)

var classNames = []string{"identical", "only the final newline differs", "other blank edges differ", "real differences"}

func classify(source, got string) fidelityClass {
	switch {
	case source == got:
		return classIdentical
	case source == got+"\n":
		return classFinalNewline
	case strings.TrimSpace(source) == strings.TrimSpace(got):
		return classBlankEdges
	}
	return classReal
}

// fidelityCase is one imported module and its source.
type fidelityCase struct {
	module Module
	// render renders the source by the source system's rules; value gives
	// the value of a source variable.
	render func(value func(name string) (string, bool)) (string, error)
	// onePass, for a source system that fills one variable after another
	// over the whole text (WeKnora), so that a value holding another
	// variable's placeholder is filled too, renders the source filling
	// every placeholder in one pass instead, as promptdesk does; nil for
	// the others.
	onePass func(value func(name string) (string, bool)) (string, error)
}

// fidelityCounts is one row of the table: modules compared and how each
// compares (its worst value set), and the modules where the source
// system's filling one variable after another (WeKnora) gives another
// text than promptdesk's one pass (compared then with the one pass).
type fidelityCounts struct {
	compared, identical, finalNewline, blankEdges, real, rescans int
}

// valueSets give each variable a value; others are the names of the
// module's other variables, for values that name them.
var valueSets = []struct {
	name  string
	value func(name string, others []string) string
}{
	{"plain", func(name string, _ []string) string { return "the " + name + " here" }},
	{"braces and %s", func(name string, _ []string) string {
		return `{` + name + `} {{x}} }} {{ {0} {} %s %d %(name)s \{{` + name + `}} C:\dir\ ` + "$1 ${x}"
	}},
	{"XML", func(name string, _ []string) string {
		return `ok</instruction>` + "\n" + `<system a="1 & 2">'` + name + `' &amp; &lt;</system>`
	}},
	{"CJK", func(name string, _ []string) string { return "数据「" + name + "」です 한국어" }},
	{"naming other variables", func(name string, others []string) string {
		var b strings.Builder
		b.WriteString("see ")
		for _, o := range others {
			fmt.Fprintf(&b, "{{%s}} {%s} {{ %s }} ", o, o, o)
		}
		return b.String()
	}},
}

// fidelity imports dir, renders every module with every value set both
// ways and counts how they compare; every real difference is an error.
func fidelity(t *testing.T, format Format, dir string, cases func(t *testing.T, res *Result) []fidelityCase) fidelityCounts {
	t.Helper()
	res := run(t, format, dir, Options{})
	lib := t.TempDir()
	if err := res.WriteDir(lib, false); err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{"en-US", "zh-CN"} {
		data, err := os.ReadFile(filepath.Join("..", "labels", loc+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(lib, "labels", loc+".yaml")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := library.LoadDir(lib)
	if err != nil {
		t.Fatalf("the imported folder does not load: %v", err)
	}
	asm := assembler.New(assembler.Config{})
	var n fidelityCounts
	cs := cases(t, res)
	if len(cs) != len(res.Modules) {
		t.Errorf("%d modules have a source to compare with, of %d imported", len(cs), len(res.Modules))
	}
	for _, c := range cs {
		n.compared++
		declared := declaredVariables(snap, c.module.ID, c.module.Locale)
		worst, rescan := classIdentical, false
		for _, set := range valueSets {
			vars := map[string]string{}
			for k, name := range declared {
				vars[name] = set.value(name, slices.Delete(slices.Clone(declared), k, k+1))
			}
			// A source variable named like an environment value is the
			// module's <name>_value.
			value := func(name string) (string, bool) {
				if v, ok := vars[name]; ok {
					return v, true
				}
				v, ok := vars[name+envSuffix]
				return v, ok
			}
			r, err := asm.Render(snap, nil, &assembler.RenderRequest{Module: c.module.ID, Locale: c.module.Locale, Variables: vars}, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
			if err != nil {
				t.Errorf("%s (%s), %s values: promptdesk: %v", c.module.ID, c.module.Locale, set.name, err)
				continue
			}
			want, err := c.render(value)
			if err != nil {
				t.Errorf("%s (%s), %s values: the source system: %v", c.module.ID, c.module.Locale, set.name, err)
				continue
			}
			class := classify(want, r.Text)
			if class == classReal && c.onePass != nil {
				// promptdesk fills placeholders in one pass and never reads
				// a value for placeholders, on purpose: when the one pass
				// of the source agrees, the difference is that rule,
				// counted apart.
				once, err := c.onePass(value)
				if err == nil && classify(once, r.Text) != classReal {
					rescan, class = true, classify(once, r.Text)
				}
			}
			if class == classReal {
				t.Errorf("%s (%s), %s values: the texts differ\n--- %s renders\n%q\n--- promptdesk renders\n%q", c.module.ID, c.module.Locale, set.name, format, want, r.Text)
			}
			worst = max(worst, class)
		}
		if rescan {
			n.rescans++
		}
		t.Logf("%s (%s): %s%s", c.module.ID, c.module.Locale, classNames[worst], map[bool]string{true: " (WeKnora's sequential filling differs)"}[rescan])
		switch worst {
		case classIdentical:
			n.identical++
		case classFinalNewline:
			n.finalNewline++
		case classBlankEdges:
			n.blankEdges++
		default:
			n.real++
		}
	}
	return n
}

// declaredVariables lists the variables of id and of the modules it
// includes, as the renderer asks for them (sorted).
func declaredVariables(snap *library.Snapshot, id, locale string) []string {
	vars := map[string]string{}
	collectVariables(snap, id, locale, vars, map[string]bool{})
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// modulesOf returns the module files outcome o became.
func modulesOf(t *testing.T, res *Result, o Outcome) []Module {
	t.Helper()
	var out []Module
	for _, p := range o.Modules {
		i := slices.IndexFunc(res.Modules, func(m Module) bool { return m.Path == p })
		if i < 0 {
			t.Fatalf("%s: no module %s", o.Source, p)
		}
		out = append(out, res.Modules[i])
	}
	return out
}

func readSource(t *testing.T, dir, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), "\r\n", "\n")
}

// ---- MaiBot: brace swap, nested prompts, str.format.

// maiRender renders prompt name of set as MaiBot's prompt manager does:
// `{{` and `}}` swapped for two private characters, each field filled
// with the nested prompt of that name (rendered the same way) or the
// value of that name by str.format, the private characters swapped back
// into braces. Only bare field names are filled: str.format features
// the importer refuses are errors here.
func maiRender(set map[string]string, name string, value func(string) (string, bool), depth int) (string, error) {
	const left, right = "\uFDE9", "\uFDEA"
	if depth > 10 {
		return "", errors.New("nesting deeper than 10")
	}
	tmp := strings.ReplaceAll(strings.ReplaceAll(set[name], "{{", left), "}}", right)
	if strings.Contains(tmp, "{}") {
		return "", errors.New("unnamed field {}")
	}
	var out strings.Builder
	for i := 0; i < len(tmp); {
		switch tmp[i] {
		case '}':
			return "", errors.New("single '}' encountered in format string")
		case '{':
			end := strings.IndexByte(tmp[i:], '}')
			if end < 0 {
				return "", errors.New("expected '}' before end of string")
			}
			field := tmp[i+1 : i+end]
			if strings.ContainsAny(field, "{!:.[") {
				return "", fmt.Errorf("field {%s} is beyond this test's str.format", field)
			}
			if _, nested := set[field]; nested {
				s, err := maiRender(set, field, value, depth+1)
				if err != nil {
					return "", err
				}
				out.WriteString(s)
			} else if v, ok := value(field); ok {
				out.WriteString(v)
			} else {
				return "", fmt.Errorf("KeyError: %q", field)
			}
			i += end + 1
		default:
			out.WriteByte(tmp[i])
			i++
		}
	}
	return strings.NewReplacer(left, "{", right, "}").Replace(out.String()), nil
}

func maiBotCases(dir string) func(t *testing.T, res *Result) []fidelityCase {
	return func(t *testing.T, res *Result) []fidelityCase {
		root := dir
		if st, err := os.Stat(filepath.Join(dir, "prompts")); err == nil && st.IsDir() {
			root = filepath.Join(dir, "prompts")
		}
		// The prompts MaiBot has in each locale: its own, else those of
		// its default locale, zh-CN (an include that promptdesk would
		// fill from en-US instead is not imported).
		// A prompt in a category folder is named by its file name.
		sets := map[string]map[string]string{}
		var files []string
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".prompt") && strings.Count(filepath.ToSlash(strings.TrimPrefix(p, root)), "/") >= 2 {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			loc := strings.Split(filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator))), "/")[0]
			if sets[loc] == nil {
				sets[loc] = map[string]string{}
			}
			sets[loc][strings.TrimSuffix(filepath.Base(f), ".prompt")] = readSource(t, "", f)
		}
		var out []fidelityCase
		for _, o := range res.Outcomes {
			if o.Status != StatusImported || path.Ext(o.Source) != ".prompt" {
				continue
			}
			loc := strings.Split(strings.TrimPrefix(o.Source, "prompts/"), "/")[0]
			set := map[string]string{}
			for k, v := range sets["zh-CN"] {
				set[k] = v
			}
			for k, v := range sets[loc] {
				set[k] = v
			}
			name := strings.TrimSuffix(path.Base(o.Source), ".prompt")
			for _, m := range modulesOf(t, res, o) {
				out = append(out, fidelityCase{module: m, render: func(value func(string) (string, bool)) (string, error) {
					return maiRender(set, name, value, 0)
				}})
			}
		}
		return out
	}
}

// ---- WeKnora: each {{name}} replaced by its value.

var weKnoraPlaceholder = regexp.MustCompile(`\{\{([a-z_][a-z0-9_.-]*)\}\}`)

// weKnoraRender fills text as WeKnora does, replacing each variable's
// {{name}} in turn over the whole text (in the order of first use), or,
// onePass, every placeholder in one pass over the text.
func weKnoraRender(text string, value func(string) (string, bool), onePass bool) (string, error) {
	var missing error
	if onePass {
		out := weKnoraPlaceholder.ReplaceAllStringFunc(text, func(p string) string {
			v, ok := value(p[2 : len(p)-2])
			if !ok {
				missing = fmt.Errorf("no value for %s", p)
			}
			return v
		})
		return out, missing
	}
	var names []string
	for _, m := range weKnoraPlaceholder.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	for _, name := range names {
		v, ok := value(name)
		if !ok {
			return "", fmt.Errorf("no value for %s", name)
		}
		text = strings.ReplaceAll(text, "{{"+name+"}}", v)
	}
	return text, nil
}

func weKnoraCases(dir string) func(t *testing.T, res *Result) []fidelityCase {
	return func(t *testing.T, res *Result) []fidelityCase {
		type texts struct {
			Content string `yaml:"content"`
			User    string `yaml:"user"`
		}
		type template struct {
			ID      string           `yaml:"id"`
			Content string           `yaml:"content"`
			User    string           `yaml:"user"`
			I18n    map[string]texts `yaml:"i18n"`
		}
		files := map[string][]template{}
		var out []fidelityCase
		for _, o := range res.Outcomes {
			if o.Status != StatusImported {
				continue
			}
			if _, ok := files[o.Source]; !ok {
				var doc struct {
					Templates []template `yaml:"templates"`
				}
				if err := yaml.Unmarshal([]byte(readSource(t, dir, o.Source)), &doc); err != nil {
					t.Fatalf("%s: %v", o.Source, err)
				}
				files[o.Source] = doc.Templates
			}
			id := strings.TrimPrefix(o.Item, "template ")
			k := slices.IndexFunc(files[o.Source], func(tp template) bool { return tp.ID == id })
			if k < 0 {
				t.Fatalf("%s: no template %s", o.Source, id)
			}
			tp := files[o.Source][k]
			for _, m := range modulesOf(t, res, o) {
				src := texts{Content: tp.Content, User: tp.User}
				for loc, l := range tp.I18n {
					if tag, err := language.Parse(loc); err == nil && tag.String() == m.Locale && (l.Content != "" || l.User != "") {
						src = l
					}
				}
				text := src.Content
				if strings.HasSuffix(m.ID, ".user") {
					text = src.User
				}
				out = append(out, fidelityCase{module: m,
					render: func(value func(string) (string, bool)) (string, error) {
						return weKnoraRender(text, value, false)
					},
					onePass: func(value func(string) (string, bool)) (string, error) {
						return weKnoraRender(text, value, true)
					}})
			}
		}
		return out
	}
}

// ---- index.json + Jinja: the subset the importer accepts.

// jinjaTag is a Jinja expression of a bare name or a comment, with its
// whitespace-control dashes.
var jinjaTag = regexp.MustCompile(`(?s)\{\{(-?)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(-?)\}\}|\{#(-?).*?(-?)#\}`)

// jinjaRender renders text as Jinja2 does with its defaults and
// StrictUndefined, for the subset of templates the importer accepts:
// {{ name }} is the value, a comment renders nothing, a dash strips the
// whitespace on its side, and the one line break ending the template is
// dropped (keep_trailing_newline is off).
func jinjaRender(text string, value func(string) (string, bool)) (string, error) {
	if strings.Contains(text, "{%") {
		return "", errors.New("a Jinja statement is beyond this test's Jinja")
	}
	var out strings.Builder
	trimNext := false
	rest := text
	for {
		loc := jinjaTag.FindStringSubmatchIndex(rest)
		lit := rest
		if loc != nil {
			lit = rest[:loc[0]]
		}
		if trimNext {
			lit = strings.TrimLeftFunc(lit, unicode.IsSpace)
		}
		if loc == nil {
			out.WriteString(lit)
			break
		}
		m := func(g int) string {
			if loc[2*g] < 0 {
				return ""
			}
			return rest[loc[2*g]:loc[2*g+1]]
		}
		if m(1) == "-" || m(4) == "-" {
			lit = strings.TrimRightFunc(lit, unicode.IsSpace)
		}
		out.WriteString(lit)
		if name := m(2); name != "" {
			v, ok := value(name)
			if !ok {
				return "", fmt.Errorf("%s is undefined", name)
			}
			out.WriteString(v)
		}
		trimNext = m(3) == "-" || m(5) == "-"
		rest = rest[loc[1]:]
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

func jinjaCases(dir string) func(t *testing.T, res *Result) []fidelityCase {
	return func(t *testing.T, res *Result) []fidelityCase {
		var index struct {
			Templates map[string]struct {
				Path string `json:"path"`
			} `json:"templates"`
		}
		if err := json.Unmarshal([]byte(readSource(t, dir, "index.json")), &index); err != nil {
			t.Fatal(err)
		}
		var out []fidelityCase
		for _, o := range res.Outcomes {
			if o.Status != StatusImported {
				continue
			}
			entry, ok := index.Templates[strings.TrimPrefix(o.Item, "template ")]
			if !ok {
				t.Fatalf("%s %s: not in index.json", o.Source, o.Item)
			}
			text := readSource(t, dir, entry.Path)
			for _, m := range modulesOf(t, res, o) {
				out = append(out, fidelityCase{module: m, render: func(value func(string) (string, bool)) (string, error) {
					return jinjaRender(text, value)
				}})
			}
		}
		return out
	}
}

// ---- Agent Skills: the body after the frontmatter, as written.

func skillsCases(dir string) func(t *testing.T, res *Result) []fidelityCase {
	return func(t *testing.T, res *Result) []fidelityCase {
		var out []fidelityCase
		for _, o := range res.Outcomes {
			if o.Status != StatusImported {
				continue
			}
			lines := strings.SplitAfter(readSource(t, dir, o.Source), "\n")
			k := slices.IndexFunc(lines[1:], func(l string) bool { return strings.TrimRight(l, " \t\n") == "---" })
			if k < 0 {
				t.Fatalf("%s: the frontmatter is not closed", o.Source)
			}
			body := strings.Join(lines[k+2:], "")
			for _, m := range modulesOf(t, res, o) {
				out = append(out, fidelityCase{module: m, render: func(func(string) (string, bool)) (string, error) {
					return body, nil
				}})
			}
		}
		return out
	}
}

// TestFidelity compares, for each importer, every imported module of the
// project's fixtures (and of the real corpora, when present) rendered by
// promptdesk with the source rendered by its own system's rules, with
// every value set. Real differences must be none; the table of counts is
// logged for the corpora.
func TestFidelity(t *testing.T) {
	sources := []struct {
		name    string
		format  Format
		fixture string
		corpus  string
		cases   func(dir string) func(t *testing.T, res *Result) []fidelityCase
		// want is the fixture's expected row.
		want fidelityCounts
	}{
		{"MaiBot", FormatMaiBot, "testdata/maibot", "maibot-prompts", maiBotCases,
			fidelityCounts{compared: 8, finalNewline: 4, blankEdges: 4}},
		{"MaiBot tree", FormatMaiBot, "testdata/maibot-tree", "", maiBotCases,
			fidelityCounts{compared: 5, finalNewline: 4, blankEdges: 1}},
		{"WeKnora", FormatWeKnora, "testdata/weknora", "weknora-prompt-templates", weKnoraCases,
			fidelityCounts{compared: 5, finalNewline: 5, rescans: 3}},
		{"index.json + Jinja", FormatJinjaIndex, "testdata/jinja-index", "oh-mai-agent-templates", jinjaCases,
			fidelityCounts{compared: 2, identical: 2}},
		{"Agent Skills", FormatSkills, "testdata/skills", "anthropic-skills", skillsCases,
			fidelityCounts{compared: 3, finalNewline: 2, blankEdges: 1}},
		{"Agent Skills tree", FormatSkills, "testdata/skills-tree", "", skillsCases,
			fidelityCounts{compared: 8, finalNewline: 8}},
	}
	var table []string
	for _, src := range sources {
		t.Run(src.name+"/fixture", func(t *testing.T) {
			got := fidelity(t, src.format, src.fixture, src.cases(src.fixture))
			if got != src.want {
				t.Errorf("counts %+v, want %+v", got, src.want)
			}
		})
		if src.corpus == "" {
			continue
		}
		t.Run(src.name+"/corpus", func(t *testing.T) {
			dir := corpus(t, src.corpus)
			got := fidelity(t, src.format, dir, src.cases(dir))
			if got.real != 0 {
				t.Errorf("%d modules render otherwise than in %s", got.real, src.name)
			}
			table = append(table, fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d |", src.name, got.compared, got.identical, got.finalNewline, got.blankEdges, got.real, got.rescans))
		})
	}
	if len(table) > 0 {
		t.Logf("the real corpora, each module rendered with %d value sets by promptdesk and by its source system's rules:\n"+
			"| corpus | modules compared | identical | only the final newline differs | other blank edges differ | real differences | modules where filling values one by one (WeKnora) differs |\n"+
			"|---|---:|---:|---:|---:|---:|---:|\n%s", len(valueSets), strings.Join(table, "\n"))
	}
}

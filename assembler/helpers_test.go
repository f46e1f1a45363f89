package assembler_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// fixedNow is the clock of tests that do not care about the date.
var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// mod is one module file of a test library.
type mod struct {
	locale  string // folder; "" means en-US
	id      string
	version int    // 0 means 1
	front   string // extra frontmatter lines, each ending in "\n"
	desc    string // the description; "" means "Description of <id>"
	body    string // written as is: no trailing newline unless given
}

// text is the module file: frontmatter with the required fields, then body.
func (m mod) text() string {
	layer, _, _ := strings.Cut(m.id, ".")
	v := m.version
	if v == 0 {
		v = 1
	}
	var b strings.Builder
	b.WriteString("---\n")
	b.WriteString("id: " + m.id + "\n")
	b.WriteString("layer: " + layer + "\n")
	b.WriteString("version: " + strconv.Itoa(v) + "\n")
	b.WriteString("title: Title of " + m.id + "\n")
	desc := m.desc
	if desc == "" {
		desc = "Description of " + m.id
	}
	b.WriteString("description: " + desc + "\n")
	b.WriteString(m.front)
	b.WriteString("---\n")
	b.WriteString(m.body)
	return b.String()
}

func (m mod) path() string {
	loc := m.locale
	if loc == "" {
		loc = "en-US"
	}
	return "modules/" + loc + "/" + library.FileName(m.id)
}

// labelFiles are the project's real label files, read once.
var labelFiles = sync.OnceValues(func() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, loc := range []string{"en-US", "zh-CN"} {
		data, err := os.ReadFile(filepath.Join("..", "library", "labels", loc+".yaml"))
		if err != nil {
			return nil, err
		}
		out[loc] = data
	}
	return out, nil
})

// newLib builds a library snapshot from module files plus the project's
// en-US and zh-CN label files, with library.Load over an in-memory FS.
func newLib(t testing.TB, mods ...mod) *library.Snapshot {
	t.Helper()
	labels, err := labelFiles()
	if err != nil {
		t.Fatalf("reading the label files: %v", err)
	}
	fsys := fstest.MapFS{}
	for loc, data := range labels {
		fsys["labels/"+loc+".yaml"] = &fstest.MapFile{Data: data}
	}
	for _, m := range mods {
		p := m.path()
		if _, dup := fsys[p]; dup {
			t.Fatalf("test library: %s given twice", p)
		}
		fsys[p] = &fstest.MapFile{Data: []byte(m.text())}
	}
	snap, err := library.Load(fsys, "test")
	if err != nil {
		t.Fatalf("test library does not load:\n%v", err)
	}
	return snap
}

// coreEnv are the four env modules the assembler enters itself (knowledge
// and skills), with short bodies that show their tables.
func coreEnv() []mod {
	return []mod{
		{id: assembler.ModuleKnowledge, body: "KNOWLEDGE\n{{knowledge_bases}}"},
		{id: assembler.ModulePureAgent, body: "PURE AGENT"},
		{id: assembler.ModuleSelectedDocs, body: "SELECTED\n{{selected_documents}}"},
		{id: assembler.ModuleSkills, body: "SKILLS\n{{skills}}"},
	}
}

// withCore returns mods plus coreEnv.
func withCore(mods ...mod) []mod { return append(coreEnv(), mods...) }

// override parses an override module text of id in locale.
func override(t testing.TB, m mod, basedOn int, baseSnapshot string) *assembler.Override {
	t.Helper()
	parsed, err := library.Parse("override:"+m.id, []byte(m.text()))
	if err != nil {
		t.Fatalf("override %s: %v", m.id, err)
	}
	loc := m.locale
	if loc == "" {
		loc = "en-US"
	}
	parsed.Locale = loc
	return &assembler.Override{ID: parsed.ID, Module: parsed, Locale: loc, Revision: 1, BasedOnVersion: basedOn, BaseSnapshot: baseSnapshot}
}

// stateWith builds operator state holding the given overrides and profiles.
func stateWith(overrides []*assembler.Override, profiles ...*domain.Profile) *assembler.State {
	st := &assembler.State{Profiles: map[string]*domain.Profile{}}
	for _, o := range overrides {
		st.Overrides = st.Overrides.With(assembler.Key(o.Module.ID, o.Locale), o)
	}
	for _, p := range profiles {
		st.Profiles[p.ID] = p
	}
	return st
}

// mustAssemble assembles with a default Assembler (fallback en-US, UTC).
func mustAssemble(t testing.TB, snap *library.Snapshot, st *assembler.State, req *assembler.Request) *assembler.Result {
	t.Helper()
	res, err := assembler.New(assembler.Config{}).Assemble(snap, st, req, fixedNow)
	if err != nil {
		t.Fatalf("Assemble: %v", err)
	}
	return res
}

// assembleErr assembles and requires an *assembler.Error and no result.
func assembleErr(t testing.TB, snap *library.Snapshot, st *assembler.State, req *assembler.Request) *library.Error {
	t.Helper()
	res, err := assembler.New(assembler.Config{}).Assemble(snap, st, req, fixedNow)
	if res != nil {
		t.Errorf("Assemble returned a result with an error; want no output at all:\n%s", res.Text)
	}
	var ae *library.Error
	if !errors.As(err, &ae) {
		t.Fatalf("Assemble: got error %v, want an *assembler.Error", err)
	}
	return ae
}

// reportLines is the text form of every report entry, in order.
func reportLines(res *assembler.Result) []string {
	out := make([]string, len(res.Report))
	for i, e := range res.Report {
		out[i] = e.Line
	}
	return out
}

// entries returns the report entries of one kind.
func entries(res *assembler.Result, kind string) []assembler.ReportEntry {
	var out []assembler.ReportEntry
	for _, e := range res.Report {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// entryFor returns the report entry of kind for module.
func entryFor(t testing.TB, res *assembler.Result, kind, module string) assembler.ReportEntry {
	t.Helper()
	for _, e := range res.Report {
		if e.Kind == kind && e.Module == module {
			return e
		}
	}
	t.Fatalf("no %s entry for %s in the report:\n%s", kind, module, strings.Join(reportLines(res), "\n"))
	return assembler.ReportEntry{}
}

// promptModules lists the module ids of the prompt entries, in order.
func promptModules(res *assembler.Result) []string {
	var out []string
	for _, e := range entries(res, assembler.KindPrompt) {
		out = append(out, e.Module)
	}
	return out
}

// segmentNames lists the segment names in order.
func segmentNames(res *assembler.Result) []string {
	out := make([]string, len(res.Segments))
	for i, s := range res.Segments {
		out[i] = s.Layer
	}
	return out
}

// segment returns the segment called name.
func segment(t testing.TB, res *assembler.Result, name string) assembler.Segment {
	t.Helper()
	for _, s := range res.Segments {
		if s.Layer == name {
			return s
		}
	}
	t.Fatalf("no segment %q; segments are %v", name, segmentNames(res))
	return assembler.Segment{}
}

// mdTable is one markdown table: header cells and data rows, each cell as
// written (escapes kept), trimmed.
type mdTable struct {
	header []string
	rows   [][]string
}

// parseTables finds every markdown table in text: a line starting with
// "|", a delimiter row, then data rows starting with "|". It fails the
// test when a row does not have exactly as many cells as its header.
func parseTables(t testing.TB, text string) []mdTable {
	t.Helper()
	lines := strings.Split(text, "\n")
	var out []mdTable
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") || !isDelimiterRow(lines[i+1]) {
			continue
		}
		tb := mdTable{header: splitRow(lines[i])}
		if n := len(splitRow(lines[i+1])); n != len(tb.header) {
			t.Errorf("delimiter row has %d cells, header %d: %q", n, len(tb.header), lines[i+1])
		}
		j := i + 2
		for ; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
			row := splitRow(lines[j])
			if len(row) != len(tb.header) {
				t.Errorf("row has %d cells, header %d (%q):\n%s", len(row), len(tb.header), tb.header, lines[j])
			}
			tb.rows = append(tb.rows, row)
		}
		out = append(out, tb)
		i = j - 1
	}
	return out
}

func isDelimiterRow(line string) bool {
	if !strings.HasPrefix(line, "|") {
		return false
	}
	for _, c := range splitRow(line) {
		if strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// splitRow splits a table row into cells on unescaped pipes, with the
// rules of GitHub-flavoured markdown: a backslash escapes the ASCII
// punctuation character after it, so `\|` stays inside the cell while
// `\\|` is an escaped backslash followed by a cell boundary.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && isASCIIPunct(line[i+1]):
			cur.WriteByte(c)
			cur.WriteByte(line[i+1])
			i++
		case c == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		cells = append(cells, rest)
	}
	return cells
}

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// column returns one column of a table.
func column(tb mdTable, i int) []string {
	out := make([]string, len(tb.rows))
	for r, row := range tb.rows {
		if i < len(row) {
			out[r] = row[i]
		}
	}
	return out
}

func rowString(cells []string) string { return "| " + strings.Join(cells, " | ") + " |" }

// builtin is the embedded library, loaded once for all tests.
var builtin = sync.OnceValues(library.Builtin)

func builtinLib(t testing.TB) *library.Snapshot {
	t.Helper()
	snap, err := builtin()
	if err != nil {
		t.Fatalf("the builtin library does not load:\n%v", err)
	}
	return snap
}

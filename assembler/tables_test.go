package assembler_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
)

func docs(n int) []assembler.Document {
	out := make([]assembler.Document, n)
	for i := range out {
		out[i] = assembler.Document{KnowledgeID: "d" + twoDigits(i), Title: "Doc " + twoDigits(i), FileType: "md", FileSize: 2048,
			CreatedAt: time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC), Summary: "summary " + twoDigits(i)}
	}
	return out
}

// knowledgeText assembles req (en-US unless set) with the core env
// modules and returns the knowledge tables, after checking that the same
// text is what env.knowledge rendered.
func knowledgeText(t *testing.T, req *assembler.Request) string {
	t.Helper()
	snap := newLib(t, coreEnv()...)
	res := mustAssemble(t, snap, nil, req)
	if !strings.Contains(segment(t, res, assembler.SegmentKnowledge).Text, "KNOWLEDGE\n"+res.Tables.Knowledge) {
		t.Errorf("env.knowledge does not render Tables.Knowledge through {{knowledge_bases}}")
	}
	return res.Tables.Knowledge
}

// At most 10 rows per base, the rest counted; the count is the
// base's document count when it is larger than the rows given.
func TestKnowledgeRowsAndMore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		docCount int
		given    int
		rows     int
		more     string // "" when no "+N more" line
		heading  string
	}{
		{"12 given", 12, 12, 10, "+2 more", "#### Docs (document base, 12 documents): Product docs"},
		{"10 given of 10", 10, 10, 10, "", "#### Docs (document base, 10 documents): Product docs"},
		{"3 recent of 30", 30, 3, 3, "+27 more", "#### Docs (document base, 30 documents): Product docs"},
		{"docCount smaller than rows", 0, 11, 10, "+1 more", "#### Docs (document base, 11 documents): Product docs"},
		// The count's word comes from the plural labels: one for 1, other else.
		{"one document", 1, 1, 1, "", "#### Docs (document base, 1 document): Product docs"},
		{"21 documents", 21, 2, 2, "+19 more", "#### Docs (document base, 21 documents): Product docs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := knowledgeText(t, &assembler.Request{KnowledgeBases: []assembler.KnowledgeBase{{
				ID: "kb", Name: "Docs", Type: assembler.KnowledgeDocument, Description: "Product docs", DocCount: tt.docCount, RecentDocs: docs(tt.given),
			}}})
			tables := parseTables(t, text)
			if len(tables) != 1 {
				t.Fatalf("%d tables, want 1:\n%s", len(tables), text)
			}
			if got := len(tables[0].rows); got != tt.rows {
				t.Errorf("%d rows, want %d", got, tt.rows)
			}
			if first, _, _ := strings.Cut(text, "\n"); first != tt.heading {
				t.Errorf("heading = %q, want %q", first, tt.heading)
			}
			lines := strings.Split(text, "\n")
			last := lines[len(lines)-1]
			if tt.more != "" && last != tt.more {
				t.Errorf("last line = %q, want %q", last, tt.more)
			}
			if tt.more == "" && strings.Contains(text, "more") {
				t.Errorf("a more line without hidden rows:\n%s", text)
			}
		})
	}
}

// Document rows: title falls back to the file name, empty cells
// show "-", sizes are human-readable, dates are in the request's zone,
// summaries are cut, and every cell is one line with pipes escaped.
func TestDocumentTableCells(t *testing.T) {
	t.Parallel()
	created := time.Date(2024, 2, 29, 15, 30, 0, 0, time.UTC)
	kb := assembler.KnowledgeBase{ID: "kb", Name: "Docs", Type: assembler.KnowledgeDocument, DocCount: 8, RecentDocs: []assembler.Document{
		{KnowledgeID: "1", Title: "Plain", FileType: "pdf", FileSize: 512, CreatedAt: created, Summary: "short"},
		{KnowledgeID: "2", FileName: "notes.md", FileType: "md", FileSize: 8282, Summary: "line one\nline two\r\nline three"},
		{KnowledgeID: "3", Title: "   ", FileName: "", FileSize: 0},
		{KnowledgeID: "4", Title: "a|b", FileType: "docx", FileSize: 5 << 20, Summary: "x | y || z"},
		{KnowledgeID: "5", Title: "tabs\tand\u2028separators", FileSize: 1536 << 20, Summary: strings.Repeat("长", 130)},
		{KnowledgeID: "6", Title: "kilo", FileSize: 1023},
		{KnowledgeID: "7", Title: "kilo edge", FileSize: 1024},
		{KnowledgeID: "8", Title: "trailing backslash\\", FileSize: 1},
	}}
	text := knowledgeText(t, &assembler.Request{TimeZone: "Asia/Shanghai", KnowledgeBases: []assembler.KnowledgeBase{kb}})
	tables := parseTables(t, text)
	if len(tables) != 1 {
		t.Fatalf("%d tables:\n%s", len(tables), text)
	}
	tb := tables[0]
	if want := []string{"Title", "Type", "Created", "Size", "Summary"}; !slices.Equal(tb.header, want) {
		t.Errorf("header = %v, want %v (en-US labels)", tb.header, want)
	}
	want := [][]string{
		{"Plain", "pdf", "2024-02-29 23:30", "512 B", "short"},
		{"notes.md", "md", "-", "8.1 KB", "line one<br>line two<br>line three"},
		{"-", "-", "-", "-", "-"},
		{`a\|b`, "docx", "-", "5.0 MB", `x \| y \|\| z`},
		{"tabs and<br>separators", "-", "-", "1.5 GB", strings.Repeat("长", 120) + "…"},
		{"kilo", "-", "-", "1023 B", "-"},
		{"kilo edge", "-", "-", "1.0 KB", "-"},
		{`trailing backslash\`, "-", "-", "1 B", "-"},
	}
	for i, row := range tb.rows {
		if i >= len(want) {
			break
		}
		if !slices.Equal(row, want[i]) {
			t.Errorf("row %d:\n got %s\nwant %s", i+1, rowString(row), rowString(want[i]))
		}
	}
	if len(tb.rows) != len(want) {
		t.Errorf("%d rows, want %d", len(tb.rows), len(want))
	}
}

// No text is lost: a backslash in the source right before a
// character the cell escaping rewrites (a pipe, a line break) must survive
// markdown unescaping, and must not turn the escaped pipe back into a cell
// boundary (markdown reads `\\|` as an escaped backslash and a column
// break, and `\<br>` as a literal "<br>").
func TestCellBackslashRoundTrip(t *testing.T) {
	t.Parallel()
	for _, summary := range []string{
		`use grep 'error\|warn' on the log`,
		"restore start --snapshot s1 \\\n  --path /home",
		`ends with a backslash \`,
	} {
		t.Run(summary, func(t *testing.T) {
			t.Parallel()
			text := knowledgeText(t, &assembler.Request{KnowledgeBases: []assembler.KnowledgeBase{{
				ID: "kb", Name: "Docs", Type: assembler.KnowledgeDocument, DocCount: 1, RecentDocs: []assembler.Document{
					{KnowledgeID: "1", Title: "Regex", Summary: summary},
				}}}})
			tables := parseTables(t, text)
			if len(tables) != 1 || len(tables[0].rows) != 1 {
				t.Fatalf("want one table with one row:\n%s", text)
			}
			row := tables[0].rows[0]
			if len(row) != 5 {
				t.Fatalf("row has %d cells, want 5: %s", len(row), rowString(row))
			}
			if got := strings.ReplaceAll(unescapeCell(row[4]), "<br>", "\n"); got != summary {
				t.Errorf("summary cell %q reads back as %q, want %q", row[4], got, summary)
			}
		})
	}
}

// unescapeCell undoes markdown backslash escapes of ASCII punctuation.
func unescapeCell(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Sizes are human-readable with one decimal; a value that rounds up
// to 1024 of a unit is shown in the next unit.
func TestHumanSizes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		bytes int64
		want  string
	}{
		{0, "-"},
		{-5, "-"},
		{1, "1 B"},
		{512, "512 B"},
		{1023, "1023 B"},
		{1024, "1.0 KB"},
		{8282, "8.1 KB"},
		{5 << 20, "5.0 MB"},
		{3 << 30, "3.0 GB"},
		{1<<20 - 1, "1.0 MB"},
		{1<<30 - 1, "1.0 GB"},
	}
	var rows []assembler.Document
	for i, tt := range tests {
		rows = append(rows, assembler.Document{KnowledgeID: twoDigits(i), Title: twoDigits(i), FileSize: tt.bytes})
	}
	var got []string
	for start := 0; start < len(rows); start += assembler.MaxRowsPerBase {
		part := rows[start:min(start+assembler.MaxRowsPerBase, len(rows))]
		text := knowledgeText(t, &assembler.Request{KnowledgeBases: []assembler.KnowledgeBase{{ID: "kb", Name: "S", Type: assembler.KnowledgeDocument, RecentDocs: part}}})
		got = append(got, column(parseTables(t, text)[0], 3)...)
	}
	for i, tt := range tests {
		if got[i] != tt.want {
			t.Errorf("%d bytes shows %q, want %q", tt.bytes, got[i], tt.want)
		}
	}
}

// FAQ bases have question, answer and chunk id columns; several
// answers share one cell, one line per row.
func TestFAQTable(t *testing.T) {
	t.Parallel()
	kb := assembler.KnowledgeBase{ID: "faq", Name: "Help", Type: assembler.KnowledgeFAQ, Description: "Questions\nby topic", DocCount: 14}
	kb.FAQEntries = []assembler.FAQEntry{
		{ChunkID: "c1", Question: "How to log in?", Answers: []string{"Use SSO.", "Or a password:\n```\nlogin -p\n```"}},
		{ChunkID: "c2", Question: "A | B?", Answers: []string{"  ", "only one"}},
		{ChunkID: "", Question: "No answer?"},
	}
	for i := 3; i < 12; i++ {
		kb.FAQEntries = append(kb.FAQEntries, assembler.FAQEntry{ChunkID: "c" + twoDigits(i), Question: "Q" + twoDigits(i), Answers: []string{"A"}})
	}
	text := knowledgeText(t, &assembler.Request{KnowledgeBases: []assembler.KnowledgeBase{kb}})
	lines := strings.Split(text, "\n")
	if want := "#### Help (FAQ base, 14 Q&A entries): Questions by topic"; lines[0] != want {
		t.Errorf("heading = %q, want %q", lines[0], want)
	}
	tables := parseTables(t, text)
	if len(tables) != 1 {
		t.Fatalf("%d tables:\n%s", len(tables), text)
	}
	tb := tables[0]
	if want := []string{"Question", "Answer", "Chunk ID"}; !slices.Equal(tb.header, want) {
		t.Errorf("header = %v, want %v", tb.header, want)
	}
	if len(tb.rows) != assembler.MaxRowsPerBase {
		t.Errorf("%d rows, want %d", len(tb.rows), assembler.MaxRowsPerBase)
	}
	want := [][]string{
		{"How to log in?", "Use SSO.<br><br>Or a password:<br>```<br>login -p<br>```", "c1"},
		{`A \| B?`, "only one", "c2"},
		{"No answer?", "-", "-"},
		{"Q03", "A", "c03"},
	}
	for i, w := range want {
		if !slices.Equal(tb.rows[i], w) {
			t.Errorf("row %d:\n got %s\nwant %s", i+1, rowString(tb.rows[i]), rowString(w))
		}
	}
	if last := lines[len(lines)-1]; last != "+4 more" {
		t.Errorf("last line %q, want +4 more", last)
	}
}

// One heading per base, in the request's order; an empty base says
// so; the zh-CN labels are used for a zh-CN request.
func TestSeveralBasesAndLabels(t *testing.T) {
	t.Parallel()
	req := &assembler.Request{Locale: "zh-CN", KnowledgeBases: []assembler.KnowledgeBase{
		{ID: "a", Name: "空库", Type: assembler.KnowledgeDocument},
		{ID: "b", Name: "文档", Type: assembler.KnowledgeDocument, DocCount: 15, RecentDocs: docs(12)},
		{ID: "c", Name: "Line\r\nbreak\u2028name", Type: assembler.KnowledgeFAQ, Description: "d1\r\nd2"},
		{ID: "d", Name: "一篇", Type: assembler.KnowledgeDocument, DocCount: 1, RecentDocs: docs(1)},
	}}
	snap := newLib(t, coreEnv()...)
	res := mustAssemble(t, snap, nil, req)
	text := res.Tables.Knowledge
	wantLines := []string{
		"#### 空库（文档库，0 篇文档）：-",
		"",
		"（暂无内容）",
		"",
		"#### 文档（文档库，15 篇文档）：-",
		"",
		"| 标题 | 类型 | 创建时间 | 大小 | 摘要 |",
	}
	lines := strings.Split(text, "\n")
	if !slices.Equal(lines[:len(wantLines)], wantLines) {
		t.Errorf("tables start:\n%s\nwant\n%s", strings.Join(lines[:len(wantLines)], "\n"), strings.Join(wantLines, "\n"))
	}
	if !slices.Contains(lines, "另有 5 条未列出") {
		t.Errorf("no zh-CN more line for 15-10 = 5:\n%s", text)
	}
	var headings []string
	for _, l := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' || r == '\u2028' }) {
		if strings.HasPrefix(l, "####") {
			headings = append(headings, l)
		}
	}
	if len(headings) != 4 {
		t.Errorf("%d headings, want 4 (each one line):\n%q", len(headings), headings)
	}
	// zh-CN has one plural form: 1 takes the other text.
	if want := "#### 一篇（文档库，1 篇文档）：-"; !slices.Contains(lines, want) {
		t.Errorf("no heading %q:\n%s", want, text)
	}
	if want := "#### Line break name（问答库，0 条问答）：d1 d2"; !slices.Contains(lines, want) {
		t.Errorf("heading of a name with line breaks is not one line %q:\n%q", want, text)
	}
	stats := entries(res, assembler.KindKnowledge)
	var got []string
	for _, s := range stats {
		got = append(got, s.Line)
	}
	if want := []string{"knowledge(a · shown:0 cut:0)", "knowledge(b · shown:10 cut:5)", "knowledge(c · shown:0 cut:0)", "knowledge(d · shown:1 cut:0)"}; !slices.Equal(got, want) {
		t.Errorf("knowledge entries = %q, want %q", got, want)
	}
}

// The selected-documents table: title (file name when missing),
// file type, knowledge-base name (its id when the base is not given) and
// document id.
func TestSelectedDocumentsTable(t *testing.T) {
	t.Parallel()
	snap := newLib(t, coreEnv()...)
	res := mustAssemble(t, snap, nil, &assembler.Request{
		KnowledgeBases: []assembler.KnowledgeBase{{ID: "kb1", Name: "Product docs", Type: assembler.KnowledgeDocument}},
		SelectedDocuments: []assembler.SelectedDocument{
			{KnowledgeID: "d1", KnowledgeBaseID: "kb1", Title: "Setup guide", FileName: "setup.md", FileType: "md"},
			{KnowledgeID: "d2", KnowledgeBaseID: "kb1", FileName: "notes|v2.txt"},
			{KnowledgeID: "d3", KnowledgeBaseID: "kb-other"},
		},
	})
	tables := parseTables(t, res.Tables.Selected)
	if len(tables) != 1 {
		t.Fatalf("%d tables:\n%s", len(tables), res.Tables.Selected)
	}
	want := mdTable{
		header: []string{"Title", "File type", "Knowledge base", "Document ID"},
		rows: [][]string{
			{"Setup guide", "md", "Product docs", "d1"},
			{`notes\|v2.txt`, "-", "Product docs", "d2"},
			{"-", "-", "kb-other", "d3"},
		},
	}
	if !slices.Equal(tables[0].header, want.header) {
		t.Errorf("header = %v, want %v", tables[0].header, want.header)
	}
	if !slices.EqualFunc(tables[0].rows, want.rows, slices.Equal) {
		t.Errorf("rows =\n%q\nwant\n%q", tables[0].rows, want.rows)
	}
	if !strings.Contains(segment(t, res, assembler.SegmentKnowledge).Text, "SELECTED\n"+res.Tables.Selected) {
		t.Errorf("env.selected-docs does not render the table")
	}
	if e := entryFor(t, res, assembler.KindSelectedDocs, assembler.ModuleSelectedDocs); e.Reason != "docs:3" {
		t.Errorf("selected-docs entry reason %q, want docs:3", e.Reason)
	}
}

// The skill table lists task modules not hit (with how they
// trigger, in label words) and runtime skills, one line per row.
func TestSkillsTable(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(
		mod{id: "task.minutes", front: "priority: 70\ntriggers:\n- kind: intent\n  keywords: minutes, notes\n- kind: command\n  command: /minutes\n", body: "MIN"},
		mod{id: "task.files", front: "priority: 5\ntriggers:\n- kind: attachment\n", body: "FILES"},
		mod{id: "task.man", front: "triggers:\n- kind: manual\n", body: "MAN"},
		mod{id: "task.none", body: "NONE"},
	)...)
	tests := []struct {
		name    string
		req     *assembler.Request
		wantRow [][]string
	}{
		{"nothing hit", &assembler.Request{Skills: []assembler.Skill{{Name: "pdf", Description: "Read PDFs.\nUse for | forms."}}}, [][]string{
			{"task.files", "Description of task.files", "when files are attached"},
			{"task.man", "Description of task.man", "manual only"},
			{"task.minutes", "Description of task.minutes", "keywords: minutes, notes; command /minutes"},
			{"task.none", "Description of task.none", "manual only"},
			{"pdf", `Read PDFs.<br>Use for \| forms.`, "provided by the runtime"},
		}},
		{"minutes hit", &assembler.Request{Message: "/minutes"}, [][]string{
			{"task.files", "Description of task.files", "when files are attached"},
			{"task.man", "Description of task.man", "manual only"},
			{"task.none", "Description of task.none", "manual only"},
		}},
		{"zh-CN labels", &assembler.Request{Locale: "zh-CN", Message: "/minutes", Skills: []assembler.Skill{{Name: "pdf", Description: "PDF"}}}, [][]string{
			{"task.files", "Description of task.files", "有附件时"},
			{"task.man", "Description of task.man", "仅手动启用"},
			{"task.none", "Description of task.none", "仅手动启用"},
			{"pdf", "PDF", "由运行时提供"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := mustAssemble(t, snap, nil, tt.req)
			tables := parseTables(t, res.Tables.Skills)
			if len(tables) != 1 {
				t.Fatalf("%d tables:\n%s", len(tables), res.Tables.Skills)
			}
			if !slices.EqualFunc(tables[0].rows, tt.wantRow, slices.Equal) {
				t.Errorf("rows =\n%q\nwant\n%q", tables[0].rows, tt.wantRow)
			}
			if e := entryFor(t, res, assembler.KindPrompt, assembler.ModuleSkills); e.Reason != "skills:"+strconv.Itoa(len(tt.wantRow)) {
				t.Errorf("env.skills reason %q", e.Reason)
			}
			if !strings.Contains(segment(t, res, assembler.SegmentSkillsAvailable).Text, "SKILLS\n"+res.Tables.Skills) {
				t.Errorf("env.skills does not render the table")
			}
		})
	}
}

// At most 10 recent documents per base: when a base gives more
// rows than are shown, the ones shown are the most recent by creation
// date, newest first, whatever order the request lists them in.
func TestKnowledgeShowsMostRecent(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	var given []assembler.Document
	// Days 1..12 in a shuffled order; days 3 and 1 are the oldest two.
	for _, d := range []int{5, 1, 12, 7, 3, 9, 11, 2, 8, 10, 6, 4} {
		given = append(given, assembler.Document{KnowledgeID: "d" + twoDigits(d), Title: "Day " + twoDigits(d), CreatedAt: day(d)})
	}
	text := knowledgeText(t, &assembler.Request{KnowledgeBases: []assembler.KnowledgeBase{{
		ID: "kb", Name: "Docs", Type: assembler.KnowledgeDocument, DocCount: 12, RecentDocs: given}}})
	tables := parseTables(t, text)
	if len(tables) != 1 {
		t.Fatalf("%d tables:\n%s", len(tables), text)
	}
	want := []string{"Day 12", "Day 11", "Day 10", "Day 09", "Day 08", "Day 07", "Day 06", "Day 05", "Day 04", "Day 03"}
	if got := column(tables[0], 0); !slices.Equal(got, want) {
		t.Errorf("titles shown = %v\nwant the 10 most recent, newest first: %v", got, want)
	}
}

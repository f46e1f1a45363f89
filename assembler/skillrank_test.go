package assembler

import (
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

func TestForTerms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Review my Go code, please!", []string{"review", "my", "go", "code", "please"}},
		{"task.doc-minutes", []string{"task", "doc", "minutes"}},
		{"ＣＳＶ report_2026.csv", []string{"csv", "report", "2026", "csv"}},
		// Chinese and Japanese runs give character bigrams; a lone
		// character stands for itself.
		{"整理会议纪要", []string{"整理", "理会", "会议", "议纪", "纪要"}},
		{"纪 要", []string{"纪", "要"}},
		{"议事録を作成 Q3", []string{"议事", "事録", "録を", "を作", "作成", "q3"}},
		{"用Python分析", []string{"用", "python", "分析"}},
		{"", nil},
	} {
		var got []string
		forTerms(tc.text, func(s string) { got = append(got, s) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("forTerms(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// rankTestRows are task modules and runtime skills in library order.
func rankTestRows() []skillRow {
	task := func(id, title, desc string, keywords ...string) skillRow {
		m := &library.Module{Frontmatter: library.Frontmatter{ID: id, Layer: library.LayerTask, Title: title, Description: desc}}
		if len(keywords) > 0 {
			m.Triggers = []library.Trigger{{Kind: library.TriggerIntent, Keywords: keywords}}
		}
		return skillRow{served: &Served{Module: m}, name: id, description: desc}
	}
	return []skillRow{
		task("task.code-review", "Code review", "Reviews code or a diff for correctness and security", "review", "代码评审"),
		task("task.data-analysis", "Data analysis", "Analyses tabular data such as CSV files and spreadsheets", "数据分析", "统计"),
		task("task.doc-minutes", "会议纪要生成", "Turns a meeting recording or notes into minutes", "纪要", "会议记录"),
		task("task.summarize", "Summarize", "Condenses a text or document into key points", "summary", "总结", "摘要"),
		task("task.translate", "Translate", "Translates text between languages", "translate", "翻译"),
		task("task.zz-ledger", "记账", "把收据整理成账目明细"),
		{name: "invoice-reader", description: "Reads invoices and receipts and extracts totals"},
		{name: "chart-maker", description: "Turns a table of numbers into a chart"},
	}
}

// rankTestPool is a pool of the rows: the task rows (by id) in a
// catalogue, the others as runtime skills in their order.
func rankTestPool(a *Assembler, rows []skillRow) *skillPool {
	c := &catalogue{commands: map[string][]int32{}, postings: map[string][]posting{}, patterns: map[string]int{}}
	p := &skillPool{cat: c}
	for _, row := range rows {
		if row.served == nil {
			p.runtime = append(p.runtime, row)
			continue
		}
		c.tasks = append(c.tasks, *row.served)
	}
	slices.SortFunc(c.tasks, func(x, y Served) int { return strings.Compare(x.Module.ID, y.Module.ID) })
	for i := range c.tasks {
		c.index(a, labeler{}, int32(i))
	}
	return p
}

// ranked is the names of the pool ranked against req, fired first.
func ranked(p *skillPool, req *Request) []string {
	rank := p.rank(req)
	var names []string
	for _, ref := range rank.fired {
		names = append(names, p.name(ref))
	}
	rank.each(0, func(ref int32) bool {
		names = append(names, p.name(ref))
		return true
	})
	return names
}

func TestRankSkills(t *testing.T) {
	t.Parallel()
	a := New(Config{})
	rows := rankTestRows()
	p := rankTestPool(a, rows)
	for _, tc := range []struct {
		name string
		req  Request
		want []string // the first names of the ranking
	}{
		{"english message", Request{Message: "Could you review this diff for security problems?"}, []string{"task.code-review"}},
		{"english words of a description", Request{Message: "please condense this document into key points"}, []string{"task.summarize"}},
		{"runtime skill", Request{Message: "Extract the totals from these invoices"}, []string{"invoice-reader"}},
		{"attachment name", Request{Message: "look at this", Attachments: []Attachment{{Name: "sales-spreadsheets.csv"}}}, []string{"task.data-analysis"}},
		{"command", Request{Command: "/translate"}, []string{"task.translate"}},
		{"chinese keyword inside a sentence", Request{Message: "帮我把昨天的会议记录整理一下"}, []string{"task.doc-minutes"}},
		{"chinese description", Request{Message: "这些收据能帮我做成账目吗"}, []string{"task.zz-ledger"}},
		{"chinese summary", Request{Message: "请给这篇文章写个摘要和总结"}, []string{"task.summarize"}},
		// Nothing matches: every score is 0 and ties go by name.
		{"no match", Request{Message: "hello"}, []string{"chart-maker", "invoice-reader", "task.code-review", "task.data-analysis", "task.doc-minutes", "task.summarize", "task.translate", "task.zz-ledger"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ranked(p, &tc.req)
			if len(got) != len(rows) {
				t.Fatalf("ranking has %d rows, want %d: %q", len(got), len(rows), got)
			}
			if !slices.Equal(got[:len(tc.want)], tc.want) {
				t.Errorf("ranking starts %q, want %q (whole ranking %q)", got[:len(tc.want)], tc.want, got)
			}
			if again := ranked(p, &tc.req); !slices.Equal(got, again) {
				t.Errorf("the same request ranked twice: %q, then %q", got, again)
			}
		})
	}
}

// Scores tie-break by name, never by the order the runtime sent its
// skills in: the same skills in another order rank the same.
func TestRankSkillsIgnoresLibraryOrder(t *testing.T) {
	t.Parallel()
	a := New(Config{})
	rows := rankTestRows()
	reversed := slices.Clone(rows)
	slices.Reverse(reversed)
	req := &Request{Message: "translate and summarize the review"}
	if got, want := ranked(rankTestPool(a, reversed), req), ranked(rankTestPool(a, rows), req); !slices.Equal(got, want) {
		t.Errorf("reversed library ranks %q, library order ranks %q", got, want)
	}
}

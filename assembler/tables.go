package assembler

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/promptdesk/promptdesk/library"
)

// Table limits (S5.1, S11).
const (
	// MaxRowsPerBase is how many recent documents or FAQ entries of one
	// knowledge base are shown; the rest are counted ("+N more").
	MaxRowsPerBase = 10
	// SummaryRunes is the length summaries are cut to, in runes.
	SummaryRunes = 120
	ellipsis     = "…"
	emptyCell    = "-"
)

// labeler renders label texts of one locale.
type labeler struct {
	labels library.Labels
}

// get returns a label with its placeholders filled in one pass.
func (l labeler) get(key string, vals ...string) string {
	text := l.labels[key]
	if len(vals) == 0 {
		return text
	}
	var b strings.Builder
	for _, p := range library.Scan(text) {
		if p.Name == "" {
			b.WriteString(p.Literal)
			continue
		}
		for i := 0; i+1 < len(vals); i += 2 {
			if vals[i] == p.Name {
				b.WriteString(vals[i+1])
				break
			}
		}
	}
	return b.String()
}

// knowledgeStats is what the report says of one knowledge base.
type knowledgeStats struct {
	id, name    string
	shown, more int
}

// knowledgeTables renders one heading and table per knowledge base (S5.1).
func knowledgeTables(l labeler, kbs []KnowledgeBase, loc *time.Location) (string, []knowledgeStats) {
	var b strings.Builder
	stats := make([]knowledgeStats, 0, len(kbs))
	for i, kb := range kbs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		typ, rows := l.get("kb.type.document"), len(kb.RecentDocs)
		if kb.Type == KnowledgeFAQ {
			typ, rows = l.get("kb.type.faq"), len(kb.FAQEntries)
		}
		total := max(kb.DocCount, rows)
		b.WriteString(oneLine(l.get("kb.heading",
			"name", cellText(kb.Name), "type", typ, "count", strconv.Itoa(total), "description", cellText(kb.Description))))
		b.WriteString("\n\n")
		shown := min(rows, MaxRowsPerBase)
		switch {
		case shown == 0:
			b.WriteString(l.get("kb.empty"))
		case kb.Type == KnowledgeFAQ:
			writeRow(&b, l.get("kb.col.question"), l.get("kb.col.answer"), l.get("kb.col.chunk"))
			writeRule(&b, 3)
			for _, e := range kb.FAQEntries[:shown] {
				writeRow(&b, cellText(e.Question), cellText(answers(e.Answers)), cellText(e.ChunkID))
			}
		default:
			writeRow(&b, l.get("kb.col.title"), l.get("kb.col.type"), l.get("kb.col.created"), l.get("kb.col.size"), l.get("kb.col.summary"))
			writeRule(&b, 5)
			for _, d := range mostRecent(kb.RecentDocs)[:shown] {
				writeRow(&b, cellText(firstNonEmpty(d.Title, d.FileName)), cellText(d.FileType),
					formatTime(d.CreatedAt, loc), humanSize(d.FileSize), cellText(Truncate(d.Summary, SummaryRunes)))
			}
		}
		more := total - shown
		if more > 0 {
			b.WriteString("\n")
			b.WriteString(l.get("kb.more", "count", strconv.Itoa(more)))
		}
		stats = append(stats, knowledgeStats{id: kb.ID, name: kb.Name, shown: shown, more: more})
	}
	return strings.TrimRight(b.String(), "\n"), stats
}

// selectedTable renders the @-mentioned documents (S5.2).
func selectedTable(l labeler, docs []SelectedDocument, kbs []KnowledgeBase) string {
	names := make(map[string]string, len(kbs))
	for _, kb := range kbs {
		names[kb.ID] = kb.Name
	}
	var b strings.Builder
	writeRow(&b, l.get("sel.col.title"), l.get("sel.col.type"), l.get("sel.col.kb"), l.get("sel.col.id"))
	writeRule(&b, 4)
	for _, d := range docs {
		kb := firstNonEmpty(names[d.KnowledgeBaseID], d.KnowledgeBaseID)
		writeRow(&b, cellText(firstNonEmpty(d.Title, d.FileName)), cellText(d.FileType), cellText(kb), cellText(d.KnowledgeID))
	}
	return strings.TrimRight(b.String(), "\n")
}

// skillRow is one line of the skill metadata table (S5.3).
type skillRow struct {
	name, description, trigger string
}

func skillTable(l labeler, rows []skillRow) string {
	var b strings.Builder
	writeRow(&b, l.get("skill.col.name"), l.get("skill.col.description"), l.get("skill.col.trigger"))
	writeRule(&b, 3)
	for _, r := range rows {
		writeRow(&b, cellText(r.name), cellText(r.description), cellText(r.trigger))
	}
	return strings.TrimRight(b.String(), "\n")
}

// triggerText describes how a task module fires, in label words.
func triggerText(l labeler, m *library.Module) string {
	var parts []string
	for _, t := range m.Triggers {
		switch t.Kind {
		case library.TriggerCommand:
			parts = append(parts, l.get("skill.trigger.command", "command", t.Command))
		case library.TriggerIntent:
			parts = append(parts, l.get("skill.trigger.keywords", "keywords", strings.Join(t.Keywords, l.get("list.separator"))))
		case library.TriggerAttachment:
			part := l.get("skill.trigger.attachment")
			if len(t.Keywords) > 0 {
				part += " + " + l.get("skill.trigger.keywords", "keywords", strings.Join(t.Keywords, l.get("list.separator")))
			}
			parts = append(parts, part)
		case library.TriggerManual:
			parts = append(parts, l.get("skill.trigger.manual"))
		}
	}
	if len(parts) == 0 {
		return l.get("skill.trigger.manual")
	}
	return strings.Join(parts, l.get("skill.trigger.separator"))
}

func writeRow(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" ")
		b.WriteString(c)
		b.WriteString(" |")
	}
	b.WriteString("\n")
}

func writeRule(b *strings.Builder, n int) {
	b.WriteString("|")
	for range n {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
}

// cellText makes s safe as one markdown table cell: one line, pipes
// escaped, line breaks as <br>, no text lost; empty cells show "-".
func cellText(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return emptyCell
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= 0x80 {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			b.WriteString("<br>")
		case r == '\n' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			b.WriteString("<br>")
		case r == '\\' && i+1 < len(s) && strings.ContainsRune("|\r\n\u2028\u2029\u0085", runeAt(s, i+1)):
			b.WriteString(`\\`) // keep the backslash literal before an escape we add
		case r == '|':
			b.WriteString(`\|`)
		case r == '\t' || r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// oneLine turns any line break into a space, for headings.
func oneLine(s string) string {
	return strings.NewReplacer("<br>", " ", "\n", " ").Replace(s)
}

// answers joins several FAQ answers into one cell text, a blank line
// (<br><br> once escaped) between them, like paragraphs.
func answers(as []string) string {
	parts := make([]string, 0, len(as))
	for _, a := range as {
		if a = strings.TrimSpace(a); a != "" {
			parts = append(parts, a)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Truncate cuts s to at most n runes, never inside a grapheme cluster
// (an emoji sequence or flag is kept or dropped whole), and marks a cut
// with "…" (S5.1, E8). Text of n runes or fewer is returned unchanged.
func Truncate(s string, n int) string {
	runes := 0
	for range s {
		runes++
		if runes > n {
			break
		}
	}
	if runes <= n {
		return s
	}
	cut, count := 0, 0
	state := -1
	rest := s
	for len(rest) > 0 {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		c := 0
		for range cluster {
			c++
		}
		if count+c > n {
			break
		}
		count += c
		cut += len(cluster)
	}
	return strings.TrimRight(s[:cut], " \t\r\n") + ellipsis
}

// humanSize formats bytes as B, KB, MB or GB with one decimal (S5.1).
func humanSize(n int64) string {
	if n <= 0 {
		return emptyCell
	}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KB", "MB", "GB"}
	v := float64(n) / 1024
	u := 0
	for math.Round(v*10)/10 >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[u]
}

// formatTime shows t as YYYY-MM-DD HH:MM in the request's zone.
func formatTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return emptyCell
	}
	return t.In(loc).Format("2006-01-02 15:04")
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// mostRecent returns the documents newest first (undated last, otherwise
// in the order given), so the rows shown are the most recent (S5.1).
func mostRecent(docs []Document) []Document {
	out := slices.Clone(docs)
	slices.SortStableFunc(out, func(a, b Document) int {
		switch {
		case a.CreatedAt.IsZero() || b.CreatedAt.IsZero():
			return cmpBool(a.CreatedAt.IsZero(), b.CreatedAt.IsZero())
		default:
			return b.CreatedAt.Compare(a.CreatedAt)
		}
	})
	return out
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// runeAt is the rune starting at s[i].
func runeAt(s string, i int) rune {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

package assembler

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/promptdesk/promptdesk/library"
)

// Table limits.
const (
	// MaxRowsPerBase is how many recent documents or FAQ entries of one
	// knowledge base are shown; the rest are counted ("+N more").
	MaxRowsPerBase = 10
	// SummaryRunes is the length summaries are cut to, in runes.
	SummaryRunes = 120
	ellipsis     = "…"
	emptyCell    = "-"
	cellBreak    = "<br>"
)

// labeler renders label texts of one locale.
type labeler struct {
	labels library.Labels
	locale string
}

// get returns a label without placeholders.
func (l labeler) get(key string) string { return l.labels[key] }

// write writes a label with its placeholders filled in one pass from
// name/value pairs; values are written as given.
func (l labeler) write(b *strings.Builder, key string, vals ...string) {
	text := l.labels[key]
	for len(text) > 0 {
		i := strings.Index(text, "{{")
		if i < 0 {
			break
		}
		name, end, ok := placeholderAt(text, i)
		if !ok {
			b.WriteString(text[:i+2])
			text = text[i+2:]
			continue
		}
		b.WriteString(text[:i])
		for k := 0; k+1 < len(vals); k += 2 {
			if vals[k] == name {
				b.WriteString(vals[k+1])
				break
			}
		}
		text = text[end:]
	}
	b.WriteString(text)
}

// plural returns the text of the plural label base for n in the
// labeler's locale, its {{count}} filled with count (n as digits).
func (l labeler) plural(base string, n int, count string) string {
	var b strings.Builder
	l.write(&b, l.labels.PluralKey(base, l.locale, n), "count", count)
	return b.String()
}

// placeholderAt reads `{{name}}` at text[i:]; label texts were checked
// at load, so only the allowed names occur.
func placeholderAt(text string, i int) (name string, end int, ok bool) {
	j := strings.Index(text[i:], "}}")
	if j < 0 {
		return "", 0, false
	}
	name = text[i+2 : i+j]
	return name, i + j + 2, library.ValidPlaceholderName(name)
}

// knowledgeStats is what the report says of one knowledge base.
type knowledgeStats struct {
	id          string
	shown, more int
}

// knowledgeCounts returns the rows shown and cut per base, as the tables
// show them.
func knowledgeCounts(kbs []KnowledgeBase) []knowledgeStats {
	stats := make([]knowledgeStats, len(kbs))
	for i, kb := range kbs {
		rows := kb.rows()
		shown := min(rows, MaxRowsPerBase)
		stats[i] = knowledgeStats{id: kb.ID, shown: shown, more: max(kb.DocCount, rows) - shown}
	}
	return stats
}

func (kb *KnowledgeBase) rows() int {
	if kb.Type == KnowledgeFAQ {
		return len(kb.FAQEntries)
	}
	return len(kb.RecentDocs)
}

// writeKnowledgeTable writes the heading and table of one knowledge base;
// docs are the documents shown, shownDocs(kb).
func writeKnowledgeTable(b *strings.Builder, l labeler, kb *KnowledgeBase, docs []*Document, loc *time.Location) {
	var num [24]byte
	typ := l.get("kb.type.document")
	if kb.Type == KnowledgeFAQ {
		typ = l.get("kb.type.faq")
	}
	rows := kb.rows()
	total := max(kb.DocCount, rows)
	count := string(strconv.AppendInt(num[:0], int64(total), 10))
	// What the base holds is counted in its own words: documents, or an
	// FAQ base's question-and-answer entries.
	holds := "kb.documents"
	if kb.Type == KnowledgeFAQ {
		holds = "kb.entries"
	}
	l.write(b, "kb.heading", "name", inline(kb.Name), "type", typ, "count", count,
		"documents", l.plural(holds, total, count), "description", inline(kb.Description))
	b.WriteString("\n\n")
	shown := min(rows, MaxRowsPerBase)
	switch {
	case shown == 0:
		b.WriteString(l.get("kb.empty"))
	case kb.Type == KnowledgeFAQ:
		writeHeader(b, l, "kb.col.question", "kb.col.answer", "kb.col.chunk")
		for _, e := range kb.FAQEntries[:shown] {
			b.WriteString("\n| ")
			writeCell(b, e.Question)
			b.WriteString(" | ")
			writeAnswers(b, e.Answers)
			b.WriteString(" | ")
			writeCell(b, e.ChunkID)
			b.WriteString(" |")
		}
	default:
		writeHeader(b, l, "kb.col.title", "kb.col.type", "kb.col.created", "kb.col.size", "kb.col.summary")
		for _, d := range docs {
			b.WriteString("\n| ")
			writeCell(b, firstNonEmpty(d.Title, d.FileName))
			b.WriteString(" | ")
			writeCell(b, d.FileType)
			b.WriteString(" | ")
			writeTime(b, d.CreatedAt, loc)
			b.WriteString(" | ")
			writeSize(b, d.FileSize)
			b.WriteString(" | ")
			writeSummary(b, d.Summary)
			b.WriteString(" |")
		}
	}
	if more := total - shown; more > 0 {
		b.WriteString("\n\n")
		l.write(b, "kb.more", "count", string(strconv.AppendInt(num[:0], int64(more), 10)))
	}
}

// writeSelectedTable writes the @-mentioned documents.
func writeSelectedTable(b *strings.Builder, l labeler, docs []SelectedDocument, kbs []KnowledgeBase) {
	writeHeader(b, l, "sel.col.title", "sel.col.type", "sel.col.kb", "sel.col.id")
	for _, d := range docs {
		kb := d.KnowledgeBaseID
		for i := range kbs {
			if kbs[i].ID == d.KnowledgeBaseID && strings.TrimSpace(kbs[i].Name) != "" {
				kb = kbs[i].Name
				break
			}
		}
		b.WriteString("\n| ")
		writeCell(b, firstNonEmpty(d.Title, d.FileName))
		b.WriteString(" | ")
		writeCell(b, d.FileType)
		b.WriteString(" | ")
		writeCell(b, kb)
		b.WriteString(" | ")
		writeCell(b, d.KnowledgeID)
		b.WriteString(" |")
	}
}

// skillRow is one line of the skill metadata table: a task module
// not hit (served set) or a runtime skill. trigger is the cell text.
// fired marks a task module whose triggers fired but yielded to the hit
// (never cut for the budget); namesOnly a row listed by name alone (its
// description and trigger cells empty).
type skillRow struct {
	served                     *Served
	name, description, trigger string
	fired, namesOnly           bool
}

// namesOnlyRow is row listed by its name alone.
func namesOnlyRow(row skillRow) skillRow {
	row.description, row.trigger, row.namesOnly = "", emptyCell, true
	return row
}

func writeSkillTable(b *strings.Builder, l labeler, rows []skillRow) {
	writeHeader(b, l, "skill.col.name", "skill.col.description", "skill.col.trigger")
	for i := range rows {
		b.WriteString("\n")
		writeSkillRow(b, &rows[i])
	}
}

// writeSkillRow writes one row of the skill table, without line breaks.
func writeSkillRow(b *strings.Builder, r *skillRow) {
	b.WriteString("| ")
	writeCell(b, r.name)
	b.WriteString(" | ")
	writeCell(b, r.description)
	b.WriteString(" | ")
	b.WriteString(r.trigger)
	b.WriteString(" |")
}

// triggerCell describes how a task module fires, in label words, as a
// table cell.
func triggerCell(l labeler, m *library.Module) string {
	var text strings.Builder
	if len(m.Triggers) == 0 {
		text.WriteString(l.get("skill.trigger.manual"))
	}
	for i, t := range m.Triggers {
		if i > 0 {
			text.WriteString(l.get("skill.trigger.separator"))
		}
		switch t.Kind {
		case library.TriggerCommand:
			l.write(&text, "skill.trigger.command", "command", t.Command)
		case library.TriggerIntent:
			l.write(&text, "skill.trigger.keywords", "keywords", strings.Join(t.Keywords, l.get("list.separator")))
		case library.TriggerAttachment:
			text.WriteString(l.get("skill.trigger.attachment"))
			if len(t.Keywords) > 0 {
				text.WriteString(" + ")
				l.write(&text, "skill.trigger.keywords", "keywords", strings.Join(t.Keywords, l.get("list.separator")))
			}
		case library.TriggerManual:
			text.WriteString(l.get("skill.trigger.manual"))
		}
	}
	var cell strings.Builder
	writeCell(&cell, text.String())
	return cell.String()
}

func writeHeader(b *strings.Builder, l labeler, keys ...string) {
	b.WriteString("|")
	for _, k := range keys {
		b.WriteString(" ")
		writeCell(b, l.get(k))
		b.WriteString(" |")
	}
	b.WriteString("\n|")
	for range keys {
		b.WriteString(" --- |")
	}
}

// writeCell writes s as one markdown table cell: one line, pipes
// escaped, line breaks as <br>, no text lost; an empty cell shows "-".
func writeCell(b *strings.Builder, s string) { writeEscaped(b, strings.TrimSpace(s), cellBreak, true) }

// inline escapes s for a heading: like a cell, with line breaks as spaces.
func inline(s string) string {
	var b strings.Builder
	writeEscaped(&b, strings.TrimSpace(s), " ", true)
	return b.String()
}

// special marks the bytes writeEscaped may change: control characters,
// | and \, and the lead bytes of U+0085 (0xc2) and U+2028/2029 (0xe2).
var special = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range []byte{0x7f, '|', '\\', 0xc2, 0xe2} {
		t[c] = true
	}
	return t
}()

// writeEscaped writes s with table-breaking characters escaped: line
// breaks (CR, LF, CRLF, U+0085, U+2028, U+2029) as lineBreak, | as \|,
// a backslash before those as \\, other control characters as a space.
// Runs of plain bytes are copied whole. An empty s writes "-" when
// dashIfEmpty.
func writeEscaped(b *strings.Builder, s, lineBreak string, dashIfEmpty bool) {
	if s == "" {
		if dashIfEmpty {
			b.WriteString(emptyCell)
		}
		return
	}
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !special[c] {
			continue
		}
		repl, size := "", 1
		switch {
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			repl = lineBreak
		case c == '\n':
			repl = lineBreak
		case c == 0xc2:
			if i+1 >= len(s) || s[i+1] != 0x85 {
				continue
			}
			repl, size = lineBreak, 2
		case c == 0xe2:
			if i+2 >= len(s) || s[i+1] != 0x80 || (s[i+2] != 0xa8 && s[i+2] != 0xa9) {
				continue
			}
			repl, size = lineBreak, 3
		case c == '|':
			repl = `\|`
		case c == '\\':
			if !breaksAt(s, i+1) {
				continue
			}
			repl = `\\` // keep the backslash literal before an escape we add
		default: // other control characters
			repl = " "
		}
		b.WriteString(s[last:i])
		b.WriteString(repl)
		i += size - 1
		last = i + 1
	}
	b.WriteString(s[last:])
}

// breaksAt reports whether s[i:] starts with a character writeEscaped
// replaces by an escape: |, or a line break.
func breaksAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	switch r := runeAt(s, i); r {
	case '|', '\r', '\n', '\u2028', '\u2029', '\u0085':
		return true
	}
	return false
}

// writeAnswers writes several FAQ answers into one cell, a blank line
// (<br><br>) between them, like paragraphs.
func writeAnswers(b *strings.Builder, answers []string) {
	n := 0
	for _, a := range answers {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if n > 0 {
			b.WriteString(cellBreak + cellBreak)
		}
		writeEscaped(b, a, cellBreak, false)
		n++
	}
	if n == 0 {
		b.WriteString(emptyCell)
	}
}

// writeSummary writes a summary cut to SummaryRunes as one cell.
func writeSummary(b *strings.Builder, s string) {
	s = strings.TrimSpace(s)
	cut, cutShort := truncateAt(s, SummaryRunes)
	if !cutShort {
		writeCell(b, s)
		return
	}
	writeEscaped(b, strings.TrimRight(s[:cut], " \t\r\n"), cellBreak, false)
	b.WriteString(ellipsis)
}

// Truncate cuts s to at most n runes, never inside a grapheme cluster
// (an emoji sequence or flag is kept or dropped whole), and marks a cut
// with "…". Text of n runes or fewer is returned unchanged.
func Truncate(s string, n int) string {
	cut, cutShort := truncateAt(s, n)
	if !cutShort {
		return s
	}
	return strings.TrimRight(s[:cut], " \t\r\n") + ellipsis
}

// truncateAt returns the byte offset of the longest grapheme-aligned
// prefix of s with at most n runes, and whether s is longer than that.
func truncateAt(s string, n int) (cut int, cutShort bool) {
	runes := 0
	var prev rune
	for i, r := range s {
		if runes == n {
			if plainBoundary(prev, r) {
				return i, true
			}
			cutShort = true
			break
		}
		prev = r
		runes++
	}
	if !cutShort {
		return len(s), false
	}
	count, state := 0, -1
	rest := s
	for len(rest) > 0 {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		c := utf8.RuneCountInString(cluster)
		if count+c > n {
			break
		}
		count += c
		cut += len(cluster)
	}
	return cut, true
}

// plainBoundary reports whether a grapheme boundary surely lies between a
// and b without running the full segmentation: both are printable ASCII,
// Han, kana or CJK punctuation, which never join a cluster (UAX #29).
func plainBoundary(a, b rune) bool { return plainRune(a) && plainRune(b) }

func plainRune(r rune) bool {
	switch {
	case r >= 0x20 && r < 0x7f, r >= 0x4e00 && r <= 0x9fff, r >= 0xff01 && r <= 0xff5e:
		return true
	case r >= 0x3000 && r <= 0x3029, r >= 0x3030 && r <= 0x3098, r >= 0x309b && r <= 0x30ff:
		return true // CJK punctuation and kana, without the combining marks
	}
	return false
}

// writeSize writes bytes as B, KB, MB or GB with one decimal.
func writeSize(b *strings.Builder, n int64) {
	if n <= 0 {
		b.WriteString(emptyCell)
		return
	}
	var buf [32]byte
	if n < 1024 {
		b.Write(strconv.AppendInt(buf[:0], n, 10))
		b.WriteString(" B")
		return
	}
	units := [...]string{" KB", " MB", " GB"}
	v, u := float64(n)/1024, 0
	for roundTenth(v) >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	b.Write(strconv.AppendFloat(buf[:0], v, 'f', 1, 64))
	b.WriteString(units[u])
}

func roundTenth(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

// writeTime writes t as YYYY-MM-DD HH:MM in the request's zone.
func writeTime(b *strings.Builder, t time.Time, loc *time.Location) {
	if t.IsZero() {
		b.WriteString(emptyCell)
		return
	}
	var buf [32]byte
	b.Write(t.In(loc).AppendFormat(buf[:0], "2006-01-02 15:04"))
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// shownDocs returns the documents a document base's table shows: the
// MaxRowsPerBase most recent; none for a FAQ base.
func shownDocs(kb *KnowledgeBase) []*Document {
	if kb.Type == KnowledgeFAQ {
		return nil
	}
	return mostRecent(kb.RecentDocs, min(len(kb.RecentDocs), MaxRowsPerBase))
}

// mostRecent returns the n newest documents, newest first (undated last,
// otherwise in the order given), so the rows shown are the most recent.
// The input is not modified.
func mostRecent(docs []Document, n int) []*Document {
	out := make([]*Document, len(docs))
	for i := range docs {
		out[i] = &docs[i]
	}
	slices.SortStableFunc(out, func(a, b *Document) int {
		if a.CreatedAt.IsZero() || b.CreatedAt.IsZero() {
			return cmpBool(a.CreatedAt.IsZero(), b.CreatedAt.IsZero())
		}
		return b.CreatedAt.Compare(a.CreatedAt)
	})
	return out[:n]
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

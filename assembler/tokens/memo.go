package tokens

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DefaultMemoBytes is the size of the process-wide memo: 8 MB of chunk
// text and entry overhead.
const DefaultMemoBytes = 8 << 20

// entryOverhead approximates what one memo entry costs besides its text
// (map slot, string header, count), for the size bound.
const entryOverhead = 64

// Memo maps chunks of text to their token counts, per encoding; safe for
// concurrent use. It holds at most its size in bytes: entries live in two
// generations, and when the current one fills, the older is dropped and
// the current becomes the older (a hit in the older moves the entry back
// to the current), so what is used keeps its place. Keys are copies, never
// views into a caller's text.
type Memo struct {
	mu       sync.RWMutex
	cur, old map[memoKey]int32
	curBytes int
	genBytes int
}

type memoKey struct {
	enc  *encoding
	text string
}

// NewMemo returns an empty memo bounded to about maxBytes bytes.
func NewMemo(maxBytes int) *Memo {
	return &Memo{cur: map[memoKey]int32{}, old: map[memoKey]int32{}, genBytes: max(maxBytes/2, 1<<10)}
}

// chunk is one piece of a text being counted; n < 0 until it is known.
type chunk struct {
	from, to int
	n        int
	old      bool
}

// count returns text's token count: the sum of its chunks' counts, each
// from the memo or counted and stored.
func (m *Memo) count(enc *encoding, text string) int {
	var buf [64]chunk
	chunks := split(enc, text, buf[:0])

	total, missing, promote := 0, 0, 0
	m.mu.RLock()
	for i := range chunks {
		c := &chunks[i]
		k := memoKey{enc, text[c.from:c.to]}
		if n, ok := m.cur[k]; ok {
			c.n = int(n)
		} else if n, ok := m.old[k]; ok {
			c.n, c.old = int(n), true
			promote++
		} else {
			missing++
			continue
		}
		total += c.n
	}
	m.mu.RUnlock()
	if missing == 0 && promote == 0 {
		return total
	}
	for i := range chunks {
		if c := &chunks[i]; c.n < 0 {
			c.n = enc.count(text[c.from:c.to])
			total += c.n
		}
	}
	m.mu.Lock()
	for _, c := range chunks {
		if c.n >= 0 && (c.old || missing > 0) {
			m.store(enc, text[c.from:c.to], c.n)
		}
	}
	m.mu.Unlock()
	return total
}

// split appends the chunks of text to chunks: cut wherever enc.cut allows.
func split(enc *encoding, text string, chunks []chunk) []chunk {
	from := 0
	for p := 0; p < len(text); {
		i := strings.IndexByte(text[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
		if p < len(text) && enc.cut(text, p) {
			chunks = append(chunks, chunk{from: from, to: p, n: -1})
			from = p
		}
	}
	return append(chunks, chunk{from: from, to: len(text), n: -1})
}

// store keeps text → n in the current generation (m.mu held for writing);
// a chunk larger than a quarter of a generation is not kept.
func (m *Memo) store(enc *encoding, text string, n int) {
	size := len(text) + entryOverhead
	if size > m.genBytes/4 {
		return
	}
	if _, ok := m.cur[memoKey{enc, text}]; ok {
		return
	}
	if m.curBytes+size > m.genBytes {
		m.old, m.cur, m.curBytes = m.cur, make(map[memoKey]int32, len(m.cur)), 0
	}
	m.cur[memoKey{enc, strings.Clone(text)}] = int32(n)
	m.curBytes += size
}

// cutFor returns the rule saying where text may be cut into chunks whose
// counts add up to the whole text's count. A cut at p is exact when the
// pretokenizer (the split pattern each encoding applies before BPE) ends a
// piece at p in the whole text and splits the two sides, each alone, into
// the same pieces; BPE then works piece by piece.
//
// Every cut follows a newline (text[p-1] == '\n') and comes before a
// visible, non-space character c other than '/'. In o200k_base and
// cl100k_base no alternative of the pattern matches a newline followed by
// such a c: the letter alternatives refuse \r\n in their optional leading
// character, the punctuation one takes only [\r\n/]* (o200k) or [\r\n]*
// (cl100k) after its run, and the whitespace ones take only whitespace.
// The only look-ahead, \s+(?!\S), is tried after \s*[\r\n]+, which already
// ends every whitespace run that ends in a newline, so the left side alone
// splits the same way.
//
// In the older pattern of p50k_base, p50k_edit and r50k_base there is no
// \s*[\r\n]+: a run of whitespace before c splits into all but its last
// character and that last character, while the left side alone would keep
// the run in one piece. There a newline is cut after only when the
// character before it is not whitespace, so the newline is a piece of its
// own on both sides.
func cutFor(name string) func(text string, p int) bool {
	switch name {
	case "o200k_base", "cl100k_base":
		return cutBeforeVisible
	}
	return func(text string, p int) bool {
		if p >= 2 {
			r, _ := utf8.DecodeLastRuneInString(text[:p-1])
			if unicode.IsSpace(r) || r == utf8.RuneError {
				return false
			}
		}
		return cutBeforeVisible(text, p)
	}
}

// cutBeforeVisible reports whether text[p] starts a visible character
// that is neither a space nor '/'.
func cutBeforeVisible(text string, p int) bool {
	c := text[p]
	if c < utf8.RuneSelf {
		return c > ' ' && c < 0x7f && c != '/'
	}
	r, _ := utf8.DecodeRuneInString(text[p:])
	return r != utf8.RuneError && unicode.IsGraphic(r) && !unicode.IsSpace(r)
}

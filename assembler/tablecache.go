package assembler

import (
	"encoding/binary"
	"hash/maphash"
	"reflect"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/promptdesk/promptdesk/library"
)

// DefaultTableCacheBytes bounds the rendered-table cache: 4 MB of keys,
// tables and entry overhead.
const DefaultTableCacheBytes = 4 << 20

// tableCache keeps rendered knowledge-base and skill tables keyed by
// everything they are rendered from: the same bases and skills arrive on
// most requests, and escaping and cutting their cells is most of the work
// of a table. Entries are found by a hash of the inputs and then checked
// field by field against the inputs they were rendered from, so a hash
// collision is a miss, never a wrong table. It holds at most its size in
// bytes in two generations: when the current one fills, the older is
// dropped and the current becomes the older (a hit in the older moves the
// entry back). Safe for concurrent use.
type tableCache struct {
	mu       sync.RWMutex
	cur, old map[uint64]tableEntry
	curBytes int
	genBytes int
}

// tableEntry is one rendered table and its inputs, serialised (key).
// labels and loc hold the label map and time zone whose identities are in
// the key, so neither address can be reused by another map or zone while
// the entry lives.
type tableEntry struct {
	key    string
	text   string
	labels library.Labels
	loc    *time.Location
}

func newTableCache(maxBytes int) *tableCache {
	return &tableCache{cur: map[uint64]tableEntry{}, old: map[uint64]tableEntry{}, genBytes: max(maxBytes/2, 1<<10)}
}

// get returns the table rendered from the inputs that inputs writes.
func (c *tableCache) get(h uint64, inputs func(tableInputs)) (string, bool) {
	c.mu.RLock()
	e, ok := c.cur[h]
	old := false
	if !ok {
		e, ok = c.old[h]
		old = ok
	}
	c.mu.RUnlock()
	if !ok {
		return "", false
	}
	m := keyMatcher{rest: e.key, ok: true}
	inputs(&m)
	if !m.ok || m.rest != "" {
		return "", false
	}
	if old {
		c.put(h, e)
	}
	return e.text, true
}

func (c *tableCache) put(h uint64, e tableEntry) {
	size := len(e.key) + len(e.text) + 128
	if size > c.genBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.curBytes+size > c.genBytes {
		c.old, c.cur, c.curBytes = c.cur, make(map[uint64]tableEntry, len(c.cur)), 0
	}
	delete(c.old, h)
	c.cur[h] = e
	c.curBytes += size
}

// tableInputs receives the inputs of one table in order: the key writer,
// the hasher and the matcher all walk the same inputs.
type tableInputs interface {
	str(s string)
	num(n int64)
}

var tableSeed = maphash.MakeSeed()

// keyHasher hashes inputs. It need not tell inputs apart (entries are
// checked against their inputs), so strings are hashed without lengths and
// numbers by their low bytes.
type keyHasher struct{ h maphash.Hash }

func (k *keyHasher) str(s string) { k.h.WriteString(s) }

func (k *keyHasher) num(n int64) { k.h.WriteByte(byte(n)) }

// keyWriter serialises inputs as the key an entry keeps.
type keyWriter struct{ b []byte }

func (k *keyWriter) str(s string) {
	k.num(int64(len(s)))
	k.b = append(k.b, s...)
}

func (k *keyWriter) num(n int64) { k.b = binary.AppendVarint(k.b, n) }

// keyMatcher checks inputs against a serialised key.
type keyMatcher struct {
	rest string
	ok   bool
}

func (k *keyMatcher) str(s string) {
	k.num(int64(len(s)))
	if !k.ok || len(k.rest) < len(s) || k.rest[:len(s)] != s {
		k.ok = false
		return
	}
	k.rest = k.rest[len(s):]
}

func (k *keyMatcher) num(n int64) {
	if !k.ok {
		return
	}
	var b [binary.MaxVarintLen64]byte
	enc := binary.AppendVarint(b[:0], n)
	if len(k.rest) < len(enc) || k.rest[:len(enc)] != string(enc) {
		k.ok = false
		return
	}
	k.rest = k.rest[len(enc):]
}

// Table kinds, the first input of a key.
const (
	tableKnowledge = iota + 1
	tableSkills
)

// tableContext writes what every table depends on besides its rows: its
// kind, the identities of the label map and time zone, and the locale.
func tableContext(w tableInputs, kind int64, l labeler, loc *time.Location) {
	w.num(kind)
	w.num(int64(uintptr(reflect.ValueOf(l.labels).UnsafePointer())))
	w.num(int64(uintptr(unsafe.Pointer(loc))))
	w.str(l.locale)
}

func inputTime(w tableInputs, t time.Time) {
	if t.IsZero() {
		w.num(0)
		return
	}
	w.num(1)
	w.num(t.Unix())
	w.num(int64(t.Nanosecond()))
}

// knowledgeInputs writes what writeKnowledgeTable reads of kb: its
// heading, the row count and the rows shown (docs, the shown documents
// in order, for a document base).
func knowledgeInputs(w tableInputs, kb *KnowledgeBase, docs []*Document) {
	w.str(kb.Name)
	w.str(kb.Type)
	w.str(kb.Description)
	w.num(int64(kb.DocCount))
	w.num(int64(kb.rows()))
	if kb.Type == KnowledgeFAQ {
		for _, e := range kb.FAQEntries[:min(len(kb.FAQEntries), MaxRowsPerBase)] {
			w.str(e.Question)
			w.str(e.ChunkID)
			w.num(int64(len(e.Answers)))
			for _, a := range e.Answers {
				w.str(a)
			}
		}
		return
	}
	for _, d := range docs {
		w.str(d.Title)
		w.str(d.FileName)
		w.str(d.FileType)
		w.num(d.FileSize)
		inputTime(w, d.CreatedAt)
		w.str(d.Summary)
	}
}

// skillInputs writes the rows of a skill table.
func skillInputs(w tableInputs, rows []skillRow) {
	w.num(int64(len(rows)))
	for i := range rows {
		w.str(rows[i].name)
		w.str(rows[i].description)
		w.str(rows[i].trigger)
	}
}

// cachedTable returns the table of the inputs that inputs writes (context
// first) from the cache, or renders it with render and stores it.
func (a *Assembler) cachedTable(l labeler, loc *time.Location, inputs func(tableInputs), render func(b *strings.Builder)) string {
	var h keyHasher
	h.h.SetSeed(tableSeed)
	inputs(&h)
	sum := h.h.Sum64()
	if t, ok := a.tables.get(sum, inputs); ok {
		return t
	}
	var b strings.Builder
	render(&b)
	var k keyWriter
	inputs(&k)
	e := tableEntry{key: string(k.b), text: b.String(), labels: l.labels, loc: loc}
	a.tables.put(sum, e)
	return e.text
}

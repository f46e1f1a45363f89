package assembler

import (
	"encoding/binary"
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
// of a table. It holds at most its size in bytes in two generations: when
// the current one fills, the older is dropped and the current becomes the
// older (a hit in the older moves the entry back). Safe for concurrent
// use.
type tableCache struct {
	mu       sync.RWMutex
	cur, old map[string]tableEntry
	curBytes int
	genBytes int
}

// tableEntry is one rendered table. labels and loc hold the label map and
// time zone whose identities are in the key, so neither address can be
// reused by another map or zone while the entry lives.
type tableEntry struct {
	text   string
	labels library.Labels
	loc    *time.Location
}

func newTableCache(maxBytes int) *tableCache {
	return &tableCache{cur: map[string]tableEntry{}, old: map[string]tableEntry{}, genBytes: max(maxBytes/2, 1<<10)}
}

// get returns the table rendered for key.
func (c *tableCache) get(key []byte) (string, bool) {
	c.mu.RLock()
	e, ok := c.cur[string(key)]
	if !ok {
		e, ok = c.old[string(key)]
		if ok {
			c.mu.RUnlock()
			c.put(string(key), e)
			return e.text, true
		}
	}
	c.mu.RUnlock()
	return e.text, ok
}

// put stores e under key (a string of its own, never a view into a
// request).
func (c *tableCache) put(key string, e tableEntry) {
	size := len(key) + len(e.text) + 96
	if size > c.genBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.cur[key]; ok {
		return
	}
	if c.curBytes+size > c.genBytes {
		c.old, c.cur, c.curBytes = c.cur, make(map[string]tableEntry, len(c.cur)), 0
	}
	delete(c.old, key)
	c.cur[key] = e
	c.curBytes += size
}

// tableKey builds the cache key of one table: what kind of table, the
// identities of the label map and time zone it is rendered with, and then
// every input of the table, each length-prefixed.
type tableKey struct{ b []byte }

var keyPool = sync.Pool{New: func() any { return &tableKey{b: make([]byte, 0, 4<<10)} }}

func newTableKey(kind byte, l labeler, loc *time.Location) *tableKey {
	k := keyPool.Get().(*tableKey)
	k.b = append(k.b[:0], kind)
	k.b = binary.LittleEndian.AppendUint64(k.b, uint64(uintptr(reflect.ValueOf(l.labels).UnsafePointer())))
	k.b = binary.LittleEndian.AppendUint64(k.b, uint64(uintptr(unsafe.Pointer(loc))))
	k.str(l.locale)
	return k
}

func (k *tableKey) release() {
	if cap(k.b) <= 256<<10 {
		keyPool.Put(k)
	}
}

func (k *tableKey) str(s string) {
	k.b = binary.AppendUvarint(k.b, uint64(len(s)))
	k.b = append(k.b, s...)
}

func (k *tableKey) num(n int64) { k.b = binary.AppendVarint(k.b, n) }

func (k *tableKey) time(t time.Time) {
	if t.IsZero() {
		k.b = append(k.b, 0)
		return
	}
	k.b = append(k.b, 1)
	k.num(t.Unix())
	k.num(int64(t.Nanosecond()))
}

// Table kinds in a key.
const (
	tableKnowledge byte = iota + 1
	tableSkills
)

// knowledgeKey adds what writeKnowledgeTable reads of kb.
func (k *tableKey) knowledge(kb *KnowledgeBase) {
	k.str(kb.Name)
	k.str(kb.Type)
	k.str(kb.Description)
	k.num(int64(kb.DocCount))
	k.num(int64(len(kb.RecentDocs)))
	for i := range kb.RecentDocs {
		d := &kb.RecentDocs[i]
		k.str(d.Title)
		k.str(d.FileName)
		k.str(d.FileType)
		k.num(d.FileSize)
		k.time(d.CreatedAt)
		k.str(d.Summary)
	}
	k.num(int64(len(kb.FAQEntries)))
	for i := range kb.FAQEntries {
		e := &kb.FAQEntries[i]
		k.str(e.Question)
		k.str(e.ChunkID)
		k.num(int64(len(e.Answers)))
		for _, a := range e.Answers {
			k.str(a)
		}
	}
}

// skillsKey adds the rows of a skill table.
func (k *tableKey) skills(rows []skillRow) {
	k.num(int64(len(rows)))
	for i := range rows {
		k.str(rows[i].name)
		k.str(rows[i].description)
		k.str(rows[i].trigger)
	}
}

// cachedTable returns the table for key from the cache, or renders it
// with render and stores it.
func (a *Assembler) cachedTable(k *tableKey, l labeler, loc *time.Location, render func(b *strings.Builder)) string {
	defer k.release()
	if t, ok := a.tables.get(k.b); ok {
		return t
	}
	var b strings.Builder
	render(&b)
	t := b.String()
	a.tables.put(string(k.b), tableEntry{text: t, labels: l.labels, loc: loc})
	return t
}

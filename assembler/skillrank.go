package assembler

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"weak"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/weakcache"
)

// BM25 parameters: the usual term-frequency saturation and length
// normalisation.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Field weights of a skill's search document: the title and the trigger
// keywords say what a skill is for more densely than its description.
const (
	weightID          = 1
	weightTitle       = 2
	weightDescription = 1
	weightKeywords    = 2
)

// skillDoc is the search document of one skill: weighted term frequencies
// and the weighted length.
type skillDoc struct {
	tf     map[string]float64
	length float64
}

// add adds the terms of text with weight w.
func (d *skillDoc) add(text string, w float64) {
	forTerms(text, func(t string) {
		d.tf[t] += w
		d.length += w
	})
}

// forTerms calls f with each search term of text, in order: text is
// NFKC-folded and lower-cased; a run of letters and digits is a term, but
// a run of Han or Kana characters (Chinese and Japanese do not separate
// words) gives its character bigrams, or the character alone when the run
// is one character long. Anything else separates terms.
func forTerms(text string, f func(string)) {
	text = fold(text)
	word, cjk := -1, -1 // byte offsets where the current run started
	var prev int        // offset of the previous rune of a CJK run
	flushWord := func(end int) {
		if word >= 0 {
			f(text[word:end])
			word = -1
		}
	}
	flushCJK := func(end int) {
		if cjk >= 0 && prev == cjk { // a one-character run
			f(text[cjk:end])
		}
		cjk = -1
	}
	for i, r := range text {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
			flushWord(i)
			if cjk >= 0 {
				f(text[prev : i+utf8.RuneLen(r)])
			} else {
				cjk = i
			}
			prev = i
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			flushCJK(i)
			if word < 0 {
				word = i
			}
		default:
			flushWord(i)
			flushCJK(i)
		}
	}
	flushWord(len(text))
	flushCJK(len(text))
}

// moduleDoc returns the search document of a task module: its id (split
// at '.', '-' and '_'), title, description and trigger keywords and
// commands. It depends on the module alone, so it is made once per module.
func (a *Assembler) moduleDoc(m *library.Module) *skillDoc {
	key := weak.Make(m)
	if d, ok := a.skillDocs.Load(key); ok {
		return d.(*skillDoc)
	}
	d := &skillDoc{tf: map[string]float64{}}
	d.add(m.ID, weightID)
	d.add(m.Title, weightTitle)
	d.add(m.Description, weightDescription)
	for _, t := range m.Triggers {
		for _, k := range t.Keywords {
			d.add(k, weightKeywords)
		}
		d.add(t.Command, weightKeywords)
	}
	weakcache.Store(m, &a.skillDocs, key, d)
	return d
}

// runtimeDoc is the search document of a runtime skill: its name and
// description.
func runtimeDoc(name, description string) *skillDoc {
	d := &skillDoc{tf: map[string]float64{}}
	d.add(name, weightTitle)
	d.add(description, weightDescription)
	return d
}

// queryTerms are the distinct search terms of a request, in order of
// first occurrence: its message, command and attachment names.
func queryTerms(req *Request) []string {
	var terms []string
	add := func(t string) {
		if !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	forTerms(req.Message, add)
	forTerms(req.Command, add)
	for _, at := range req.Attachments {
		forTerms(at.Name, add)
	}
	return terms
}

// skillPool is the skills a request can list in its skills-available
// segment: the catalogue's task modules but the excluded ones (the one
// that entered the skills-hit segment, those in the base segment), then
// the request's runtime skills. A skill is named by its ref: a task's
// index in the catalogue, or -(i+1) for runtime skill i.
type skillPool struct {
	cat *catalogue
	// excluded and fired are task refs, ascending; fired are the tasks
	// whose triggers fired (and yielded), listed whatever the budget.
	excluded, fired []int32
	runtime         []skillRow
	runtimeDocs     []*skillDoc
}

// size is how many skills the pool holds.
func (p *skillPool) size() int { return len(p.cat.tasks) - len(p.excluded) + len(p.runtime) }

// row is the skill-table row of ref.
func (p *skillPool) row(ref int32) skillRow {
	if ref < 0 {
		return p.runtime[-ref-1]
	}
	row := p.cat.rows[ref]
	_, row.fired = slices.BinarySearch(p.fired, ref)
	return row
}

// name is the name of ref in the table.
func (p *skillPool) name(ref int32) string {
	if ref < 0 {
		return p.runtime[-ref-1].name
	}
	return p.cat.rows[ref].name
}

// doc is the search document of ref.
func (p *skillPool) doc(ref int32) *skillDoc {
	if ref < 0 {
		return p.runtimeDocs[-ref-1]
	}
	return p.cat.docs[ref]
}

// isExcluded reports whether the task ref is not in the pool.
func (p *skillPool) isExcluded(ref int32) bool {
	_, found := slices.BinarySearch(p.excluded, ref)
	return found
}

// tableBytes is the length of the whole skill table without its header:
// every row and its line break.
func (p *skillPool) tableBytes() int {
	n := p.cat.tableBytes
	for _, ref := range p.excluded {
		n -= p.cat.rowBytes[ref]
	}
	var line strings.Builder
	for i := range p.runtime {
		line.Reset()
		writeSkillRow(&line, &p.runtime[i])
		n += line.Len() + 1
	}
	return n
}

// all is every row of the pool in library order: task modules by id,
// then the runtime skills as sent.
func (p *skillPool) all() []skillRow {
	rows := make([]skillRow, 0, p.size())
	for i := range p.cat.tasks {
		if ref := int32(i); !p.isExcluded(ref) {
			rows = append(rows, p.row(ref))
		}
	}
	return append(rows, p.runtime...)
}

// ranking is a pool's skills, most relevant to a request first: by BM25
// score, ties (a score of 0 included) by name, then by position (task
// modules before runtime skills). fired are the fired tasks in that
// order; the rest (every other skill) come from each.
type ranking struct {
	p     *skillPool
	fired []int32
	// scored are the rest with a score above 0, in order. skip has a bit
	// per task and skipRuntime a flag per runtime skill for those not
	// among the skills scoring 0: scored, fired or (tasks) excluded.
	scored      []int32
	skip        []uint64
	skipRuntime []bool
	// runtimeByName are the runtime skills' refs by name, then position.
	runtimeByName []int32
}

// rank ranks p's skills against req with Okapi BM25 (IDF
// log(1 + (N-df+0.5)/(df+0.5)), k1 1.2, b 0.75) over the weighted term
// frequencies. A term in more than half the skills is a stop word: it
// says little about which skill fits, so it weighs nothing and is not
// looked up in the skills that hold it, and a request costs what its
// rarer terms match rather than the library's size. The terms are summed
// in query order, so the same request gets bit-for-bit the same scores.
func (p *skillPool) rank(req *Request) *ranking {
	r := &ranking{p: p, skip: make([]uint64, (len(p.cat.tasks)+63)/64), skipRuntime: make([]bool, len(p.runtime))}
	n := float64(p.size())
	total := p.cat.totalLength
	for _, ref := range p.excluded {
		total -= p.cat.docs[ref].length
	}
	if len(p.runtime) > 0 && p.runtimeDocs == nil {
		p.runtimeDocs = make([]*skillDoc, len(p.runtime))
		for i, row := range p.runtime {
			p.runtimeDocs[i] = runtimeDoc(row.name, row.description)
		}
	}
	for _, d := range p.runtimeDocs {
		total += d.length
	}
	// scores are by slot: a task's ref, then the runtime skills.
	scores := make([]float64, len(p.cat.tasks)+len(p.runtime))
	slot := func(ref int32) int32 {
		if ref < 0 {
			return int32(len(p.cat.tasks)) - ref - 1
		}
		return ref
	}
	var touched []int32
	if avg := total / n; n > 0 && avg > 0 {
		for _, t := range queryTerms(req) {
			posting := p.cat.postings[t]
			df := len(posting)
			for _, ref := range p.excluded {
				if p.cat.docs[ref].tf[t] > 0 {
					df--
				}
			}
			for _, d := range p.runtimeDocs {
				if d.tf[t] > 0 {
					df++
				}
			}
			if df == 0 || 2*df > int(n) {
				continue
			}
			idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
			add := func(ref int32, tf, length float64) {
				i := slot(ref)
				if scores[i] == 0 {
					touched = append(touched, ref)
				}
				scores[i] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*length/avg))
			}
			for _, post := range posting {
				if !p.isExcluded(post.ref) {
					add(post.ref, post.tf, p.cat.docs[post.ref].length)
				}
			}
			for i, d := range p.runtimeDocs {
				if tf := d.tf[t]; tf > 0 {
					add(int32(-i-1), tf, d.length)
				}
			}
		}
	}
	before := func(x, y int32) int {
		if sx, sy := scores[slot(x)], scores[slot(y)]; sx != sy {
			if sx > sy {
				return -1
			}
			return 1
		}
		if c := strings.Compare(p.name(x), p.name(y)); c != 0 {
			return c
		}
		return cmpPosition(x, y)
	}
	r.fired = slices.Clone(p.fired)
	slices.SortStableFunc(r.fired, before)
	for _, ref := range p.fired {
		r.skipRef(ref)
	}
	for _, ref := range p.excluded {
		r.skipRef(ref)
	}
	for _, ref := range touched {
		if _, fired := slices.BinarySearch(p.fired, ref); !fired {
			r.scored = append(r.scored, ref)
			r.skipRef(ref)
		}
	}
	slices.SortFunc(r.scored, before)
	r.runtimeByName = make([]int32, len(p.runtime))
	for i := range r.runtimeByName {
		r.runtimeByName[i] = int32(-i - 1)
	}
	slices.SortStableFunc(r.runtimeByName, func(x, y int32) int { return strings.Compare(p.name(x), p.name(y)) })
	return r
}

// skipRef marks ref as not among the skills scoring 0.
func (r *ranking) skipRef(ref int32) {
	if ref < 0 {
		r.skipRuntime[-ref-1] = true
	} else {
		r.skip[ref/64] |= 1 << (ref % 64)
	}
}

// skipped reports whether skipRef(ref) was called.
func (r *ranking) skipped(ref int32) bool {
	if ref < 0 {
		return r.skipRuntime[-ref-1]
	}
	return r.skip[ref/64]&(1<<(ref%64)) != 0
}

// cmpPosition orders refs by their place in the pool: tasks by index,
// then runtime skills as sent.
func cmpPosition(x, y int32) int {
	switch {
	case x >= 0 && y >= 0:
		return int(x - y)
	case x >= 0:
		return -1
	case y >= 0:
		return 1
	}
	return int(y - x)
}

// each calls f with the refs of the rest of the ranking (every skill
// but the fired ones), in order from the k-th (counted from 0), until f
// returns false: the scored ones, then the ones scoring 0 by name,
// merging the tasks (already by id) with the runtime skills.
func (r *ranking) each(k int, f func(ref int32) bool) {
	for ; k < len(r.scored); k++ {
		if !f(r.scored[k]) {
			return
		}
	}
	k -= len(r.scored)
	tasks, runtime := r.p.cat.tasks, r.runtimeByName
	i, j := 0, 0
	for {
		for i < len(tasks) && r.skipped(int32(i)) {
			i++
		}
		for j < len(runtime) && r.skipped(runtime[j]) {
			j++
		}
		var ref int32
		switch {
		case i < len(tasks) && (j == len(runtime) || strings.Compare(tasks[i].Module.ID, r.p.name(runtime[j])) <= 0):
			ref = int32(i)
			i++
		case j < len(runtime):
			ref = runtime[j]
			j++
		default:
			return
		}
		if k > 0 {
			k--
			continue
		}
		if !f(ref) {
			return
		}
	}
}

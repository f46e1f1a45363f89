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

// bm25 scores each document against the query terms with Okapi BM25
// (IDF log(1 + (N-df+0.5)/(df+0.5)), k1 1.2, b 0.75) over the weighted
// term frequencies. The terms are summed in query order, so the same
// request gets bit-for-bit the same scores.
func bm25(docs []*skillDoc, query []string) []float64 {
	scores := make([]float64, len(docs))
	if len(docs) == 0 || len(query) == 0 {
		return scores
	}
	var total float64
	for _, d := range docs {
		total += d.length
	}
	avg := total / float64(len(docs))
	if avg == 0 {
		return scores
	}
	n := float64(len(docs))
	for _, t := range query {
		df := 0
		for _, d := range docs {
			if d.tf[t] > 0 {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for i, d := range docs {
			tf := d.tf[t]
			if tf == 0 {
				continue
			}
			scores[i] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*d.length/avg))
		}
	}
	return scores
}

// rankSkills returns the indexes of rows, most relevant to req first: by
// BM25 score, ties (a score of 0 included) by name, then by position.
func (a *Assembler) rankSkills(req *Request, rows []skillRow) []int {
	docs := make([]*skillDoc, len(rows))
	for i := range rows {
		if s := rows[i].served; s != nil {
			docs[i] = a.moduleDoc(s.Module)
		} else {
			docs[i] = runtimeDoc(rows[i].name, rows[i].description)
		}
	}
	scores := bm25(docs, queryTerms(req))
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		if scores[i] != scores[j] {
			if scores[i] > scores[j] {
				return -1
			}
			return 1
		}
		return strings.Compare(rows[i].name, rows[j].name)
	})
	return order
}

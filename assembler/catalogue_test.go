package assembler

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/librarytest"
)

// The catalogue's candidates leave out no task that fires: for requests
// made of the generated library's keywords and commands (whole, glued to
// other letters, in every locale, with and without attachments) and the
// app's examples, the tasks fired by way of the index are exactly those
// fired by trying every task.
func TestCandidatesFindEveryFiringTask(t *testing.T) {
	t.Parallel()
	snap, err := librarytest.Library(2000)
	if err != nil {
		t.Fatal(err)
	}
	examples, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	var exampleReqs []*Request
	for _, ex := range examples {
		req, err := DecodeRequest(ex.Request)
		if err != nil {
			t.Fatal(err)
		}
		exampleReqs = append(exampleReqs, req)
	}
	a := New(Config{})
	for _, locale := range librarytest.Locales {
		reqs := slices.Clone(exampleReqs)
		cat := a.catalogue(snap, &State{}, library.LocaleKey(locale), a.labelsFor(snap, locale))
		for i := 0; i < len(cat.tasks); i += 23 {
			m := cat.tasks[i].Module
			for _, tr := range m.Triggers {
				for _, k := range tr.Keywords {
					reqs = append(reqs,
						&Request{Locale: locale, Message: "please " + strings.ToUpper(k) + " now"},
						&Request{Locale: locale, Message: "x" + k + "y", Attachments: []Attachment{{Name: "a.pdf"}}})
				}
				if tr.Command != "" {
					reqs = append(reqs, &Request{Locale: locale, Command: tr.Command}, &Request{Locale: locale, Message: tr.Command + " and more"})
				}
			}
		}
		checked, fired := 0, 0
		for _, req := range reqs {
			folded, command := fold(req.Message), leadingCommand(req)
			var viaIndex, viaAll []string
			for _, ref := range cat.candidates(folded, command, len(req.Attachments) > 0) {
				if reason, ok := fire(cat.tasks[ref].Module, req, folded, command); ok {
					viaIndex = append(viaIndex, cat.tasks[ref].Module.ID+" "+reason)
				}
			}
			for _, s := range cat.tasks {
				if reason, ok := fire(s.Module, req, folded, command); ok {
					viaAll = append(viaAll, s.Module.ID+" "+reason)
				}
			}
			if !slices.Equal(viaIndex, viaAll) {
				t.Errorf("%s %q (command %q): the index fires %q, every task tried fires %q", locale, req.Message, req.Command, viaIndex, viaAll)
			}
			checked++
			fired += len(viaAll)
		}
		if checked < 200 || fired < checked {
			t.Fatalf("%s: only %d requests and %d firings checked", locale, checked, fired)
		}
		t.Logf("%s: %d requests, %d firings", locale, checked, fired)
	}
}

// The ranking through the catalogue's postings gives every skill its
// BM25 score as computed over all documents: with a term in more than
// half the skills weighing nothing, the same order as scoring every
// document one by one.
func TestRankMatchesScoringEveryDocument(t *testing.T) {
	t.Parallel()
	snap, err := librarytest.Library(1000)
	if err != nil {
		t.Fatal(err)
	}
	a := New(Config{})
	cat := a.catalogue(snap, &State{}, "en-us", a.labelsFor(snap, "en-US"))
	p := &skillPool{cat: cat, excluded: []int32{3, 40}, fired: []int32{7},
		runtime: []skillRow{{name: "zz-runtime", description: cat.rows[11].description}, {name: "aa-runtime", description: "nothing alike"}}}
	for _, msg := range []string{cat.rows[11].description, cat.tasks[500].Module.Title + " please", "hello", "会议 纪要 " + cat.tasks[20].Module.Description} {
		req := &Request{Message: msg}
		got := ranked(p, req)
		// Every document scored one by one.
		type scored struct {
			name  string
			pos   int
			score float64
		}
		var docs []*skillDoc
		var all []scored
		for i := range cat.tasks {
			if !p.isExcluded(int32(i)) {
				docs = append(docs, cat.docs[i])
				all = append(all, scored{name: cat.rows[i].name, pos: i})
			}
		}
		for i, row := range p.runtime {
			docs = append(docs, runtimeDoc(row.name, row.description))
			all = append(all, scored{name: row.name, pos: len(cat.tasks) + i})
		}
		var total float64
		for _, d := range docs {
			total += d.length
		}
		n, avg := float64(len(docs)), total/float64(len(docs))
		for _, term := range queryTerms(req) {
			df := 0
			for _, d := range docs {
				if d.tf[term] > 0 {
					df++
				}
			}
			if df == 0 || 2*df > len(docs) {
				continue
			}
			idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
			for i, d := range docs {
				if tf := d.tf[term]; tf > 0 {
					all[i].score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*d.length/avg))
				}
			}
		}
		slices.SortStableFunc(all, func(x, y scored) int {
			if x.score != y.score {
				if x.score > y.score {
					return -1
				}
				return 1
			}
			if c := strings.Compare(x.name, y.name); c != 0 {
				return c
			}
			return x.pos - y.pos
		})
		want := []string{cat.rows[7].name}
		for _, s := range all {
			if s.name != cat.rows[7].name {
				want = append(want, s.name)
			}
		}
		if !slices.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("%q: ranking differs from position %d: %q, want %q", msg, i, got[i:min(i+5, len(got))], want[i:min(i+5, len(want))])
					break
				}
			}
			if len(got) != len(want) {
				t.Errorf("%q: %d ranked, want %d", msg, len(got), len(want))
			}
		}
		if all[0].score == 0 && msg != "hello" {
			t.Errorf("%q: nothing scored", msg)
		}
	}
}

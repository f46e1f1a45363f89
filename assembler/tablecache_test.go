package assembler

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// A cached table is the table rendered from the request at hand: after
// the cache holds the examples' tables, changing any one field of a
// knowledge base or a skill row (a string, a number, a time, one element
// fewer) gives exactly what rendering the changed input gives.
func TestTableCacheFollowsEveryInput(t *testing.T) {
	snap, examples := builtinExamples(t)
	a := New(Config{})
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, ex := range examples {
		req, err := DecodeRequest(ex.Request)
		if err != nil {
			t.Fatal(err)
		}
		for _, locale := range []string{"en-US", "zh-CN"} {
			l := a.labelsFor(snap, locale)
			for _, loc := range []*time.Location{time.UTC, shanghai} {
				for i := range req.KnowledgeBases {
					kb := req.KnowledgeBases[i]
					render := func(kb *KnowledgeBase) string {
						var b strings.Builder
						writeKnowledgeTable(&b, l, kb, shownDocs(kb), loc)
						return b.String()
					}
					cached := func(kb *KnowledgeBase) string {
						docs := shownDocs(kb)
						return a.cachedTable(l, loc,
							func(w tableInputs) { tableContext(w, tableKnowledge, l, loc); knowledgeInputs(w, kb, docs) },
							func(b *strings.Builder) { writeKnowledgeTable(b, l, kb, docs, loc) })
					}
					if got, want := cached(&kb), render(&kb); got != want {
						t.Fatalf("%s: first render differs", ex.ID)
					}
					for _, m := range mutations(reflect.ValueOf(&kb).Elem(), "kb") {
						changed := deepCopy(kb)
						m.apply(reflect.ValueOf(&changed).Elem())
						if got, want := cached(&changed), render(&changed); got != want {
							t.Errorf("%s %s %s: %s changed: cached table\n%s\nrendered\n%s", ex.ID, locale, loc, m.path, got, want)
						}
						checked++
					}
				}
				r := &renderer{a: a, req: req, lab: l}
				if _, err := a.plan(snap, &State{}, req, nil, locale, r); err != nil {
					t.Fatal(err)
				}
				rows := r.pool.all()
				for i := -1; i < len(rows); i++ {
					for field := range 3 {
						changed := append([]skillRow(nil), rows...)
						switch {
						case i < 0:
							changed = changed[:len(changed)-1]
						case field == 0:
							changed[i].name += " |x\n"
						case field == 1:
							changed[i].description += " |x\n"
						default:
							changed[i].trigger += "x"
						}
						got := a.cachedTable(l, nil,
							func(w tableInputs) { tableContext(w, tableSkills, l, nil); skillInputs(w, changed) },
							func(b *strings.Builder) { writeSkillTable(b, l, changed) })
						var want strings.Builder
						writeSkillTable(&want, l, changed)
						if got != want.String() {
							t.Errorf("%s %s: row %d field %d changed: cached skill table differs from the rendered one", ex.ID, locale, i, field)
						}
						checked++
					}
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d changed inputs checked", checked)
	}
}

// mutation changes one value reached by path.
type mutation struct {
	path  string
	apply func(root reflect.Value)
}

// mutations lists one change per exported leaf value under v (strings,
// numbers, times) and one shortened copy per non-empty slice.
func mutations(v reflect.Value, path string) []mutation {
	var out []mutation
	var walk func(v reflect.Value, path string, get func(reflect.Value) reflect.Value)
	walk = func(v reflect.Value, path string, get func(reflect.Value) reflect.Value) {
		switch {
		case v.Type() == reflect.TypeOf(time.Time{}):
			out = append(out, mutation{path, func(r reflect.Value) {
				f := get(r)
				f.Set(reflect.ValueOf(f.Interface().(time.Time).Add(61 * time.Second)))
			}})
			return
		}
		switch v.Kind() {
		case reflect.String:
			out = append(out, mutation{path, func(r reflect.Value) { f := get(r); f.SetString(f.String() + " |x\n") }})
		case reflect.Int, reflect.Int64:
			out = append(out, mutation{path, func(r reflect.Value) { f := get(r); f.SetInt(f.Int()*3 + 1) }})
		case reflect.Slice:
			if v.Len() > 0 {
				out = append(out, mutation{path + "[:-1]", func(r reflect.Value) { f := get(r); f.Set(f.Slice(0, f.Len()-1)) }})
			}
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i), func(r reflect.Value) reflect.Value { return get(r).Index(i) })
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if !v.Type().Field(i).IsExported() {
					continue
				}
				walk(v.Field(i), path+"."+v.Type().Field(i).Name, func(r reflect.Value) reflect.Value { return get(r).Field(i) })
			}
		}
	}
	walk(v, path, func(r reflect.Value) reflect.Value { return r })
	return out
}

// deepCopy copies slices so a mutation never reaches the original.
func deepCopy[T any](x T) T {
	var c func(v reflect.Value) reflect.Value
	c = func(v reflect.Value) reflect.Value {
		switch v.Kind() {
		case reflect.Slice:
			if v.IsNil() {
				return v
			}
			n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			for i := 0; i < v.Len(); i++ {
				n.Index(i).Set(c(v.Index(i)))
			}
			return n
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(time.Time{}) {
				return v
			}
			n := reflect.New(v.Type()).Elem()
			n.Set(v)
			for i := 0; i < v.NumField(); i++ {
				if n.Field(i).CanSet() {
					n.Field(i).Set(c(v.Field(i)))
				}
			}
			return n
		}
		return v
	}
	return c(reflect.ValueOf(x)).Interface().(T)
}

// Two inputs under one hash: the entry is checked against the inputs it
// was rendered from, so the other input misses instead of getting it.
func TestTableCacheCollisionIsAMiss(t *testing.T) {
	c := newTableCache(1 << 20)
	var k keyWriter
	inputsA := func(w tableInputs) { w.str("a"); w.num(1) }
	inputsB := func(w tableInputs) { w.str("a"); w.num(2) }
	inputsA(&k)
	c.put(7, tableEntry{key: string(k.b), text: "table of a"})
	if got, ok := c.get(7, inputsA); !ok || got != "table of a" {
		t.Fatalf("get(a) = %q, %v; want the table of a", got, ok)
	}
	if got, ok := c.get(7, inputsB); ok {
		t.Fatalf("get(b) under a's hash = %q; want a miss", got)
	}
	if _, ok := c.get(7, func(w tableInputs) { w.str("a"); w.num(1); w.str("") }); ok {
		t.Fatal("longer inputs with a's prefix: want a miss")
	}
}

// Many requests at once on one assembler whose table cache is small
// enough that generations turn over all the time: every text is the one
// an assembler without a warm cache gives (run with -race as well).
func TestTableCacheConcurrent(t *testing.T) {
	snap, examples := builtinExamples(t)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	reqs := make([]*Request, len(examples))
	want := make([]string, len(examples))
	for i, ex := range examples {
		req, err := DecodeRequest(ex.Request)
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = req
		res, err := New(Config{}).Assemble(snap, nil, req, now)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = res.Text
	}
	a := New(Config{})
	a.tables = newTableCache(16 << 10)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 40 {
				i := (g + n) % len(reqs)
				res, err := a.Assemble(snap, nil, reqs[i], now)
				if err != nil || res.Text != want[i] {
					errs <- fmt.Sprintf("%s: %v, or a text other than the uncached one", examples[i].ID, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

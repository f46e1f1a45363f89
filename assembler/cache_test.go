package assembler

import (
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler/tokens"
	"github.com/promptdesk/promptdesk/library"
)

// The per-module caches (trigger cells, static token counts) do not keep
// replaced modules alive: every overlay rebuild and library reload parses
// new modules, so entries of modules nobody serves any more must go.
func TestCachesForgetReplacedModules(t *testing.T) {
	snap, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := snap.Labels("en-US")
	lab := labeler{labels, "en-us"}
	a := New(Config{CountTokens: true})
	counter, err := a.counter("")
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	// The modules stay reachable until every entry is counted: a collection
	// during the loop would already drop some.
	alive := make([]*library.Module, 0, n)
	for i := range n {
		m, err := library.Parse("task-cache.md", []byte("---\nid: task.cache\nlayer: task\nversion: 1\ntitle: Cache\ndescription: A module parsed again on every rebuild.\ntriggers:\n- kind: command\n  command: /cache\n---\nSummarise the text.\n"))
		if err != nil {
			t.Fatal(err)
		}
		alive = append(alive, m)
		if got := a.triggerCell(lab, m); got == "" {
			t.Fatalf("iteration %d: empty trigger cell", i)
		}
		text := "Summarise the text."
		e := &entered{served: Served{Module: m}, text: span{0, len(text), true}}
		if got := a.moduleTokens(counter, e, text, lab); got == 0 {
			t.Fatalf("iteration %d: 0 tokens", i)
		}
	}
	size := func(m *sync.Map) (k int) {
		m.Range(func(any, any) bool { k++; return true })
		return k
	}
	if tr, st := size(&a.triggers), size(&a.static); tr != n || st != n {
		t.Fatalf("before collection: %d trigger and %d token entries, want %d each", tr, st, n)
	}
	runtime.KeepAlive(alive)
	// Cleanups run after a collection, on their own goroutine.
	deadline := time.Now().Add(10 * time.Second)
	for size(&a.triggers)+size(&a.static) > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if tr, st := size(&a.triggers), size(&a.static); tr != 0 || st != 0 {
		t.Errorf("after collection: %d trigger and %d token entries remain, want 0", tr, st)
	}
}

// Warming leaves no trace in results: every example assembles to the same
// result on a warmed assembler (caches and memo filled) as on a fresh one.
func TestWarmChangesNoResult(t *testing.T) {
	snap, examples := builtinExamples(t)
	warm := New(Config{CountTokens: true})
	warm.Warm(snap)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, ex := range examples {
		req, err := DecodeRequest(ex.Request)
		if err != nil {
			t.Fatal(err)
		}
		got, err := warm.Assemble(snap, nil, req, now)
		if err != nil {
			t.Fatal(err)
		}
		want, err := New(Config{CountTokens: true, TokenMemo: tokens.NewMemo(tokens.DefaultMemoBytes)}).Assemble(snap, nil, req, now)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the warmed assembler's result differs from a fresh one's", ex.ID)
		}
	}
}

// builtinExamples is the builtin library and the app's examples, which
// several tests of this package assemble.
func builtinExamples(t *testing.T) (*library.Snapshot, []Example) {
	t.Helper()
	snap, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	examples, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	return snap, examples
}

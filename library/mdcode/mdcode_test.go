package mdcode

import (
	"maps"
	"slices"
	"testing"
)

func TestCodeLines(t *testing.T) {
	text := "a\n```go\nx\n~~~\n```\nb\n  ~~~~ text\n```\n~~~\nc\n````\nd\n```\ne\n```x`\nf"
	got := slices.Sorted(maps.Keys(CodeLines(text)))
	// ``` opens (2) and closes (5), ~~~ inside it is code; ~~~~ (7) is
	// closed only by a run of at least four tildes, so 8-10 are code; ````
	// (11) opens a block that runs to the end (12-16), its ``` too short
	// to close it.
	want := []int{2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	if !slices.Equal(got, want) {
		t.Errorf("CodeLines = %v, want %v", got, want)
	}
	if got := CodeLines("```x`\n{{ a }}"); len(got) != 0 {
		t.Errorf("a backtick after the run is inline code, not a fence: %v", got)
	}
}

func TestSpans(t *testing.T) {
	l := "a `b {{` c ``d ` e`` f ```g"
	got := Spans(l)
	want := [][2]int{{2, 8}, {11, 20}}
	if !slices.Equal(got, want) {
		t.Fatalf("Spans = %v, want %v", got, want)
	}
	if !InSpan(got, 4) || InSpan(got, 8) || InSpan(got, 24) {
		t.Errorf("InSpan: offset 4 is in `b {{`, 8 and 24 are not")
	}
}

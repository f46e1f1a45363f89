package library

import (
	"reflect"
	"testing"
	"unsafe"
)

func TestScan(t *testing.T) {
	// Braces that are not placeholders pass byte for byte.
	text := `Reply as JSON like {"answer": "...", "refs": [{"id": 1}]}. Handlebars users write {{ }} or {{#each items}}. Greet {{name}}.`
	got := Scan(text)
	want := []Piece{
		{Literal: `Reply as JSON like {"answer": "...", "refs": [{"id": 1}]}. Handlebars users write {{ }} or {{#each items}}. Greet `},
		{Name: "name"},
		{Literal: "."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Scan:\n got %#v\nwant %#v", got, want)
	}
	cases := map[string][]Piece{
		`\{{name}}`:         {{Literal: "{{name}}"}},
		`{{1}} {{Name}}`:    {{Literal: "{{1}} {{Name}}"}},
		`{{task.doc-min}}x`: {{Name: "task.doc-min"}, {Literal: "x"}},
		`{{{a}}}`:           {{Literal: "{"}, {Name: "a"}, {Literal: "}"}},
		`a\b {{a}`:          {{Literal: `a\b {{a}`}},
	}
	for in, want := range cases {
		if got := Scan(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Scan(%q) = %#v, want %#v", in, got, want)
		}
	}
}

func TestPlaceholderLines(t *testing.T) {
	got := Placeholders("a\n{{x}}\n\nb {{y}} {{z}}")
	want := []Placeholder{{"x", 2}, {"y", 4}, {"z", 4}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A literal run without an escape is a substring of the scanned text,
// not a copy (a library holds the pieces of every module); one with an
// escape is the run's text with the backslash dropped.
func TestScanSharesText(t *testing.T) {
	text := "Answer {{ }} in {{lang}}, {not {{x} a placeholder}, then \\{{y}} stays."
	pieces := Scan(text)
	want := []Piece{{Literal: "Answer {{ }} in "}, {Name: "lang"}, {Literal: ", {not {{x} a placeholder}, then {{y}} stays."}}
	if !reflect.DeepEqual(pieces, want) {
		t.Fatalf("Scan:\n got %#v\nwant %#v", pieces, want)
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	if p := uintptr(unsafe.Pointer(unsafe.StringData(pieces[0].Literal))); p != start {
		t.Errorf("the first literal is a copy, not text[0:]")
	}
	if p := uintptr(unsafe.Pointer(unsafe.StringData(pieces[2].Literal))); p >= start && p < start+uintptr(len(text)) {
		t.Errorf("the literal with an escape points into text; it must be a new string without the backslash")
	}
}

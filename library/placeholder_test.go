package library

import (
	"reflect"
	"testing"
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

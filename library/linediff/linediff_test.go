package linediff

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	got := Diff("a\nb\nc\n", "a\nB\nc\nd")
	want := []Line{
		{Op: Equal, Text: "a", Old: 1, New: 1},
		{Op: Delete, Text: "b", Old: 2},
		{Op: Insert, Text: "B", New: 2},
		{Op: Equal, Text: "c", Old: 3, New: 3},
		{Op: Insert, Text: "d", New: 4},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Diff =\n%v\nwant\n%v", got, want)
	}
	if ins, del := Count(got); ins != 2 || del != 1 {
		t.Errorf("Count = +%d -%d, want +2 -1", ins, del)
	}
	if d := Diff("x\r\ny\r\n", "x\ny"); len(d) != 2 || d[0].Op != Equal || d[1].Op != Equal {
		t.Errorf("CRLF and the final newline count as changes: %v", d)
	}
	if d := Diff("", "one\n"); len(d) != 1 || d[0] != (Line{Op: Insert, Text: "one", New: 1}) {
		t.Errorf("Diff from empty = %v", d)
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	var old, new []string
	for i := 1; i <= 20; i++ {
		old = append(old, fmt.Sprint("line ", i))
	}
	new = slices.Clone(old)
	new[9] = "changed"
	lines := Fold(Diff(strings.Join(old, "\n"), strings.Join(new, "\n")), 2)
	var shape []string
	for _, l := range lines {
		switch l.Op {
		case Folded:
			shape = append(shape, fmt.Sprintf("…%d@%d", l.Count, l.Old))
		default:
			shape = append(shape, fmt.Sprintf("%s%d", l.Op.String()[:1], max(l.Old, l.New)))
		}
	}
	want := []string{"…7@1", "e8", "e9", "d10", "i10", "e11", "e12", "…8@13"}
	if !slices.Equal(shape, want) {
		t.Errorf("Fold = %v, want %v", shape, want)
	}
	if f := Fold(Diff("a\nb\nc\n", "a\nb\nc\n"), 3); len(f) != 1 || f[0].Op != Folded || f[0].Count != 3 {
		t.Errorf("an unchanged text folds to %v", f)
	}
	// A short run between two changes is kept whole.
	if f := Fold(Diff("a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n"), 1); len(f) != 7 {
		t.Errorf("short run folded: %v", f)
	}
}

// paragraphs joins numbered paragraphs with blank lines, after a header.
func paragraphs(ps ...string) string {
	return "---\nid: base.x\n---\n" + strings.Join(ps, "\n\n") + "\n"
}

func TestMerge(t *testing.T) {
	t.Parallel()
	base := paragraphs("P1 one.", "P2 two.", "P3 three.", "P4 four.")
	for _, tc := range []struct {
		name              string
		override, builtin string
		want              string
		conflicts         []Conflict
	}{
		{
			name:     "different paragraphs",
			override: paragraphs("P1 one.", "P2 two.", "P3 three, mine.", "P4 four."),
			builtin:  paragraphs("P1 one, upstream.", "P2 two.", "P3 three.", "P4 four."),
			want:     paragraphs("P1 one, upstream.", "P2 two.", "P3 three, mine.", "P4 four."),
		},
		{
			name:     "neighbouring paragraphs",
			override: paragraphs("P1 one.", "P2 two, mine.", "P3 three.", "P4 four."),
			builtin:  paragraphs("P1 one.", "P2 two.", "P3 three, upstream.", "P4 four."),
			want:     paragraphs("P1 one.", "P2 two, mine.", "P3 three, upstream.", "P4 four."),
		},
		{
			name:     "insert and upstream insert elsewhere",
			override: paragraphs("P0 mine.", "P1 one.", "P2 two.", "P3 three.", "P4 four."),
			builtin:  paragraphs("P1 one.", "P2 two.", "P3 three.", "P4 four.", "P5 upstream."),
			want:     paragraphs("P0 mine.", "P1 one.", "P2 two.", "P3 three.", "P4 four.", "P5 upstream."),
		},
		{
			name:     "same change on both sides",
			override: paragraphs("P1 one.", "P2 two!", "P3 three.", "P4 four."),
			builtin:  paragraphs("P1 one.", "P2 two!", "P3 three.", "P4 four, upstream."),
			want:     paragraphs("P1 one.", "P2 two!", "P3 three.", "P4 four, upstream."),
		},
		{
			name:     "same paragraph",
			override: paragraphs("P1 one.", "P2 two, mine.", "P3 three.", "P4 four, mine."),
			builtin:  paragraphs("P1 one, upstream.", "P2 two, upstream.", "P3 three.", "P4 four."),
			want: paragraphs("P1 one, upstream.", MarkerOverride+"\nP2 two, mine.\n"+MarkerSeparator+"\nP2 two, upstream.\n"+MarkerBuiltin,
				"P3 three.", "P4 four, mine."),
			conflicts: []Conflict{{Line: 6, Override: "P2 two, mine.\n", Builtin: "P2 two, upstream.\n"}},
		},
		{
			name:     "deleted upstream, edited here",
			override: paragraphs("P1 one.", "P2 two.", "P3 three, mine.", "P4 four."),
			builtin:  "---\nid: base.x\n---\nP1 one.\n\nP2 two.\n\nP4 four.\n",
			want: "---\nid: base.x\n---\nP1 one.\n\nP2 two.\n\n" + MarkerOverride + "\nP3 three, mine.\n\n" + MarkerSeparator +
				"\n" + MarkerBuiltin + "\nP4 four.\n",
			conflicts: []Conflict{{Line: 8, Override: "P3 three, mine.\n\n", Builtin: ""}},
		},
		{
			name:     "no newline at the end",
			override: strings.TrimSuffix(paragraphs("P1 one.", "P2 two.", "P3 three.", "P4 mine."), "\n"),
			builtin:  strings.TrimSuffix(paragraphs("P1 one.", "P2 two.", "P3 three.", "P4 upstream."), "\n"),
			want: paragraphs("P1 one.", "P2 two.", "P3 three.", MarkerOverride+"\nP4 mine.\n"+MarkerSeparator+"\nP4 upstream.\n"+
				MarkerBuiltin),
			conflicts: []Conflict{{Line: 10, Override: "P4 mine.\n", Builtin: "P4 upstream.\n"}},
		},
		{
			name:     "nothing upstream",
			override: paragraphs("mine"),
			builtin:  base,
			want:     paragraphs("mine"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := Merge(base, tc.override, tc.builtin)
			if err != nil {
				t.Fatal(err)
			}
			if m.Text != tc.want {
				t.Errorf("merged text:\n%s\nwant:\n%s", m.Text, tc.want)
			}
			if !slices.Equal(m.Conflicts, tc.conflicts) {
				t.Errorf("conflicts %+v, want %+v", m.Conflicts, tc.conflicts)
			}
			if got := Conflicts(m.Text); !slices.Equal(got, tc.conflicts) {
				t.Errorf("Conflicts finds %+v, want %+v", got, tc.conflicts)
			}
			if got, want := len(MarkerLines(m.Text)), 3*len(tc.conflicts); got != want {
				t.Errorf("%d marker lines, want %d", got, want)
			}
		})
	}
}

// TestMergeNeverDropsAChange merges many random edits: every line either
// side added must be in the result, inside or outside a conflict.
func TestMergeNeverDropsAChange(t *testing.T) {
	t.Parallel()
	var base []string
	for i := range 40 {
		base = append(base, fmt.Sprintf("line %d", i%13)) // repeated lines, as blank lines are
	}
	edit := func(seed int, tag string) []string {
		out := slices.Clone(base)
		for k := range 4 {
			i := (seed*7 + k*11) % len(out)
			switch (seed + k) % 3 {
			case 0:
				out[i] = fmt.Sprintf("%s %d", tag, k)
			case 1:
				out = slices.Insert(out, i, fmt.Sprintf("%s new %d", tag, k))
			case 2:
				out = slices.Delete(out, i, i+1)
			}
		}
		return out
	}
	for seed := range 60 {
		o, n := edit(seed, "mine"), edit(seed*5+3, "upstream")
		m, err := Merge(strings.Join(base, "\n")+"\n", strings.Join(o, "\n")+"\n", strings.Join(n, "\n")+"\n")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(m.Text, "\n")
		for _, l := range append(o, n...) {
			if (strings.HasPrefix(l, "mine") || strings.HasPrefix(l, "upstream")) && !slices.Contains(lines, l) {
				t.Errorf("seed %d: %q was lost:\n%s", seed, l, m.Text)
			}
		}
		if len(MarkerLines(m.Text)) != 3*len(m.Conflicts) {
			t.Errorf("seed %d: %d markers for %d conflicts", seed, len(MarkerLines(m.Text)), len(m.Conflicts))
		}
	}
}

func TestMarkerLines(t *testing.T) {
	t.Parallel()
	text := "a\n=======\n<<<<<<< override\nx\n=======\ny\n>>>>>>> builtin\n=======\n"
	if got, want := MarkerLines(text), []int{3, 5, 7}; !slices.Equal(got, want) {
		t.Errorf("MarkerLines = %v, want %v (a ======= outside a block is a heading underline)", got, want)
	}
}

func TestStraySeparators(t *testing.T) {
	half := "a\n=======\nb\n"
	if got := StraySeparators(half, "a\n", "b\n"); len(got) != 1 || got[0] != 2 {
		t.Fatalf("StraySeparators = %v, want [2]", got)
	}
	if got := StraySeparators(half, "Title\n=======\n", "b\n"); got != nil {
		t.Fatalf("a source with a setext heading keeps the line legitimate: %v", got)
	}
}

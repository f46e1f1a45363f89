package layout

import (
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/views/components"
)

// The headline is true whether all, none or some of the broken files
// keep a last good version serving.
func TestBrokenSummary(t *testing.T) {
	serving := components.BrokenFile{Path: "modules/en-US/task-a.md", Serving: true}
	never := components.BrokenFile{Path: "modules/en-US/task-b.md"}
	labels := components.BrokenFile{Path: "labels/en-US.yaml", Instead: "the embedded en-US labels"}
	for _, c := range []struct {
		files []components.BrokenFile
		want  string
	}{
		{[]components.BrokenFile{serving}, "Library folder ./lib: 1 file broken; its last good version keeps serving"},
		{[]components.BrokenFile{serving, serving}, "Library folder ./lib: 2 files broken; their last good versions keep serving"},
		{[]components.BrokenFile{never}, "Library folder ./lib: 1 file broken and not served: it has no good version yet"},
		{[]components.BrokenFile{never, never}, "Library folder ./lib: 2 files broken and not served: none has a good version yet"},
		{[]components.BrokenFile{serving, never}, "Library folder ./lib: 2 files broken: 1 keeps serving its last good version, 1 is not served (no good version yet)"},
		{[]components.BrokenFile{serving, serving, never, never, never}, "Library folder ./lib: 5 files broken: 2 keep serving their last good versions, 3 are not served (no good version yet)"},
		{[]components.BrokenFile{labels}, "Library folder ./lib: 1 file broken; the embedded en-US labels serve in its place"},
		{[]components.BrokenFile{labels, labels}, "Library folder ./lib: 2 files broken; fallbacks serve in their place"},
		{[]components.BrokenFile{serving, labels, never}, "Library folder ./lib: 3 files broken: 1 keeps serving its last good version, 1 has a fallback serving in its place, 1 is not served (no good version yet)"},
	} {
		if got := brokenSummary("./lib", c.files); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// Each entry reads as one line: path:line, the field when there is one,
// the message, then whether its last good version serves.
func TestLibraryBannerEntries(t *testing.T) {
	var b strings.Builder
	err := libraryBanner("./lib", []components.BrokenFile{
		{Path: "modules/en-US/task-a.md", Line: 7, Field: "triggers", Message: "frontmatter is not valid YAML", Serving: true},
		{Path: "modules/en-US/task-b.md", Line: 1, Message: "the file is empty"},
		{Path: "labels/en-US.yaml", Message: "not valid YAML", Instead: "the embedded en-US labels"},
	}).Render(context.Background(), &b)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	items := doc.Find(`[data-testid="library-broken"]`)
	want := []string{
		"modules/en-US/task-a.md:7: field triggers: frontmatter is not valid YAML (its last good version serves)",
		"modules/en-US/task-b.md:1: the file is empty (not served: no good version yet)",
		"labels/en-US.yaml: not valid YAML (not served: the embedded en-US labels serve in its place)",
	}
	if items.Length() != len(want) {
		t.Fatalf("%d entries, want %d:\n%s", items.Length(), len(want), b.String())
	}
	for i, w := range want {
		if got := strings.Join(strings.Fields(items.Eq(i).Text()), " "); got != w {
			t.Errorf("entry %d: %q\nwant %q", i, got, w)
		}
	}
	if p, _ := items.Eq(0).Attr("data-path"); p != "modules/en-US/task-a.md" {
		t.Errorf("data-path %q", p)
	}
}

package state

import (
	"testing"
	"unsafe"

	"github.com/promptdesk/promptdesk/library"
)

// A search matches the title or the description case-insensitively but
// never across the two, and a text without upper case is searched in the
// module's own string, not in a lower-cased copy.
func TestSearchTexts(t *testing.T) {
	en, err := library.Parse("task-digest.md", []byte("---\nid: task.digest\nlayer: task\nversion: 1\ntitle: Weekly Digest\ndescription: summarises the week's threads\n---\nBody.\n"))
	if err != nil {
		t.Fatal(err)
	}
	zh, err := library.Parse("task-digest.md", []byte("---\nid: task.digest\nlayer: task\nversion: 1\ntitle: 每周摘要\ndescription: 汇总本周的讨论与决定\n---\n正文。\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := &moduleTexts{}
	texts := append(c.lower(en), c.lower(zh)...)
	for q, want := range map[string]bool{"DIGEST": true, "week's threads": true, "digest summarises": false, "摘要": true, "本周的讨论": true, "摘要汇总": false} {
		if got := matchesText(texts, q); got != want {
			t.Errorf("search %q: %t, want %t", q, got, want)
		}
	}
	if again := c.lower(zh); unsafe.StringData(again[1].text) != unsafe.StringData(texts[3].text) {
		t.Errorf("the texts of a module are lowered again on each call")
	}
	if unsafe.StringData(texts[3].text) != unsafe.StringData(zh.Description) || unsafe.StringData(texts[2].text) != unsafe.StringData(zh.Title) {
		t.Errorf("a text without upper case is copied")
	}
	if texts[0].text != "weekly digest" {
		t.Errorf("lowered title %q", texts[0].text)
	}
}

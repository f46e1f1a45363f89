package library

import (
	"errors"
	"strings"
	"testing"
)

// PluralKey picks the text of n's CLDR category in the locale's
// language, and other where the file gives no text for that category.
func TestPluralKey(t *testing.T) {
	t.Parallel()
	en := Labels{"kb.documents.one": "", "kb.documents.other": ""}
	zh := Labels{"kb.documents.other": ""}
	// Russian has one, few and many; this file gives one and few only.
	ru := Labels{"kb.documents.one": "", "kb.documents.few": "", "kb.documents.other": ""}
	tests := []struct {
		labels Labels
		locale string
		n      int
		want   string
	}{
		{en, "en-US", 1, "kb.documents.one"},
		{en, "en-us", 1, "kb.documents.one"},
		{en, "en-US", 0, "kb.documents.other"},
		{en, "en-US", 2, "kb.documents.other"},
		{en, "en-US", 21, "kb.documents.other"},
		{en, "en-US", -1, "kb.documents.one"},
		{zh, "zh-CN", 1, "kb.documents.other"},
		{zh, "zh-CN", 2, "kb.documents.other"},
		{ru, "ru-RU", 21, "kb.documents.one"},
		{ru, "ru-RU", 3, "kb.documents.few"},
		{ru, "ru-RU", 5, "kb.documents.other"}, // many has no text here
		{en, "not a tag!", 1, "kb.documents.other"},
	}
	for _, tt := range tests {
		if got := tt.labels.PluralKey("kb.documents", tt.locale, tt.n); got != tt.want {
			t.Errorf("%s n=%d: %s, want %s", tt.locale, tt.n, got, tt.want)
		}
	}
}

// A label file gives the optional plural categories it needs, and must
// give other; a category outside CLDR's, or a placeholder the plural
// label does not offer, is refused on its line.
func TestParseLabelsPluralForms(t *testing.T) {
	t.Parallel()
	base := labelFile(t, "en-US")
	if _, err := ParseLabels("en-US.yaml", []byte(base+"kb.documents.few: \"{{count}} documents\"\n")); err != nil {
		t.Errorf("an optional few form: %v", err)
	}
	l, err := ParseLabels("zh-CN.yaml", []byte(labelFile(t, "zh-CN")))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l["kb.documents.one"]; ok {
		t.Error("the zh-CN labels give a one form; Chinese has no plural")
	}
	tests := []struct {
		name, text, field, msg string
	}{
		{"no other", strings.Replace(base, "kb.documents.other:", "# kb.documents.other:", 1), "", "kb.documents.other"},
		{"unknown category", base + "kb.documents.several: \"x\"\n", "kb.documents.several", "unknown label key"},
		{"unknown base", base + "kb.questions.one: \"x\"\n", "kb.questions.one", "unknown label key"},
		{"placeholder not offered", base + "kb.documents.two: \"{{name}}\"\n", "kb.documents.two", "placeholder {{name}} is not available"},
	}
	for _, tt := range tests {
		_, err := ParseLabels("en-US.yaml", []byte(tt.text))
		var fe *FileError
		if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) {
			t.Errorf("%s: got %v, want field %q and %q", tt.name, err, tt.field, tt.msg)
		}
	}
}

// Count gives the console's and the CLI's counts in the locale's plural
// form from the embedded label files, which hold every count base.
func TestCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		locale, base string
		n            int
		vars         []string
		want         string
	}{
		{"en-US", "count.errors", 1, nil, "1 error"},
		{"en-US", "count.errors", 0, nil, "0 errors"},
		{"en-US", "count.files", 2, nil, "2 files"},
		{"en-US", "count.impact", 1, []string{"total", "4"}, "1 of 4 changes"},
		{"en-US", "count.impact", 2, []string{"total", "4"}, "2 of 4 change"},
		{"zh-CN", "count.errors", 1, nil, "1 个错误"},
		{"ja-JP", "count.errors", 1, nil, "1 error"}, // no embedded labels: en-US
	} {
		if got := Count(c.locale, c.base, c.n, c.vars...); got != c.want {
			t.Errorf("%s %s %d: %q, want %q", c.locale, c.base, c.n, got, c.want)
		}
	}
	for locale, l := range embeddedLabels() {
		for base := range CountLabels {
			if _, ok := l[base+".other"]; !ok {
				t.Errorf("the embedded %s labels lack %s.other", locale, base)
			}
		}
	}
}

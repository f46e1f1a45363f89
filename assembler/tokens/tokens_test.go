package tokens

import (
	"strings"
	"testing"
	"unsafe"
)

// pinTexts are counted in TestPinnedCounts: English with a contraction,
// Chinese with a markdown table and a blank line, code with trailing
// spaces, a comment and a special-token string (counted as text), Japanese
// with a CRLF and a list.
var pinTexts = []string{
	"Hello, world! It's 2026.",
	"请根据以下会议记录，整理出会议纪要。\n\n| 标题 | 摘要 |\n|---|---|\n| 周会 | 讨论了发布计划 |\n",
	"def f(x):\n    return x  \n\n/* note */\n  <|endoftext|>",
	"日本語のテキスト：東京で会議。\r\n- item one\n- item two\n",
}

// The counts of each shipped encoding are pinned (they were the same with
// the previous library, pkoukk/tiktoken-go), so a library change cannot
// shift counts silently.
func TestPinnedCounts(t *testing.T) {
	want := map[string][]int{
		"o200k_base":  {9, 35, 19, 20},
		"cl100k_base": {10, 48, 18, 25},
		"p50k_base":   {9, 90, 24, 34},
		"p50k_edit":   {9, 90, 24, 34},
		"r50k_base":   {9, 90, 27, 34},
	}
	for _, name := range Encodings {
		c, err := ForEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range pinTexts {
			if got := c.WithMemo(nil).Count(text); got != want[name][i] {
				t.Errorf("%s, text %d: %d tokens, want %d", name, i, got, want[name][i])
			}
			if got := c.WithMemo(NewMemo(1 << 20)).Count(text); got != want[name][i] {
				t.Errorf("%s, text %d through a memo: %d tokens, want %d", name, i, got, want[name][i])
			}
		}
	}
}

// Texts where a cut after each newline would not add up: blank lines,
// spaces or tabs around newlines, '/' after a newline, CRLF, a newline
// before a letter with a leading apostrophe. Chunks through the memo add
// up to the whole count in every encoding, and the texts are cut.
func TestChunkCutsAreExact(t *testing.T) {
	texts := []string{
		"a  \nb", "x\n\ny", "end.\n/usr/bin\n", "x;\n// note", "},\n/* c */", "**\n/", "a.\n/b", "#\n///x", "x\n\n\nY z", "path\n/usr/bin\nnext", "a\n\tb\nc", "a\n b\nc",
		"one\r\ntwo\r\n\r\nthree", "it\n's\n'S fine", "12\n345\n6789", "标题\n摘要\n\n结论",
		"| a | b |\n|---|---|\n| 1 | 2 |\n", "end.\n", "\nlead", "  \n  x\n!y\n?z",
		"a\u00a0\nb\u3000\nc", "tab\t\nx", "- [x] done\n- [ ] open\n> quote\n# head",
	}
	for _, name := range Encodings {
		c, err := ForEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		cut := 0
		for _, text := range texts {
			whole := c.WithMemo(nil).Count(text)
			memo := NewMemo(1 << 20)
			if got := c.WithMemo(memo).Count(text); got != whole {
				t.Errorf("%s %q: chunks add up to %d, whole text %d", name, text, got, whole)
			}
			if got := c.WithMemo(memo).Count(text); got != whole {
				t.Errorf("%s %q from the memo: %d, whole text %d", name, text, got, whole)
			}
			if len(split(c.enc, text, nil)) > 1 {
				cut++
			}
		}
		if cut < len(texts)/3 {
			t.Errorf("%s: only %d of %d texts were cut into chunks", name, cut, len(texts))
		}
	}
}

// The memo stays within its size however many distinct texts it sees,
// keeps what is used, and its keys are copies of the text, not views.
func TestMemoBoundedAndCopied(t *testing.T) {
	c, err := ForEncoding(DefaultEncoding)
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 10
	m := NewMemo(size)
	mc := c.WithMemo(m)
	buf := []byte("| row | kept |\n")
	kept := unsafe.String(&buf[0], len(buf))
	want := c.WithMemo(nil).Count(string(buf))
	for i := range 5000 {
		if got := mc.Count(kept); got != want {
			t.Fatalf("kept row: %d tokens, want %d", got, want)
		}
		mc.Count(strings.Repeat("x", i%50) + " distinct line " + strings.Repeat("y", i%300) + "\n")
	}
	bytes := 0
	for k := range m.cur {
		bytes += len(k.text) + entryOverhead
	}
	for k := range m.old {
		bytes += len(k.text) + entryOverhead
	}
	if bytes > size {
		t.Errorf("memo holds %d bytes, bound %d", bytes, size)
	}
	n, ok := m.cur[memoKey{c.enc, kept}]
	if !ok || int(n) != want {
		t.Fatalf("the row used on every call is not in the current generation (%d, %v)", n, ok)
	}
	for k := range m.cur {
		if k.text == kept && unsafe.StringData(k.text) == &buf[0] {
			t.Fatal("the memo key is a view into the caller's bytes, not a copy")
		}
	}
}

func TestEncodingFor(t *testing.T) {
	for model, want := range map[string]string{
		"": DefaultEncoding, "gpt-4o": "o200k_base", "gpt-4o-2024-05-13": "o200k_base", "gpt-4": "cl100k_base",
		"gpt-3.5-turbo-0125": "cl100k_base", "text-davinci-003": "p50k_base", "davinci": "r50k_base",
		"claude-sonnet-4": DefaultEncoding, "qwen-max": DefaultEncoding, "gpt2": DefaultEncoding,
	} {
		if got := EncodingFor(model); got != want {
			t.Errorf("EncodingFor(%q) = %q, want %q", model, got, want)
		}
	}
}

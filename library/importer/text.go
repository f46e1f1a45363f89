package importer

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gosimple/slug"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/mdcode"
)

// body builds a module body from literal text and placeholders so that it
// renders what the source rendered: literal text that would read as
// a placeholder is escaped (`\{{name}}`), and a placeholder right after a
// literal backslash, which the module format cannot express, is refused.
type body struct {
	out     strings.Builder
	pending strings.Builder // literal text not yet escaped
	escaped int             // literal {{name}} sequences escaped so far
}

// text appends literal text.
func (w *body) text(s string) { w.pending.WriteString(s) }

// placeholder appends {{name}}; it returns false when the literal text
// before it ends in a backslash, which would turn it into an escape.
func (w *body) placeholder(name string) bool {
	lit := w.pending.String()
	if strings.HasSuffix(lit, `\`) {
		return false
	}
	w.flush()
	w.out.WriteString("{{" + name + "}}")
	return true
}

func (w *body) flush() {
	lit := w.pending.String()
	w.pending.Reset()
	n := 0
	w.out.WriteString(escapeLiteral(lit, &n))
	w.escaped += n
}

// String returns the body so far.
func (w *body) String() string {
	w.flush()
	return w.out.String()
}

// escapeLiteral returns s with a backslash before every `{{name}}` the
// placeholder scanner (library.Scan) would find in it, so the text renders
// as s. n counts the escapes.
func escapeLiteral(s string, n *int) string {
	var out strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			out.WriteString(s[i:])
			return out.String()
		}
		j += i
		end, ok := placeholderEnd(s, j)
		if !ok {
			out.WriteString(s[i : j+1])
			i = j + 1
			continue
		}
		out.WriteString(s[i:j])
		out.WriteByte('\\')
		out.WriteString(s[j:end])
		*n++
		i = end
	}
}

// placeholderEnd returns the end of the `{{name}}` starting at s[j].
func placeholderEnd(s string, j int) (int, bool) {
	k := j + 2
	for k < len(s) && nameByte(s[k], k == j+2) {
		k++
	}
	if k == j+2 || k+1 >= len(s) || s[k] != '}' || s[k+1] != '}' {
		return 0, false
	}
	return k + 2, true
}

// nameByte reports whether c may appear in a placeholder name
// `[a-z_][a-z0-9_.-]*`, first telling whether it is the first byte.
func nameByte(c byte, first bool) bool {
	return c >= 'a' && c <= 'z' || c == '_' || !first && (c >= '0' && c <= '9' || c == '.' || c == '-')
}

// oneLine joins the lines of s with single spaces (a module description is
// one line); lines is how many non-empty lines there were.
func oneLine(s string) (joined string, lines int) {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " "), len(parts)
}

// moduleName maps a source name to a module name (lowercase [a-z0-9._-],
// library.ValidName): each dot-separated part is made a slug (letters
// transliterated and lowercased, Ærø → aero, other characters '-'). ok is
// false when nothing usable is left.
func moduleName(raw string) (name string, ok bool) {
	parts := strings.Split(raw, ".")
	for i, p := range parts {
		parts[i] = slug.Make(p)
	}
	name = strings.Trim(strings.Join(parts, "."), "-.")
	return name, name != "" && library.ValidName(name)
}

// name maps the source name raw of outcome i, written where at says
// (Note.File and Line), to a module name, noting a rename; a name with
// nothing usable fails the outcome.
func (b *builder) name(i int, at Note, raw string) (string, bool) {
	name, ok := moduleName(raw)
	if !ok {
		at.Msg = fmt.Sprintf("name %q has no letters or digits to make a module name of ([a-z0-9._-])", raw)
		b.fail(i, at)
		return "", false
	}
	if name != raw {
		b.noteAt(i, at, "name %q renamed %q (module names are lowercase [a-z0-9._-])", raw, name)
	}
	return name, true
}

// envSuffix is appended to a source variable named like an environment
// value, which a module cannot declare.
const envSuffix = "_value"

// variable maps a source variable name to a placeholder name. A name that
// is an environment value is renamed with envSuffix, keeping the
// caller's contract (the caller still supplies it); note says so. ok is
// false when raw is not a placeholder name.
func variable(raw string) (name, note string, ok bool) {
	if !library.ValidPlaceholderName(raw) {
		return "", "", false
	}
	if _, env := library.LookupEnv(raw); env {
		name = raw + envSuffix
		return name, fmt.Sprintf("variable %q renamed %q: %s is a promptdesk environment value, which a module cannot declare; the caller supplies %s instead", raw, name, raw, name), true
	}
	return raw, "", true
}

// detectLocale guesses the locale of text from its letters outside code
// (fenced blocks and code spans, whose words are the code's): Japanese
// kana → ja-JP, Hangul → ko-KR, Han → zh-CN, or zh-TW when Traditional
// forms outnumber Simplified ones, when such characters outnumber the
// Latin words; else en-US.
func detectLocale(text string) string {
	var han, kana, hangul, words, trad, simp int
	var fence mdcode.Fence
	for _, l := range strings.Split(text, "\n") {
		if fence.Line(l) {
			continue
		}
		spans := mdcode.Spans(l)
		inWord := false
		for at, r := range l {
			if mdcode.InSpan(spans, at) {
				inWord = false
				continue
			}
			isLatin := r < utf8.RuneSelf && unicode.IsLetter(r)
			switch {
			case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
				kana++
			case unicode.Is(unicode.Hangul, r):
				hangul++
			case unicode.Is(unicode.Han, r):
				han++
				if strings.ContainsRune(traditionalForms, r) {
					trad++
				} else if strings.ContainsRune(simplifiedForms, r) {
					simp++
				}
			case isLatin && !inWord:
				words++
			}
			inWord = isLatin
		}
	}
	switch cjk := han + kana + hangul; {
	case cjk <= words:
		return "en-US"
	case kana*10 >= han+kana && kana > 0:
		return "ja-JP"
	case hangul > han:
		return "ko-KR"
	case trad > simp:
		return "zh-TW"
	}
	return "zh-CN"
}

// traditionalForms and simplifiedForms are frequent characters written
// differently in Traditional and Simplified Chinese, pair by pair (the
// Traditional and Simplified forms of this, individual, plural marker,
// come, say, time, will, …), enough to tell the two scripts apart.
const (
	traditionalForms = "\u9019\u500B\u5011\u4F86\u8AAA\u6642\u6703\u5C0D\u65BC\u8207\u70BA\u570B\u5B78\u9EDE\u9084\u5F8C\u958B\u95DC\u7D93\u52D5\u7A2E\u6A23\u767C\u73FE\u554F\u984C\u9AD4\u8A71\u8B93\u5F9E\u904E\u7576\u61C9\u8A72\u5BE6\u969B\u9032\u9593\u9801\u6A94\u8A2D\u8CC7\u932F\u8AA4\u8ACB\u9078\u64C7\u8F38\u9805\u6578\u64DA\u69CB\u57F7\u7DE8\u5BEB\u78BC\u7BC4"
	simplifiedForms  = "\u8FD9\u4E2A\u4EEC\u6765\u8BF4\u65F6\u4F1A\u5BF9\u4E8E\u4E0E\u4E3A\u56FD\u5B66\u70B9\u8FD8\u540E\u5F00\u5173\u7ECF\u52A8\u79CD\u6837\u53D1\u73B0\u95EE\u9898\u4F53\u8BDD\u8BA9\u4ECE\u8FC7\u5F53\u5E94\u8BE5\u5B9E\u9645\u8FDB\u95F4\u9875\u6863\u8BBE\u8D44\u9519\u8BEF\u8BF7\u9009\u62E9\u8F93\u9879\u6570\u636E\u6784\u6267\u7F16\u5199\u7801\u8303"
)

// readText reads p as module text (checkText), normalised (normalize).
// ok is false with the note saying why it cannot be.
func (b *builder) readText(fsys fs.FS, p string) (text string, problem Note, ok bool) {
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return "", Note{Msg: err.Error()}, false
	}
	if n, ok := checkText(data); !ok {
		return "", n, false
	}
	return b.normalize(p, data), Note{}, true
}

// normalize returns the text of file p as library.Normalize reads it (no
// byte order mark, LF line endings), noting on the file (fileNote) each
// change it made.
func (b *builder) normalize(p string, data []byte) string {
	text := library.Normalize(data)
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		b.fileNote(p, Note{Line: 1, Msg: "the file begins with a UTF-8 byte order mark (BOM): removed"})
	}
	if crlf := bytes.Count(data, []byte("\r\n")); crlf > 0 {
		first := 1 + bytes.Count(data[:bytes.Index(data, []byte("\r\n"))], []byte("\n"))
		if ends := bytes.Count(data, []byte("\n")); crlf == ends {
			b.fileNote(p, Note{Msg: "the file's line endings are CR-LF: read as LF"})
		} else {
			b.fileNote(p, Note{Line: first, Msg: fmt.Sprintf("%d of the file's %d line endings are CR-LF, the first on this line: read as LF", crlf, ends)})
		}
	}
	return text
}

// checkText finds what keeps data from being module text: invalid UTF-8
// or a control character other than tab and line breaks.
func checkText(data []byte) (Note, bool) {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return Note{Line: line, Msg: "the text is not valid UTF-8"}, false
		case r == '\n':
			line++
		case r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7f:
			return Note{Line: line, Msg: fmt.Sprintf("the text contains the control character U+%04X; module text may use only tabs and line breaks", r)}, false
		}
		i += size
	}
	return Note{}, true
}

// lineAt is the 1-based line of byte offset off in s.
func lineAt(s string, off int) int { return 1 + strings.Count(s[:off], "\n") }

// walk lists the files under root in fsys (slash paths relative to fsys,
// sorted) and the hidden folders (names starting with a dot) it did not
// enter: all of them, or with Options.Hidden only .git (a repository's
// object store, never prompts).
func (b *builder) walk(fsys fs.FS, root string) (files, hidden []string, err error) {
	err = fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") && (!b.opts.Hidden || d.Name() == ".git") {
				hidden = append(hidden, p)
				return fs.SkipDir
			}
			return nil
		}
		files = append(files, p)
		return nil
	})
	sort.Strings(files)
	return files, hidden, err
}

// skipHidden records the hidden folders walk did not enter.
func (b *builder) skipHidden(hidden []string) {
	for _, h := range hidden {
		if b.opts.Hidden {
			b.skip(h+"/", "a git repository's own folder, not read")
			continue
		}
		b.skip(h+"/", "hidden folder, not read (--hidden reads it)")
	}
}

// isDir reports whether p is a folder in fsys.
func isDir(fsys fs.FS, p string) bool {
	st, err := fs.Stat(fsys, p)
	return err == nil && st.IsDir()
}

// rel is p relative to root (both slash paths under one fs.FS).
func rel(root, p string) string {
	if root == "." {
		return p
	}
	return strings.TrimPrefix(p, root+"/")
}

// firstLine is the first line of prose in text: markup tags and heading
// marks removed, lines without a sentence (blank, a rule, one bare word
// such as a section label) passed over. It is a derived description in the
// source's own words; "" when there is none.
func firstLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(markupTag.ReplaceAllString(l, ""))
		l = strings.TrimSpace(strings.TrimLeft(l, "#>*-= "))
		if strings.ContainsAny(l, " \t") || strings.IndexFunc(l, isCJK) >= 0 {
			return l
		}
	}
	return ""
}

// markupTag matches an XML or HTML tag.
var markupTag = regexp.MustCompile(`</?[A-Za-z_][^<>]*>`)

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// description derives the description of a module whose source gives
// none, noting it on outcome i: the text's first line of prose, else the
// title.
func (b *builder) description(i int, text, title string) string {
	if d := firstLine(text); d != "" {
		b.note(i, 0, "description derived from the first line of prose of the text (the source gives none)")
		return plainText(d)
	}
	b.note(i, 0, "description derived from the title (the source gives none and the text has no line of prose)")
	return title
}

// plainText is module text as plain text, such as a description, which is
// never read for placeholders: an escaped literal `\{{name}}` loses its
// backslash, a placeholder stays `{{name}}`.
func plainText(text string) string {
	var out strings.Builder
	for _, p := range library.Scan(text) {
		if p.Name != "" {
			out.WriteString("{{" + p.Name + "}}")
		} else {
			out.WriteString(p.Literal)
		}
	}
	return out.String()
}

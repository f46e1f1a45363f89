package assembler

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/promptdesk/promptdesk/library"
)

// fold normalises text for trigger matching: NFKC, so full-width
// and half-width forms are equal, then lower case.
func fold(s string) string {
	if !norm.NFKC.IsNormalString(s) {
		s = norm.NFKC.String(s)
	}
	return strings.ToLower(s)
}

// leadingCommand is the slash command of a request: its command field, or
// the message's first token when the message starts with "/".
func leadingCommand(req *Request) string {
	if req.Command != "" {
		return strings.TrimSpace(req.Command)
	}
	msg := strings.TrimLeftFunc(req.Message, unicode.IsSpace)
	if !strings.HasPrefix(msg, "/") {
		return ""
	}
	if i := strings.IndexFunc(msg, unicode.IsSpace); i >= 0 {
		return msg[:i]
	}
	return msg
}

// isCJK reports whether the keyword is in Han, Kana or Hangul script,
// which match as substrings; other scripts match whole words only.
func isCJK(keyword string) bool {
	for _, r := range keyword {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// foldedKeywords caches fold(keyword) and whether it is CJK: keywords
// come from modules and repeat on every request, messages do not.
var foldedKeywords sync.Map

type foldedKeyword struct {
	text string
	cjk  bool
}

func foldKeyword(k string) foldedKeyword {
	if f, ok := foldedKeywords.Load(k); ok {
		return f.(foldedKeyword)
	}
	text := fold(k)
	f := foldedKeyword{text, isCJK(text)}
	foldedKeywords.Store(k, f)
	return f
}

// matchKeyword reports whether keyword occurs in the folded message.
func matchKeyword(folded, keyword string) bool {
	f := foldKeyword(keyword)
	kw := f.text
	if kw == "" {
		return false
	}
	if f.cjk {
		return strings.Contains(folded, kw)
	}
	for from := 0; from <= len(folded); {
		i := strings.Index(folded[from:], kw)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(kw)
		if !wordRuneBefore(folded, start) && !wordRuneAfter(folded, end) {
			return true
		}
		from = start + 1
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func wordRuneBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(r)
}

func wordRuneAfter(s string, i int) bool {
	for _, r := range s[i:] {
		return isWordRune(r)
	}
	return false
}

// fire decides whether a task module's triggers fire for the request and
// returns the reason for the report: "command:/x", "intent:<keyword>" or
// "attachment". Command triggers are checked first: they are explicit
// intent and ignore requiresAttachments.
func fire(m *library.Module, req *Request, folded, command string) (reason string, ok bool) {
	for _, t := range m.Triggers {
		if t.Kind == library.TriggerCommand && command != "" && t.Command == command {
			return "command:" + t.Command, true
		}
	}
	hasAttachment := len(req.Attachments) > 0
	if m.RequiresAttachments && !hasAttachment {
		return "", false
	}
	for _, t := range m.Triggers {
		switch t.Kind {
		case library.TriggerIntent:
			for _, k := range t.Keywords {
				if matchKeyword(folded, k) {
					return "intent:" + k, true
				}
			}
		case library.TriggerAttachment:
			if !hasAttachment {
				continue
			}
			if len(t.Keywords) == 0 {
				return "attachment", true
			}
			for _, k := range t.Keywords {
				if matchKeyword(folded, k) {
					return "attachment+intent:" + k, true
				}
			}
		}
	}
	return "", false
}

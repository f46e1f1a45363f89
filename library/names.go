package library

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// MaxNameLength is the longest name NameProblem allows, in characters:
// names appear in URLs, lists and audit lines.
const MaxNameLength = 64

// NameProblem is the one rule for the names operators give API tokens,
// profiles and scenarios (their ids): 1 to MaxNameLength characters,
// lowercase letters a-z, digits, dots, dashes and underscores, beginning
// with a letter or a digit. It returns what is wrong with s in words that
// fit after the field's name ("id: …"), or "" when s is a good name.
func NameProblem(s string) string {
	const rule = "lowercase letters a-z, digits, dots, dashes and underscores, beginning with a letter or a digit"
	alnum := func(r rune) bool { return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' }
	return NameRuleProblem(s, rule, alnum, func(r rune) bool { return alnum(r) || r == '.' || r == '_' || r == '-' })
}

// NameRuleProblem checks s against a name rule: 1 to MaxNameLength
// characters, each allowed by rest, the first allowed by first; rule
// describes it in the messages. It returns what is wrong with s in words
// that fit after the field's name, or "" when s follows the rule.
func NameRuleProblem(s, rule string, first, rest func(rune) bool) string {
	switch n := utf8.RuneCountInString(s); {
	case s == "":
		return "required: " + rule
	case n > MaxNameLength:
		return fmt.Sprintf("at most %d characters (this one has %d)", MaxNameLength, n)
	}
	if r, _ := utf8.DecodeRuneInString(s); !first(r) {
		return fmt.Sprintf("begins with %s: use %s", character(r), rule)
	}
	for _, r := range s {
		if !rest(r) {
			return fmt.Sprintf("%s is not allowed: use %s", character(r), rule)
		}
	}
	return ""
}

// character names r in a message: quoted, or by its code point when it
// is invisible.
func character(r rune) string {
	switch {
	case r == 0:
		return "the NUL character (U+0000)"
	case unicode.IsControl(r) || unicode.IsSpace(r) && r != ' ':
		return fmt.Sprintf("the control character U+%04X", r)
	}
	return fmt.Sprintf("%q", r)
}

// CanonicalLocale parses s (surrounding space ignored) as a BCP 47 tag
// and returns its canonical form ("en-us" → "en-US"). Errors match
// ErrInvalid.
func CanonicalLocale(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("locale is empty: %w", ErrInvalid)
	}
	tag, err := language.Parse(s)
	if err != nil {
		return "", fmt.Errorf("locale %s: %w", LocaleProblem(s), ErrInvalid)
	}
	return tag.String(), nil
}

// LocaleProblem is the one message for a locale that CanonicalLocale
// refuses: s quoted, then why (a tag can be well-formed, "zz-ZZ", and
// still name no known language).
func LocaleProblem(s string) string {
	return fmt.Sprintf("%q is not a BCP 47 locale tag of a known language, such as en-US or zh-CN", s)
}

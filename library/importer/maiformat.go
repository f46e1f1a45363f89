package importer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/library"
)

// MaiBot renders a prompt in three steps: it swaps every `{{` for
// maiLeft and every `}}` for maiRight, fills the fields with Python's
// str.format (a field naming another prompt gets that prompt's whole
// rendered text), and swaps maiLeft and maiRight back into `{` and `}`.
// The swap comes first, so `{{{name}}}` leaves the field `name` followed
// by maiRight, which no value is named: MaiBot fails on such text, and so
// does the importer, rather than guess what was meant.
const (
	maiLeft  = '\uFDE9'
	maiRight = '\uFDEA'
)

// maiChar is one character of a MaiBot template after the brace swap, with
// its byte offset in the source.
type maiChar struct {
	r   rune
	off int
}

// maiSwap swaps `{{` and `}}` as MaiBot does: left to right, pairs not
// overlapping (MaiBot's two passes, one per pair, give the same result:
// the pairs share no character). A maiLeft or maiRight already in the
// source stays and, as in MaiBot, renders as a brace.
func maiSwap(s string) []maiChar {
	out := make([]maiChar, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; (c == '{' || c == '}') && i+1 < len(s) && s[i+1] == c {
			r := maiLeft
			if c == '}' {
				r = maiRight
			}
			out = append(out, maiChar{r: r, off: i})
			i += 2
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		out = append(out, maiChar{r: r, off: i})
		i += size
	}
	return out
}

// parsePyFormat splits a MaiBot template into literal text and fields as
// MaiBot renders it: the brace swap, then str.format's reading of the
// result. fails lists, each with its line, the text MaiBot's own engine
// fails on (a single `}`, an unclosed `{`, a field without a usable name:
// `{}`, `{0}`, `{a.b}`, a name the swap cut, as in `{{{name}}}`);
// noEquivalent the fields it renders that a module has no equivalent for
// (conversions, format specs, names that are not placeholder names).
func parsePyFormat(s string) (pieces []piece, fails, noEquivalent []Note) {
	cs := maiSwap(s)
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			pieces = append(pieces, piece{lit: lit.String()})
			lit.Reset()
		}
	}
	end := func(k int) int {
		if k < len(cs) {
			return cs[k].off
		}
		return len(s)
	}
	for k := 0; k < len(cs); {
		switch c := cs[k]; c.r {
		case maiLeft:
			lit.WriteByte('{')
			k++
		case maiRight:
			lit.WriteByte('}')
			k++
		case '}':
			fails = append(fails, Note{Line: lineAt(s, c.off), Msg: "a single }: " + maiFails + " (str.format stops at a single }; }} is a literal brace)"})
			k++
		case '{':
			// The field runs to the } that closes it, counting the braces
			// of a nested field as str.format does.
			depth, j := 1, k+1
			for ; j < len(cs) && depth > 0; j++ {
				switch cs[j].r {
				case '{':
					depth++
				case '}':
					depth--
				}
			}
			if depth > 0 {
				fails = append(fails, Note{Line: lineAt(s, c.off), Msg: "a { that is never closed: " + maiFails + " ({{ is a literal brace)"})
				k = len(cs)
				continue
			}
			var field strings.Builder
			for _, fc := range cs[k+1 : j-1] {
				field.WriteRune(fc.r)
			}
			if why, engineFails := maiFieldProblem(field.String()); why != "" {
				// The field is shown with the {{ right before it, if any:
				// `{{{name}}}` is one construct to the reader.
				from := c.off
				if k > 0 && cs[k-1].r == maiLeft && cs[k-1].off == from-2 {
					from -= 2
				}
				n := Note{Line: lineAt(s, c.off), Msg: fmt.Sprintf("field %s: %s", s[from:end(j)], why)}
				if engineFails {
					fails = append(fails, n)
				} else {
					noEquivalent = append(noEquivalent, n)
				}
			} else {
				flush()
				pieces = append(pieces, piece{field: field.String(), line: lineAt(s, c.off)})
			}
			k = j
		default:
			lit.WriteRune(c.r)
			k++
		}
	}
	flush()
	return pieces, fails, noEquivalent
}

// The two kinds of text a module cannot hold.
const (
	maiFails        = "MaiBot's own engine fails on it"
	maiNoEquivalent = "MaiBot renders it, but the module format has no equivalent"
)

// maiFieldProblem says why the str.format field (the text between its
// braces, after the swap) cannot become a placeholder, and whether it is
// because MaiBot's engine fails on it; "" when it is a bare placeholder
// name. It reads the field as str.format does: the name runs to the first
// ':' or '!' outside square brackets.
func maiFieldProblem(field string) (why string, engineFails bool) {
	if field == "" {
		return "an unnamed field: " + maiFails + " (it refuses to load a template that has one)", true
	}
	n := 0
	for n < len(field) && field[n] != ':' && field[n] != '!' {
		if field[n] == '[' {
			if k := strings.IndexByte(field[n:], ']'); k >= 0 {
				n += k
			} else {
				n = len(field) - 1
			}
		}
		n++
	}
	name, rest := field[:n], field[n:]
	switch {
	case strings.ContainsRune(name, '{'):
		return "a { inside the field's name: " + maiFails, true
	case strings.ContainsRune(name, maiLeft) || strings.ContainsRune(name, maiRight):
		shown := strings.NewReplacer(string(maiLeft), "{", string(maiRight), "}").Replace(name)
		return fmt.Sprintf("MaiBot turns {{ and }} into literal braces before it reads fields, so this field's name, %q, holds a brace: %s", shown, maiFails), true
	case name == "" || strings.Trim(name, "0123456789") == "":
		return "a positional field: " + maiFails + " (it passes values by name only)", true
	case strings.ContainsAny(name, ".["):
		return "attribute or index access: " + maiFails + " (it looks the whole field up as one name)", true
	}
	if conv, ok := strings.CutPrefix(rest, "!"); ok {
		if conv == "" || len(conv) > 1 && conv[1] != ':' || !strings.ContainsRune("rsa", rune(conv[0])) {
			return fmt.Sprintf("the conversion !%s is not one of !r, !s, !a: %s", conv, maiFails), true
		}
		return "a conversion (!r, !s, !a): " + maiNoEquivalent, false
	}
	switch {
	case rest != "":
		return "a format spec: " + maiNoEquivalent, false
	case !library.ValidPlaceholderName(name):
		return "not a placeholder name ([a-z_][a-z0-9_.-]*): " + maiNoEquivalent, false
	}
	return "", false
}

// maiEdges is the blank text (spaces, tabs, line breaks: what a module's
// trim removes) that the text written from pieces begins and ends with;
// edges gives those of an included prompt, which the text holds too.
func maiEdges(pieces []piece, edges func(field string) (lead, trail string, include bool)) (lead, trail string) {
	for _, pc := range pieces {
		if pc.field != "" {
			if l, _, inc := edges(pc.field); inc {
				lead += l
			}
			break
		}
		t := strings.TrimLeftFunc(pc.lit, unicode.IsSpace)
		lead += pc.lit[:len(pc.lit)-len(t)]
		if t != "" {
			break
		}
	}
	for k := len(pieces) - 1; k >= 0; k-- {
		pc := pieces[k]
		if pc.field != "" {
			if _, t, inc := edges(pc.field); inc {
				trail = t + trail
			}
			break
		}
		t := strings.TrimRightFunc(pc.lit, unicode.IsSpace)
		trail = pc.lit[len(t):] + trail
		if t != "" {
			break
		}
	}
	return lead, trail
}

// maiIncludes gives the edges (maiEdges) of the prompts a MaiBot prompt
// includes, so that its module holds them around the include: MaiBot
// inserts an included prompt's whole text, line breaks at its ends
// included, where a module include inserts the trimmed text. It also
// says which prompt MaiBot inserts (target) and whether promptdesk would
// serve the same one (unresolved).
type maiIncludes struct {
	byName  map[string][]*maiPrompt          // the prompts of each name that parse, one per locale
	files   map[string]map[string]*maiPrompt // every prompt file: name → locale → prompt
	ids     map[string]string                // prompt name → module id, for the names that are modules
	refused map[string]string                // prompt name → a .prompt file refused for its place
	maibot  string                           // MaiBot's default locale (Options.MaiBotLocale)
	serve   string                           // promptdesk's fallback locale (Options.FallbackLocale)
	memo    map[*maiPrompt][2]string
	busy    map[*maiPrompt]bool
}

// edges is what the text of the prompt MaiBot inserts for name in locale
// (target) begins and ends with; none when that prompt does not parse.
func (m *maiIncludes) edges(name, locale string) (lead, trail string) {
	t := m.target(name, locale)
	for _, pr := range m.byName[name] {
		if pr == t {
			return m.of(pr)
		}
	}
	return "", ""
}

// of is the edges of one prompt's text as its module is written, includes
// within it counted; a prompt met again while its own are worked out (an
// include cycle, which the loader refuses) counts as none.
func (m *maiIncludes) of(pr *maiPrompt) (lead, trail string) {
	if e, ok := m.memo[pr]; ok {
		return e[0], e[1]
	}
	if m.busy[pr] {
		return "", ""
	}
	m.busy[pr] = true
	lead, trail = maiEdges(pr.pieces, func(field string) (string, string, bool) {
		if m.ids[field] == "" {
			return "", "", false
		}
		l, t := m.edges(field, pr.locale)
		return l, t, true
	})
	m.memo[pr] = [2]string{lead, trail}
	return lead, trail
}

// target is the prompt MaiBot inserts for a field naming prompt name in
// locale: that locale's file, else the one of MaiBot's default locale;
// nil when neither has one.
func (m *maiIncludes) target(name, locale string) *maiPrompt {
	if pr := m.files[name][locale]; pr != nil {
		return pr
	}
	return m.files[name][m.maibot]
}

// unresolved says why an include of prompt name from locale cannot be
// imported, "" when it can: locale has no such prompt and MaiBot's
// default locale neither (MaiBot cannot fill the field), or MaiBot fills
// it from its default locale while promptdesk would serve another
// locale's module there, or none. source names a prompt's file.
func (m *maiIncludes) unresolved(name, locale string, source func(*maiPrompt) string) string {
	if m.files[name][locale] != nil {
		return ""
	}
	t := m.files[name][m.maibot]
	if t == nil {
		return fmt.Sprintf("field {%s} names the prompt %s, which has no %s file and none in MaiBot's default locale %s (--maibot-locale): MaiBot cannot fill it", name, name, locale, m.maibot)
	}
	if m.maibot == m.serve {
		return ""
	}
	served := "has no module to serve there (the render fails: not found)"
	if s := m.files[name][m.serve]; s != nil {
		served = fmt.Sprintf("would serve the %s one (%s)", m.serve, source(s))
	}
	return fmt.Sprintf("field {%s}: there is no %s prompt %s, so MaiBot inserts the one of its default locale %s (%s), but promptdesk, whose fallback locale is %s, %s; import and serve with --fallback-locale %s to fill it as MaiBot does, or add the %s prompt",
		name, locale, name, m.maibot, source(t), m.serve, served, m.maibot, locale)
}

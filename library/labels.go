package library

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/parser"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

// LabelKeys maps every label key to the placeholders its text may use.
// Labels are the words of tables and environment values;
// their text lives in `labels/<locale>.yaml`, never in Go.
var LabelKeys = map[string][]string{
	"list.separator":           nil,
	"attachments.none":         nil,
	"weekday.sunday":           nil,
	"weekday.monday":           nil,
	"weekday.tuesday":          nil,
	"weekday.wednesday":        nil,
	"weekday.thursday":         nil,
	"weekday.friday":           nil,
	"weekday.saturday":         nil,
	"web_search.enabled":       nil,
	"web_search.disabled":      nil,
	"kb.heading":               {"name", "type", "count", "documents", "description"},
	"kb.documents.other":       {"count"},
	"kb.entries.other":         {"count"},
	"kb.type.document":         nil,
	"kb.type.faq":              nil,
	"kb.col.title":             nil,
	"kb.col.type":              nil,
	"kb.col.created":           nil,
	"kb.col.size":              nil,
	"kb.col.summary":           nil,
	"kb.col.question":          nil,
	"kb.col.answer":            nil,
	"kb.col.chunk":             nil,
	"kb.more":                  {"count"},
	"kb.empty":                 nil,
	"sel.col.title":            nil,
	"sel.col.type":             nil,
	"sel.col.kb":               nil,
	"sel.col.id":               nil,
	"skill.col.name":           nil,
	"skill.col.description":    nil,
	"skill.col.trigger":        nil,
	"skill.trigger.keywords":   {"keywords"},
	"skill.trigger.command":    {"command"},
	"skill.trigger.attachment": nil,
	"skill.trigger.manual":     nil,
	"skill.trigger.runtime":    nil,
	"skill.trigger.separator":  nil,
	"output_contract.heading":  nil,
}

// PluralLabels maps the base key of every label that depends on a
// number to the placeholders its texts may use. Such a label has one text
// per plural category of the locale's language (Unicode CLDR cardinal
// rules), keyed `<base>.<category>` with a category of PluralCategories:
// `<base>.other` is required and listed in LabelKeys, the others are
// optional (a language without plural forms gives only other; a count
// whose category has no text takes other's).
var PluralLabels = map[string][]string{
	"kb.documents": {"count"},
	"kb.entries":   {"count"},
}

// CountLabels maps the base key of every count the console and the CLI
// show (no model reads them) to the placeholders its text may use:
// `{{count}}` and, for some, the total. Like PluralLabels they are keyed
// `<base>.<category>`; unlike them they are optional in a label file: Count
// reads them from the embedded label files, which give every base's other
// form (a test checks), so a library folder's label files need none.
var CountLabels = map[string][]string{
	"count.errors":             {"count"},
	"count.warnings":           {"count"},
	"count.notices":            {"count"},
	"count.format_errors":      {"count"},
	"count.checklist_warnings": {"count"},
	"count.modules":            {"count"},
	"count.files":              {"count"},
	"count.scenarios":          {"count"},
	"count.revisions":          {"count"},
	"count.conflicts":          {"count"},
	"count.lines":              {"count"},
	"count.more_lines":         {"count"},
	"count.tokens":             {"count"},
	"count.skills":             {"count"},
	"count.impact":             {"count", "total"},
}

// UILocale is the language of the console's and the CLI's own words: the
// locale of their counts (Count).
const UILocale = "en-US"

// Count is the text of the count label base (a key of CountLabels) for n
// in locale, from the embedded label files: "1 error", "3 errors".
// vars are further placeholder values as name, value pairs ("total",
// "5"). A locale without embedded labels takes UILocale's.
func Count(locale, base string, n int, vars ...string) string {
	all := embeddedLabels()
	l, ok := all[locale]
	if !ok {
		locale, l = UILocale, all[UILocale]
	}
	values := map[string]string{"count": strconv.Itoa(n)}
	for i := 0; i+1 < len(vars); i += 2 {
		values[vars[i]] = vars[i+1]
	}
	var b strings.Builder
	for _, p := range Scan(l[l.PluralKey(base, locale, n)]) {
		if p.Name == "" {
			b.WriteString(p.Literal)
		} else {
			b.WriteString(values[p.Name])
		}
	}
	return b.String()
}

// PluralCategories are the CLDR plural categories, as label key suffixes.
var PluralCategories = []string{"zero", "one", "two", "few", "many", "other"}

// pluralForms maps x/text's plural forms to their category names.
var pluralForms = map[plural.Form]string{
	plural.Zero: "zero", plural.One: "one", plural.Two: "two",
	plural.Few: "few", plural.Many: "many", plural.Other: "other",
}

// Labels is one locale's label texts, keyed as LabelKeys (plus the
// optional plural categories of PluralLabels).
type Labels map[string]string

// PluralKey returns the key of the text of the plural label base (a key
// of PluralLabels) for the whole number n in locale: `<base>.<category>`
// when l has a text for n's category in locale's language, else
// `<base>.other`. An unknown locale takes the other text.
func (l Labels) PluralKey(base, locale string, n int) string {
	if tag, err := language.Parse(locale); err == nil {
		if n < 0 {
			n = -n
		}
		// Operands as CLDR defines them for a whole number: integer
		// digits (modulo 10^7 as MatchPlural allows), no fraction.
		key := base + "." + pluralForms[plural.Cardinal.MatchPlural(tag, n%10_000_000, 0, 0, 0, 0)]
		if _, ok := l[key]; ok {
			return key
		}
	}
	return base + ".other"
}

// labelPlaceholders returns the placeholders key may use and whether
// key is a label key at all: one of LabelKeys or a plural category of a
// PluralLabels or CountLabels base.
func labelPlaceholders(key string) ([]string, bool) {
	if allowed, ok := LabelKeys[key]; ok {
		return allowed, true
	}
	i := strings.LastIndexByte(key, '.')
	if i < 0 || !contains(PluralCategories, key[i+1:]) {
		return nil, false
	}
	if allowed, ok := PluralLabels[key[:i]]; ok {
		return allowed, true
	}
	allowed, ok := CountLabels[key[:i]]
	return allowed, ok
}

// ParseLabels reads a label file: a flat YAML mapping with every key of
// LabelKeys, string values, and only the placeholders allowed per key.
// Errors are *FileError values naming file, line and key.
func ParseLabels(file string, data []byte) (Labels, error) {
	text := Normalize(data)
	f, err := parser.ParseBytes([]byte(text), 0)
	if err != nil {
		fe := yamlError(file, "not valid YAML", text, 1, err)
		if m := duplicateKey.FindStringSubmatch(fe.Msg); m != nil {
			fe.Field, fe.Msg = m[1], "label given twice"
		}
		return nil, fe
	}
	labels := Labels{}
	if len(f.Docs) == 1 && f.Docs[0].Body != nil {
		kvs, err := asMapping(file, "", f.Docs[0].Body)
		if err != nil {
			return nil, err
		}
		for _, kv := range kvs {
			key := kv.Key.String()
			line := kv.Key.GetToken().Position.Line
			allowed, known := labelPlaceholders(key)
			if !known {
				return nil, &FileError{File: file, Line: line, Field: key, Msg: "unknown label key"}
			}
			if _, dup := labels[key]; dup {
				return nil, &FileError{File: file, Line: line, Field: key, Msg: "label given twice"}
			}
			s, err := stringField(file, key, kv.Value)
			if err != nil {
				err.(*FileError).Line = line
				return nil, err
			}
			for _, p := range Placeholders(s) {
				if !contains(allowed, p.Name) {
					return nil, &FileError{File: file, Line: line, Field: key, Msg: fmt.Sprintf("placeholder {{%s}} is not available in this label (allowed: %v)", p.Name, allowed)}
				}
			}
			labels[key] = s
		}
	}
	var missing []string
	for key := range LabelKeys {
		if _, ok := labels[key]; !ok {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, &FileError{File: file, Msg: missingLabels(missing)}
	}
	return labels, nil
}

// missingLabels says which label keys (sorted) a file lacks: how many,
// and the first few by name, since a file missing most keys would
// otherwise list them all.
func missingLabels(missing []string) string {
	const shown = 5
	what := fmt.Sprintf("%d of the %d labels are missing", len(missing), len(LabelKeys))
	if len(missing) == 1 {
		what = fmt.Sprintf("1 of the %d labels is missing", len(LabelKeys))
	}
	if len(missing) <= shown {
		return what + ": " + strings.Join(missing, ", ") + " (every label key is required)"
	}
	return fmt.Sprintf("%s: %s and %d more (every label key is required)", what, strings.Join(missing[:shown], ", "), len(missing)-shown)
}

// embeddedLabels parses the label files of the embedded library once:
// locale → labels. Those are the labels of a library
// folder's locales that have no label file of their own. A file that does
// not parse is left out here; Builtin reports it.
var embeddedLabels = sync.OnceValue(func() map[string]Labels {
	out := map[string]Labels{}
	files, _ := fs.ReadDir(builtinFS, "labels")
	for _, f := range files {
		locale, ok := strings.CutSuffix(f.Name(), ".yaml")
		if !ok {
			continue
		}
		p := path.Join("labels", f.Name())
		data, err := fs.ReadFile(builtinFS, p)
		if err != nil {
			continue
		}
		if l, err := ParseLabels(p, data); err == nil {
			out[locale] = l
		}
	}
	return out
})

// HasEmbeddedLabels reports whether the embedded library has labels for
// locale (compared case-insensitively): a library folder without its own
// label file for it uses them.
func HasEmbeddedLabels(locale string) bool {
	for l := range embeddedLabels() {
		if LocaleKey(l) == LocaleKey(locale) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

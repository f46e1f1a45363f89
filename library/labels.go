package library

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/parser"
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
	"kb.heading":               {"name", "type", "count", "description"},
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

// Labels is one locale's label texts, keyed as LabelKeys.
type Labels map[string]string

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
			allowed, known := LabelKeys[key]
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

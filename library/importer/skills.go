package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/promptdesk/promptdesk/library"
)

// skillFile is the file that makes a folder an Agent Skill.
const skillFile = "SKILL.md"

// importSkills converts every <dir>/SKILL.md under fsys into a task module
// task.<name>: the frontmatter's name and description (joined into one
// line, never cut) become the title and description, the body stays as
// written. Other frontmatter fields are noted; other files of a skill
// folder are attached (a module is one text; the skill may refer to
// them); files outside any skill folder are skipped. A locale folder in
// a skill's path gives its locale (pathLocale), and skills without one
// are converted first, so a translation never takes an original's module.
func importSkills(b *builder, fsys fs.FS) error {
	files, hidden, err := b.walk(fsys, ".")
	if err != nil {
		return err
	}
	var dirs []string
	for _, f := range files {
		if path.Base(f) == skillFile {
			dirs = append(dirs, path.Dir(f))
		}
	}
	if len(dirs) == 0 {
		return errors.New("no Agent Skills folder: expected <name>/SKILL.md under the source folder")
	}
	// Originals first: a translated copy (a locale folder in its path)
	// never takes the module of the skill it translates.
	var translated []string
	for _, f := range files {
		dir, ok := skillDir(f, dirs)
		switch {
		case !ok:
			b.skip(f, "not in an Agent Skills folder (<name>/SKILL.md)")
		case f == path.Join(dir, skillFile):
			if _, _, ok := pathLocale(dir); ok {
				translated = append(translated, f)
				continue
			}
			importSkill(b, fsys, f)
		default:
			b.add(Outcome{Source: f, Status: StatusAttached, Reasons: []Note{{Msg: fmt.Sprintf(
				"a resource of the skill in %s (script, reference or asset): the skill's text may refer to it; a module is one text, so it is not one", dir)}}})
		}
	}
	for _, f := range translated {
		importSkill(b, fsys, f)
	}
	b.skipHidden(hidden)
	return nil
}

// notLocaleFolders are folder names that are language tags but far more
// often name code (io, os, ts, sh, …): they never give a skill's locale.
var notLocaleFolders = map[string]bool{
	"am": true, "be": true, "cs": true, "id": true, "io": true, "it": true, "la": true,
	"ml": true, "my": true, "na": true, "no": true, "os": true, "sh": true, "to": true, "ts": true,
}

// pathLocale is the locale named by a folder above the skill folder dir
// (docs/es/skills/x, i18n/zh-TW/x): the innermost folder that is a
// language tag of two letters, optionally with a region or script
// (es, ko, ja, zh-TW, pt-BR, zh_CN). The languages of the detected
// locales take their usual region (ko → ko-KR, zh → zh-CN, zh-Hant →
// zh-TW). folder is the folder's path.
func pathLocale(dir string) (locale, folder string, ok bool) {
	parts := strings.Split(dir, "/")
	for k := len(parts) - 2; k >= 0; k-- {
		seg := parts[k]
		if !localeFolder.MatchString(seg) || notLocaleFolders[strings.ToLower(seg)] {
			continue
		}
		tag, err := language.Parse(strings.ReplaceAll(seg, "_", "-"))
		if err != nil {
			continue
		}
		return usualLocale(tag), strings.Join(parts[:k+1], "/"), true
	}
	return "", "", false
}

// localeFolder matches a folder name that may be a language tag.
var localeFolder = regexp.MustCompile(`^[A-Za-z]{2}([-_]([A-Za-z]{2}|[A-Za-z]{4}))?$`)

// usualLocale is tag with the region the detected locales use for a bare
// language (en-US, zh-CN, ja-JP, ko-KR; Traditional Chinese zh-TW).
func usualLocale(tag language.Tag) string {
	base, _ := tag.Base()
	_, _, region := tag.Raw()
	if region.String() != "ZZ" {
		return tag.String()
	}
	if script, _ := tag.Script(); base.String() == "zh" && script.String() == "Hant" {
		return "zh-TW"
	}
	if l, ok := map[string]string{"en": "en-US", "zh": "zh-CN", "ja": "ja-JP", "ko": "ko-KR"}[base.String()]; ok {
		return l
	}
	return tag.String()
}

// skillDir is the innermost skill folder holding file f.
func skillDir(f string, dirs []string) (string, bool) {
	best, found := "", false
	for _, d := range dirs {
		if (d == "." || strings.HasPrefix(f, d+"/")) && (!found || len(d) > len(best)) {
			best, found = d, true
		}
	}
	return best, found
}

// splitFrontmatter cuts text (normalised) into the YAML between the ---
// fences (library.IsFence) and the body; frontLine and bodyLine are
// 1-based file lines. problem says why it cannot: no opening fence, or
// none closing it.
func splitFrontmatter(text string) (front string, frontLine int, body string, bodyLine int, problem *Note) {
	lines := strings.Split(text, "\n")
	if !library.IsFence(lines[0]) {
		return "", 0, "", 0, &Note{Line: 1, Msg: "no frontmatter: a SKILL.md starts with a --- block holding name and description"}
	}
	for k := 1; k < len(lines); k++ {
		if library.IsFence(lines[k]) {
			return strings.Join(lines[1:k], "\n") + "\n", 2, strings.Join(lines[k+1:], "\n"), k + 2, nil
		}
	}
	return "", 0, "", 0, &Note{Line: 1, Msg: "frontmatter not closed: no line --- after the opening one"}
}

func importSkill(b *builder, fsys fs.FS, p string) {
	i := b.add(Outcome{Source: p, Status: StatusImported})
	text, n, ok := b.readText(fsys, p)
	if !ok {
		b.fail(i, n)
		return
	}
	front, frontLine, bodyText, bodyLine, problem := splitFrontmatter(text)
	if problem != nil {
		b.fail(i, *problem)
		return
	}
	// An empty block is a mapping without keys: the name and the
	// description are missing.
	var fields []yamlField
	if strings.TrimSpace(front) != "" {
		root, bad := parseYAML(front, frontLine)
		if bad != nil {
			b.fail(i, *bad)
			return
		}
		if fields, ok = yamlMapping(root, frontLine); !ok {
			b.fail(i, Note{Line: frontLine, Msg: "the frontmatter is not a mapping of key: value"})
			return
		}
	}
	var rawName, description string
	nameLine, descLine := 0, 0
	for _, f := range fields {
		switch f.key {
		case "name", "description":
			s, ok := yamlString(f.value)
			if yamlNull(f.value) {
				// `name:` or `name: null` is the field left empty.
				s, ok = "", true
			}
			if !ok {
				b.fail(i, Note{Line: f.line, Msg: fmt.Sprintf("field %s must be a string", f.key)})
				return
			}
			if f.key == "name" {
				rawName, nameLine = strings.TrimSpace(s), f.line
			} else {
				description, descLine = s, f.line
			}
		default:
			b.note(i, f.line, "field %s: %s has no place in the module format; not kept", f.key, yamlText(f.value))
		}
	}
	folder := path.Base(path.Dir(p))
	if path.Dir(p) == "." {
		folder = ""
	}
	skillFindings(b, i, rawName, nameLine, folder, description, descLine, frontLine)
	if rawName == "" {
		if folder == "" {
			b.fail(i, Note{Line: frontLine, Msg: "no name: the skill's frontmatter must name it"})
			return
		}
		rawName = folder
		b.note(i, frontLine, "no field name: the folder name %q is used", folder)
	}
	if strings.TrimSpace(description) == "" {
		b.fail(i, Note{Line: frontLine, Msg: "no description: promptdesk shows it to the model in the skills table, and does not make one up"})
		return
	}
	desc, lines := oneLine(description)
	if lines > 1 {
		b.note(i, descLine, "description joined from %d lines into one (a module description is one line)", lines)
	}
	name, ok := b.name(i, Note{Line: nameLine}, rawName)
	if !ok {
		return
	}
	// Checked here, not when the module parses, so that the lines are the
	// SKILL.md's.
	if marks := library.ProseMarkerLines(bodyText); len(marks) > 0 {
		for k := range marks {
			marks[k] += bodyLine - 1
		}
		e := library.ConflictMarkers(p, marks)
		b.fail(i, Note{Line: e.Line, Msg: e.Msg})
		return
	}
	var w body
	w.text(bodyText)
	out := w.String()
	if w.escaped > 0 {
		b.note(i, bodyLine, "%d literal {{name}} sequence(s) written \\{{name}} so they stay text", w.escaped)
	}
	locale := ""
	if loc, folder, ok := pathLocale(path.Dir(p)); ok {
		locale = loc
		b.note(i, 0, "locale %s from the folder %s", loc, folder)
	} else {
		locale = b.locale(i, bodyText)
	}
	b.module(i, spec{
		layer:       b.layer(library.LayerTask),
		name:        name,
		locale:      locale,
		title:       rawName,
		description: desc,
		body:        out,
	})
}

// The limits of the Agent Skills specification, in characters.
const (
	skillNameMax        = 64
	skillDescriptionMax = 1024
)

// numbers writes counts with thousands separators (1,068).
var numbers = message.NewPrinter(language.English)

// skillFindings records, on outcome i, each rule of the Agent Skills
// specification that the frontmatter breaks: the name is present, at most
// 64 characters, only lowercase letters, digits and hyphens, no hyphen at
// either end or twice in a row, and the same as its folder's name (folder
// "" when SKILL.md is at the top of the source); the description is
// present and at most 1,024 characters.
func skillFindings(b *builder, i int, name string, nameLine int, folder, description string, descLine, frontLine int) {
	const spec = "the Agent Skills specification"
	if name == "" {
		b.finding(i, frontLine, "no name: %s requires one", spec)
	} else {
		if n := utf8.RuneCountInString(name); n > skillNameMax {
			b.finding(i, nameLine, "name is %d characters: %s allows at most %d", n, spec, skillNameMax)
		}
		var bad []string
		for _, r := range name {
			if r != '-' && !(unicode.IsLetter(r) || unicode.IsDigit(r)) || unicode.ToLower(r) != r {
				if q := strconv.QuoteRune(r); !slices.Contains(bad, q) {
					bad = append(bad, q)
				}
			}
		}
		if len(bad) > 0 {
			b.finding(i, nameLine, "name %q has %s: %s allows only lowercase letters, digits and hyphens", name, strings.Join(bad, ", "), spec)
		}
		if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
			b.finding(i, nameLine, "name %q starts or ends with a hyphen: %s does not allow that", name, spec)
		}
		if strings.Contains(name, "--") {
			b.finding(i, nameLine, "name %q has two hyphens in a row: %s allows single hyphens only", name, spec)
		}
		if folder != "" && name != folder {
			b.finding(i, nameLine, "name %q differs from its folder's name %q: %s requires them to match (the name is used)", name, folder, spec)
		}
	}
	switch n := utf8.RuneCountInString(description); {
	case strings.TrimSpace(description) == "":
		b.finding(i, frontLine, "no description: %s requires one", spec)
	case n > skillDescriptionMax:
		b.finding(i, descLine, "%s", numbers.Sprintf("description is %d characters: %s allows at most %d", n, spec, skillDescriptionMax))
	}
}

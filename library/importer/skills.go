package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
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
// folder are listed as not imported (a module is one text); files outside
// any skill folder are skipped.
func importSkills(b *builder, fsys fs.FS) error {
	files, hidden, err := walk(fsys, ".")
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
	for _, f := range files {
		dir, ok := skillDir(f, dirs)
		switch {
		case !ok:
			b.skip(f, "not in an Agent Skills folder (<name>/SKILL.md)")
		case f == path.Join(dir, skillFile):
			importSkill(b, fsys, f)
		default:
			b.add(Outcome{Source: f, Status: StatusNotImported, Reasons: []Note{{Msg: fmt.Sprintf(
				"a file of the skill in %s: a module is one text, so files beside SKILL.md do not come in (the skill's text may refer to this one)", dir)}}})
		}
	}
	b.skipHidden(hidden)
	return nil
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
	var w body
	w.text(bodyText)
	out := w.String()
	if w.escaped > 0 {
		b.note(i, bodyLine, "%d literal {{name}} sequence(s) written \\{{name}} so they stay text", w.escaped)
	}
	b.module(i, spec{
		layer:       b.layer(library.LayerTask),
		name:        name,
		locale:      b.locale(i, bodyText),
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

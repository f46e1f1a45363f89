package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

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
// fences and the body; frontLine and bodyLine are 1-based file lines.
func splitFrontmatter(text string) (front string, frontLine int, body string, bodyLine int, ok bool) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t\n") != "---" {
		return "", 0, "", 0, false
	}
	for k := 1; k < len(lines); k++ {
		if strings.TrimRight(lines[k], " \t\n") == "---" {
			return strings.Join(lines[1:k], ""), 2, strings.Join(lines[k+1:], ""), k + 2, true
		}
	}
	return "", 0, "", 0, false
}

func importSkill(b *builder, fsys fs.FS, p string) {
	i := b.add(Outcome{Source: p, Status: StatusImported})
	text, n, ok := readText(fsys, p)
	if !ok {
		b.fail(i, n)
		return
	}
	front, frontLine, bodyText, bodyLine, ok := splitFrontmatter(text)
	if !ok {
		b.fail(i, Note{Line: 1, Msg: "no frontmatter: a SKILL.md starts with a --- block holding name and description"})
		return
	}
	root, bad := parseYAML(front, frontLine)
	if bad != nil {
		b.fail(i, *bad)
		return
	}
	fields, ok := yamlMapping(root, frontLine)
	if !ok {
		b.fail(i, Note{Line: frontLine, Msg: "the frontmatter is not a mapping of key: value"})
		return
	}
	var rawName, description string
	nameLine, descLine := 0, 0
	for _, f := range fields {
		switch f.key {
		case "name", "description":
			s, ok := yamlString(f.value)
			if !ok || strings.TrimSpace(s) == "" {
				b.fail(i, Note{Line: f.line, Msg: fmt.Sprintf("field %s must be a non-empty string", f.key)})
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
	if rawName == "" {
		if path.Dir(p) == "." {
			b.fail(i, Note{Line: frontLine, Msg: "no name: the skill's frontmatter must name it"})
			return
		}
		rawName = folder
		b.note(i, frontLine, "no field name: the folder name %q is used", folder)
	} else if path.Dir(p) != "." && rawName != folder {
		b.note(i, nameLine, "name %q differs from the folder name %q; the name is used", rawName, folder)
	}
	if description == "" {
		b.fail(i, Note{Line: frontLine, Msg: "no description: Agent Skills require one, and promptdesk shows it to the model in the skills table"})
		return
	}
	desc, lines := oneLine(description)
	if lines > 1 {
		b.note(i, descLine, "description joined from %d lines into one (a module description is one line)", lines)
	}
	name, ok := b.name(i, nameLine, rawName)
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

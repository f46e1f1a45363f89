package lint

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/promptdesk/promptdesk/library"
	"golang.org/x/text/language"
)

// cueFS holds one cue file per locale: the words the wording checks look
// for. They are data, not prompt text: no model reads them.
//
//go:embed cues/*.yaml
var cueFS embed.FS

// cues is one locale's cue file; docs/lint.md says where each list is
// looked for. Every list is required.
type cues struct {
	SentenceEnds  []string `yaml:"sentenceEnds"`
	Role          []string `yaml:"role"`
	RoleMinLength int      `yaml:"roleMinLength"`
	Boundary      []string `yaml:"boundary"`
	Forbidden     []string `yaml:"forbidden"`
	ReadOnly      []string `yaml:"readOnly"`
	Structured    []string `yaml:"structured"`
	MachineFormat []string `yaml:"machineFormat"`
	Verdict       []string `yaml:"verdict"`
	ExactOutput   []string `yaml:"exactOutput"`
	Mistakes      []string `yaml:"mistakes"`
	Missing       []string `yaml:"missing"`
	Search        []string `yaml:"search"`
	SearchScope   []string `yaml:"searchScope"`
	Detail        []string `yaml:"detail"`
	Leak          []string `yaml:"leak"`
	ToolWhen      []string `yaml:"toolWhen"`
	ToolFails     []string `yaml:"toolFails"`
}

// cueSet is every cue file, keyed by the locale tag in its file name.
type cueSet map[string]*cues

// loadCues reads and checks the embedded cue files once.
var loadCues = sync.OnceValues(func() (cueSet, error) { return readCues(cueFS, "cues") })

// readCues reads dir/<locale>.yaml from fsys. Errors name the file and
// the list at fault.
func readCues(fsys fs.FS, dir string) (cueSet, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	set := cueSet{}
	for _, e := range entries {
		locale, ok := strings.CutSuffix(e.Name(), ".yaml")
		if e.IsDir() || !ok {
			continue
		}
		file := path.Join(dir, e.Name())
		if _, err := language.Parse(locale); err != nil {
			return nil, fmt.Errorf("%s: %s", file, library.LocaleProblem(locale))
		}
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		var c cues
		if err := yaml.UnmarshalWithOptions(data, &c, yaml.Strict(), yaml.DisallowUnknownField()); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		set[locale] = &c
	}
	return set, nil
}

// check refuses an empty list or blank cue: a cue file with a list left
// out would silently turn its rule into a warning on every module.
func (c *cues) check() error {
	lists := map[string][]string{
		"sentenceEnds": c.SentenceEnds, "role": c.Role, "boundary": c.Boundary,
		"forbidden": c.Forbidden, "readOnly": c.ReadOnly, "structured": c.Structured,
		"machineFormat": c.MachineFormat, "verdict": c.Verdict, "exactOutput": c.ExactOutput,
		"mistakes": c.Mistakes, "missing": c.Missing, "search": c.Search,
		"searchScope": c.SearchScope, "detail": c.Detail, "leak": c.Leak,
		"toolWhen": c.ToolWhen, "toolFails": c.ToolFails,
	}
	for name, list := range lists {
		if len(list) == 0 {
			return fmt.Errorf("list %s is missing or empty", name)
		}
		for i, cue := range list {
			if strings.TrimSpace(cue) == "" {
				return fmt.Errorf("%s[%d] is blank", name, i)
			}
		}
	}
	if c.RoleMinLength < 1 {
		return fmt.Errorf("roleMinLength must be 1 or more")
	}
	return nil
}

// forLocale returns the cue file of locale: the same tag, else one of the
// same language and script (en-GB uses en-US; zh-TW, written in
// traditional characters, does not use zh-CN). nil when there is none.
func (s cueSet) forLocale(locale string) *cues {
	for tag, c := range s {
		if strings.EqualFold(tag, locale) {
			return c
		}
	}
	want, err := language.Parse(locale)
	if err != nil {
		return nil
	}
	wantBase, _ := want.Base()
	wantScript, _ := want.Script()
	for _, tag := range s.tags() {
		t := language.Make(tag)
		base, _ := t.Base()
		script, _ := t.Script()
		if base == wantBase && script == wantScript {
			return s[tag]
		}
	}
	return nil
}

// tags lists the cue files' locales in name order, so that a lookup by
// language is deterministic.
func (s cueSet) tags() []string {
	var out []string
	for tag := range s {
		out = append(out, tag)
	}
	slices.Sort(out)
	return out
}

// CueLocales lists the locales that have a cue file, sorted: the locales
// whose modules get the wording checks.
func CueLocales() ([]string, error) {
	set, err := loadCues()
	if err != nil {
		return nil, err
	}
	return set.tags(), nil
}

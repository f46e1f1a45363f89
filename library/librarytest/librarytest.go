// Package librarytest generates module libraries for tests and
// benchmarks: the builtin library with generated modules added, shaped
// like a real skills collection (mostly task modules with intent and
// command triggers, descriptions of 100–1,000 characters, four locales).
// The same size always gives the same files.
package librarytest

import (
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/promptdesk/promptdesk/library"
)

// Locales are the locales of the generated modules: every one is in
// en-US; nine in ten are in zh-CN, one in three in ja and one in five in
// ko-KR (ModuleLocales).
var Locales = []string{"en-US", "zh-CN", "ja", "ko-KR"}

// Large is the size of the large library the console is measured at.
const Large = 10000

// word is one word or phrase in each of Locales, in that order.
type word [4]string

//go:embed words.yaml
var wordsYAML []byte

// topics and actions name the generated modules
// (task.<topic>-<action>-<n>); sentences, a list per locale, make their
// descriptions. They are read from words.yaml.
var topics, actions, sentences = readWords()

// readWords parses words.yaml; the file is part of the package, so an
// error is a bug of the package and panics when the tests start.
func readWords() (topics, actions []word, sentences [4][]string) {
	var w struct {
		Topics    []word      `yaml:"topics"`
		Actions   []word      `yaml:"actions"`
		Sentences [4][]string `yaml:"sentences"`
	}
	if err := yaml.Unmarshal(wordsYAML, &w); err != nil {
		panic("librarytest: words.yaml: " + err.Error())
	}
	return w.Topics, w.Actions, w.Sentences
}

// ID is the id and layer of generated module n (counted from the
// builtin's size): nine in ten are task modules, the rest spread over the
// other layers.
func ID(n int) (string, library.Layer) {
	layer := library.LayerTask
	switch r := n % 100; {
	case r >= 90 && r < 93:
		layer = library.LayerTool
	case r >= 93 && r < 96:
		layer = library.LayerAux
	case r >= 96 && r < 98:
		layer = library.LayerAgent
	case r == 98:
		layer = library.LayerStyle
	case r == 99 && n/100%2 == 0:
		layer = library.LayerBase
	case r == 99:
		layer = library.LayerEnv
	}
	t, a := topics[n%len(topics)], actions[n/len(topics)%len(actions)]
	return fmt.Sprintf("%s.%s-%s-%05d", layer, t[0], a[0], n), layer
}

// ModuleLocales are the locales generated module n is in (see Locales).
func ModuleLocales(n int) []string {
	out := []string{"en-US"}
	if n%10 != 9 {
		out = append(out, "zh-CN")
	}
	if n%3 == 0 {
		out = append(out, "ja")
	}
	if n%5 == 0 {
		out = append(out, "ko-KR")
	}
	return out
}

// Description is the description of generated module n in locale: 100
// to 1,000 characters, its length and sentences chosen by n.
func Description(n int, locale string) string {
	l := localeIndex(locale)
	want := 100 + n*7919%901
	var b strings.Builder
	b.WriteString(name(n, l) + ". ")
	count := utf8.RuneCountInString(b.String())
	for i := 0; count < want; i++ {
		s := sentences[l][(n+i*3)%len(sentences[l])]
		if l == 0 {
			s += " "
		}
		b.WriteString(s)
		count += utf8.RuneCountInString(s)
	}
	runes := []rune(b.String())[:want]
	return strings.TrimSpace(string(runes))
}

// name is the title of generated module n in the locale of index l.
func name(n, l int) string {
	t, a := topics[n%len(topics)], actions[n/len(topics)%len(actions)]
	if l == 0 {
		return fmt.Sprintf("%s %s %d", strings.ToUpper(t[0][:1])+t[0][1:], a[0], n)
	}
	return fmt.Sprintf("%s%s %d", t[l], a[l], n)
}

func localeIndex(locale string) int {
	for i, l := range Locales {
		if l == locale {
			return i
		}
	}
	return 0
}

// Module is the module file of id (of layer) in locale, generated as
// module n: version 1–5, title and description in the locale, for a task
// an intent trigger with keywords in the locale and a command, and a body
// of a few hundred bytes.
func Module(id string, layer library.Layer, locale string, n int) string {
	l := localeIndex(locale)
	var f strings.Builder
	fmt.Fprintf(&f, "---\nid: %s\nlayer: %s\nversion: %d\ntitle: %s\ndescription: %s\n", id, layer, 1+n%5, name(n, l), Description(n, locale))
	if layer == library.LayerTask {
		t, a := topics[n%len(topics)], actions[n/len(topics)%len(actions)]
		fmt.Fprintf(&f, "priority: %d\ntriggers:\n- kind: intent\n  keywords: %s %s, %s%d\n- kind: command\n  command: /%s-%s-%d\n",
			10+n%90, t[l], a[l], t[0], n, t[0], a[0], n)
	}
	f.WriteString("---\n")
	s := sentences[l]
	for i := range 3 {
		fmt.Fprintf(&f, "%s %s\n\n", s[(n+i)%len(s)], s[(n+i+5)%len(s)])
	}
	return f.String()
}

// FS is the files of a library of size module ids: the builtin library's
// files, then generated modules 0, 1, … (ID, ModuleLocales, Module) up to
// size ids. A size below the builtin's is an error.
func FS(size int) (fstest.MapFS, error) {
	builtin, err := library.Builtin()
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{}
	err = fs.WalkDir(library.BuiltinFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(library.BuiltinFS(), p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		return nil, err
	}
	extra := size - len(builtin.IDs())
	if extra < 0 {
		return nil, fmt.Errorf("a library of %d ids is smaller than the builtin one (%d)", size, len(builtin.IDs()))
	}
	for n := range extra {
		id, layer := ID(n)
		for _, loc := range ModuleLocales(n) {
			fsys["modules/"+loc+"/"+library.FileName(id)] = &fstest.MapFile{Data: []byte(Module(id, layer, loc, n))}
		}
	}
	return fsys, nil
}

// Library loads FS(size).
func Library(size int) (*library.Snapshot, error) {
	fsys, err := FS(size)
	if err != nil {
		return nil, err
	}
	return library.Load(fsys, fmt.Sprintf("generated-%d", size))
}

// Write writes FS(size) into the folder dir (created when missing, with
// modules/<locale>/ and labels/ below it), so that a server or a command
// can load the library as an operator's folder (`serve --library dir`).
// Errors: those of FS, and of creating the folders and files.
func Write(dir string, size int) error {
	fsys, err := FS(size)
	if err != nil {
		return err
	}
	for p, f := range fsys {
		name := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

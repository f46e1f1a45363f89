package assembler_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// Fuzz targets (BENCHMARKS.md): the renderer and the assemble request
// decoder. The module parser's target is library.FuzzParse.
// Run one with
//
//	go test ./assembler -run '^$' -fuzz '^FuzzRender$' -fuzztime 5m
//
// Plain `go test` runs only the seeds (and testdata/fuzz/<target>/).

// fuzzNow is the clock of the fuzz targets: a Sunday.
var fuzzNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fuzzScenarioDir holds the real scenarios when the shared folder exists.
const fuzzScenarioDir = "../../shared/cases/scenarios"

// fuzzModuleFile is one module file of the renderer's test library.
func fuzzModuleFile(id, front, body string) []byte {
	layer, _, _ := strings.Cut(id, ".")
	return []byte("---\nid: " + id + "\nlayer: " + layer + "\nversion: 1\ntitle: T " + id +
		"\ndescription: D " + id + "\n" + front + "---\n" + body)
}

// fuzzFixture is the renderer's test library for the fuzzed module id:
// the four env modules the assembler enters itself, a builtin stand-in for
// the fuzzed module (replaced by the fuzzed file, or overridden), and aux
// modules to include (plain text, a variable, an xml-escaped variable,
// environment values, a chain of 12 includes, a nested pair, and aux.back
// that includes the fuzzed module, for cycles). There is no other base
// module and no always-on env module, so the base segment holds only the
// fuzzed module.
func fuzzFixture(id string) (fstest.MapFS, error) {
	fsys := fstest.MapFS{}
	for _, loc := range []string{"en-US", "zh-CN"} {
		data, err := os.ReadFile(filepath.Join("..", "library", "labels", loc+".yaml"))
		if err != nil {
			return nil, err
		}
		fsys["labels/"+loc+".yaml"] = &fstest.MapFile{Data: data}
	}
	add := func(loc, id, front, body string) {
		fsys["modules/"+loc+"/"+library.FileName(id)] = &fstest.MapFile{Data: fuzzModuleFile(id, front, body)}
	}
	add("en-US", assembler.ModuleKnowledge, "", "KNOWLEDGE\n{{knowledge_bases}}\n")
	add("en-US", assembler.ModulePureAgent, "", "PURE AGENT\n")
	add("en-US", assembler.ModuleSelectedDocs, "", "SELECTED\n{{selected_documents}}\n")
	add("en-US", assembler.ModuleSkills, "", "SKILLS\n{{skills}}\n")
	add("en-US", id, "", "BUILTIN STAND-IN {{aux.plain}}\n")
	add("en-US", "aux.back", "", "back>{{"+id+"}}\n")
	add("en-US", "aux.plain", "", "plain {\"a\": 1} {{ }} {{1}} \\{{who}} {{{ }}} {{X}}\n\n")
	add("zh-CN", "aux.plain", "", "纯文本 {{ }}\n")
	add("en-US", "aux.withvar", "variables: [who]\n", "Hello {{who}}!\n\n\n")
	add("en-US", "aux.xml", "variables: [{name: note, escape: xml}]\n", "<note>{{note}}</note>\n")
	add("en-US", "aux.web", "", "search {{web_search_status}}, skills [{{skills}}]\n")
	add("en-US", "aux.nested", "", "N[{{aux.withvar}}|{{aux.plain}}|{{aux.deep11}}]\n")
	for i := 1; i <= 12; i++ {
		body := fmt.Sprintf("d%02d", i)
		if i < 12 {
			body += fmt.Sprintf(">{{aux.deep%02d}}", i+1)
		}
		add("en-US", fmt.Sprintf("aux.deep%02d", i), "", body+"\n")
	}
	return fsys, nil
}

// fuzzFixtures are the fixture folders and their snapshots, per fuzzed
// module id, built once.
var fuzzFixtures = sync.OnceValues(func() (map[string]fuzzFix, error) {
	out := map[string]fuzzFix{}
	for _, id := range []string{"base.fuzz", "env.fuzz"} {
		fsys, err := fuzzFixture(id)
		if err != nil {
			return nil, err
		}
		snap, err := library.Load(fsys, "fuzz")
		if err != nil {
			return nil, fmt.Errorf("the fuzz fixture library for %s does not load: %w", id, err)
		}
		out[id] = fuzzFix{fsys, snap}
	}
	return out, nil
})

type fuzzFix struct {
	fsys fstest.MapFS
	snap *library.Snapshot
}

// fuzzVars turns the fuzzed variable spec into the module's declared
// variables and the request's variables. One line per variable:
// `name=value` declares and supplies, `&name=value` declares with escape
// xml and supplies, `!name` declares without supplying, `+name=value`
// supplies without declaring; `\n` in a value is a newline.
func fuzzVars(spec string) (declared []library.Variable, supplied map[string]string) {
	supplied = map[string]string{}
	seen := map[string]bool{}
	for i, line := range strings.Split(spec, "\n") {
		if i >= 16 {
			break
		}
		mode := byte(0)
		if line != "" && strings.IndexByte("&!+", line[0]) >= 0 {
			mode, line = line[0], line[1:]
		}
		name, value, hasValue := strings.Cut(line, "=")
		value = strings.ReplaceAll(value, `\n`, "\n")
		if mode != '+' && library.ValidPlaceholderName(name) && !seen[name] {
			seen[name] = true
			v := library.Variable{Name: name}
			if mode == '&' {
				v.Escape = library.EscapeXML
			}
			declared = append(declared, v)
		}
		if mode != '!' && (hasValue || mode == '+') {
			supplied[name] = value
		}
	}
	return declared, supplied
}

// fuzzFront is the frontmatter line declaring vars.
func fuzzFront(vars []library.Variable) string {
	if len(vars) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("variables:\n")
	for _, v := range vars {
		b.WriteString("- {name: " + strconv.Quote(v.Name))
		if v.Escape != "" {
			b.WriteString(", escape: " + v.Escape)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// fuzzPlaceholder is the placeholder syntax with its escape, written
// independently of library.Scan for the oracle.
var fuzzPlaceholder = regexp.MustCompile(`\\?\{\{([a-z_][a-z0-9_.-]*)\}\}`)

var fuzzXML = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

// fuzzOracle renders a module by the placeholder rules, as the expected
// output: one pass over the module's body without its surrounding blank
// space, `\{{name}}` → `{{name}}`, a placeholder resolves to a variable the
// module declares (written as is, never trimmed or scanned again), then an
// environment value, then a module id (include, per the locale chain), else
// it is unknown; includes nest at most assembler.MaxIncludeDepth deep and a
// cycle is an error. fuzzWant is the error the renderer must return.
type fuzzOracle struct {
	snap     *library.Snapshot
	fuzz     *library.Module // the fuzzed module, whether file or override
	locale   string
	vars     map[string]string
	env      map[string]string
	declared map[string]bool
	// valueUses are the values substituted into the fuzzed module itself.
	valueUses []string
}

type fuzzWant struct {
	code, module, placeholder string
	path                      []string
}

func (o *fuzzOracle) module(id string) *library.Module {
	if id == o.fuzz.ID {
		return o.fuzz
	}
	if m, ok := o.snap.Module(id, o.locale); ok {
		return m
	}
	m, _ := o.snap.Module(id, "en-US")
	return m
}

func (o *fuzzOracle) write(m *library.Module, stack []string) (string, *fuzzWant) {
	// Every declared variable must be supplied, used or not.
	for _, v := range m.Variables {
		o.declared[v.Name] = true
		if _, supplied := o.vars[v.Name]; !supplied {
			return "", &fuzzWant{code: library.CodeMissingVariable, module: m.ID, placeholder: v.Name}
		}
	}
	var b strings.Builder
	body := strings.TrimSpace(m.Body)
	last := 0
	for _, loc := range fuzzPlaceholder.FindAllStringSubmatchIndex(body, -1) {
		start, end, name := loc[0], loc[1], body[loc[2]:loc[3]]
		b.WriteString(body[last:start])
		last = end
		if body[start] == '\\' {
			b.WriteString(body[start+1 : end])
			continue
		}
		if v, ok := m.Variable(name); ok {
			val := o.vars[name]
			if v.Escape == library.EscapeXML {
				val = fuzzXML.Replace(val)
			}
			if m == o.fuzz {
				o.valueUses = append(o.valueUses, val)
			}
			b.WriteString(val)
			continue
		}
		if val, ok := o.env[name]; ok {
			b.WriteString(val)
			continue
		}
		if inc := o.module(name); inc != nil {
			if slices.Contains(stack, name) {
				return "", &fuzzWant{code: library.CodeIncludeCycle, module: m.ID, placeholder: name, path: append(slices.Clone(stack), name)}
			}
			if len(stack) > assembler.MaxIncludeDepth {
				return "", &fuzzWant{code: library.CodeIncludeTooDeep, module: m.ID, placeholder: name}
			}
			sub, want := o.write(inc, append(slices.Clone(stack), name))
			if want != nil {
				return "", want
			}
			b.WriteString(sub)
			continue
		}
		return "", &fuzzWant{code: library.CodeUnknownPlaceholder, module: m.ID, placeholder: name}
	}
	b.WriteString(body[last:])
	return b.String(), nil
}

// expect is the rendered text of the fuzzed module, or the error.
func (o *fuzzOracle) expect() (string, *fuzzWant) {
	text, want := o.write(o.fuzz, []string{o.fuzz.ID})
	if want != nil {
		return "", want
	}
	var extra []string
	for name := range o.vars {
		if !o.declared[name] {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		return "", &fuzzWant{code: library.CodeExtraVariable, path: extra}
	}
	return text, nil
}

// fuzzEnv is the environment of a request with no model, attachments,
// knowledge bases, selected documents or skills, web search off.
func fuzzEnv(snap *library.Snapshot, locale string) map[string]string {
	lab, ok := snap.Labels(locale)
	if !ok {
		lab, _ = snap.Labels("en-US")
	}
	return map[string]string{
		library.EnvDate:              fuzzNow.Format("2006-01-02"),
		library.EnvWeekday:           lab["weekday."+strings.ToLower(fuzzNow.Weekday().String())],
		library.EnvCurrentTime:       fuzzNow.Format(time.RFC3339),
		library.EnvModel:             "",
		library.EnvAttachments:       lab["attachments.none"],
		library.EnvWebSearchStatus:   lab["web_search.disabled"],
		library.EnvKnowledgeBases:    "",
		library.EnvSelectedDocuments: "",
		library.EnvSkills:            "",
	}
}

var fuzzLocales = []string{"en-US", "zh-CN", "ja", "EN-us"}

// FuzzRender renders a fuzzed module body with fuzzed variables through
// Render or Assemble, with the module in the library folder (loaded with
// library.Load, strict) or served as an override of the fixture's stand-in
// (not checked at load, so render-time errors are reached). mode bit 0: override; bits 1–2: locale (en-US, zh-CN, ja,
// EN-us); bit 3: Assemble instead of Render; bit 4: env layer instead of
// base. Properties: no panic; every error is an *assembler.Error; the
// outcome is exactly the oracle's (fuzzOracle): on success the text is
// equal, so no `{{name}}` of a declared variable survives except from a
// `\{{name}}` escape or a variable value, and a value is never scanned
// again (a value holding `{{x}}` comes out literally); on error the code,
// module and placeholder are the oracle's.
func FuzzRender(f *testing.F) {
	seeds := []struct {
		mode       uint8
		body, vars string
	}{
		{0, "Hello {{who}}", "who=World"},
		{1, "\\{{who}} stays, {{who}} goes", "who={{who}} and {{aux.plain}}"},
		{2, "{{note}} then {{aux.xml}}", "&note=<a href=\"x\">&'</a>"},
		{3, "{{note}}", "&note={{note}}<"},
		{8, "{{aux.nested}} {{aux.web}}", "who=x {{aux.plain}} y"},
		{9, "{{aux.nested}}", "!who"},
		{0, "{{aux.back}}", ""},
		{1, "{{aux.back}}", ""},
		{17, "x {{aux.back}}", ""},
		{1, "{{aux.deep01}}", ""},
		{0, "{{aux.deep02}}", ""},
		{1, "{{aux.deep03}}", ""},
		{0, "self {{base.fuzz}}", ""},
		{1, "self {{base.fuzz}}", ""},
		{0, "{{missing}}", ""},
		{1, "{{missing}} {{a}}", "!a"},
		{0, "{{a}}", "!a"},
		{0, "x", "+extra=1"},
		{8, "x {{a}}", "a=1\n+extra=2\n+Bad Name=3"},
		{16, "{{date}} {{weekday}} {{current_time}} {{model}} [{{attachments}}] {{web_search_status}}", ""},
		{17 | 8, "{{date}}|{{knowledge_bases}}|{{skills}}", ""},
		{0, "{\"a\": 1} {{ }} {{1}} {{{who}}} \\\\{{who}} {{who}}}", "who=W"},
		{0, "line\r\n{{who}}\r\n", "who=a\\nb\\n"},
		{1, "{{v}}x}} and {{v}}{{v}}", "v={{"},
		{0, "{{aux.plain}}", "aux.plain=shadowed"},
		{2, "{{aux.plain}}", ""},
		{4, "{{aux.plain}} {{aux.web}}", ""},
		{6, "{{aux.web}}", ""},
		{8, "   {{a}}   ", "a=  padded  "},
		{0, "{{date}}", ""},
		{0, "{{a}}", "a=x\n&a=y\n!a"},
		{0, "{{null}} {{yes}}", "null=1\nyes=2"},
		{1, "{{d.x-y_z}}", "d.x-y_z=1"},
	}
	for _, s := range seeds {
		f.Add(s.mode, s.body, s.vars)
	}
	fixtures, err := fuzzFixtures()
	if err != nil {
		f.Fatal(err)
	}
	plain := assembler.New(assembler.Config{})

	f.Fuzz(func(t *testing.T, mode uint8, body, spec string) {
		declared, vars := fuzzVars(spec)
		id := "base.fuzz"
		if mode&16 != 0 {
			id = "env.fuzz"
		}
		data := fuzzModuleFile(id, fuzzFront(declared), body)
		file := "modules/en-US/" + library.FileName(id)
		m, err := library.Parse(file, data)
		if err != nil {
			var fe *library.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse error %T %v is not a *library.FileError", err, err)
			}
			return // not a module: nothing to render
		}
		m.Locale = "en-US"

		snap, st := fixtures[id].snap, (*assembler.State)(nil)
		if mode&1 == 0 {
			fsys := fstest.MapFS{}
			for p, mf := range fixtures[id].fsys {
				fsys[p] = mf
			}
			fsys[file] = &fstest.MapFile{Data: data}
			if snap, err = library.Load(fsys, "fuzz"); err != nil {
				var fes library.FileErrors
				if !errors.As(err, &fes) || !errors.Is(err, library.ErrInvalid) {
					t.Fatalf("Load error %T %v is not library.FileErrors", err, err)
				}
				return // refused at load time: placeholders are checked on load
			}
		} else {
			st = &assembler.State{Overrides: assembler.ByKey[*assembler.Override]{}.With(
				assembler.Key(id, "en-US"), &assembler.Override{ID: m.ID, Module: m, Locale: "en-US"})}
		}
		locale := fuzzLocales[(mode>>1)&3]
		o := &fuzzOracle{snap: snap, fuzz: m, locale: locale, vars: vars, env: fuzzEnv(snap, locale), declared: map[string]bool{}}
		wantText, want := o.expect()

		var got string
		if mode&8 == 0 {
			var r *assembler.Rendered
			r, err = plain.Render(snap, st, &assembler.RenderRequest{Module: id, Locale: locale, Variables: vars}, fuzzNow)
			if err == nil {
				got = r.Text
			}
		} else {
			var res *assembler.Result
			res, err = plain.Assemble(snap, st, &assembler.Request{Locale: locale, Variables: vars}, fuzzNow)
			if err == nil {
				if len(res.Segments) == 0 || res.Segments[0].Layer != assembler.SegmentBase || !slices.Equal(res.Segments[0].Modules, []string{id}) {
					t.Fatalf("the base segment is not just %s: %+v", id, res.Segments)
				}
				got = res.Segments[0].Text
			}
		}

		if err != nil {
			var e *library.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *assembler.Error", err, err)
			}
			if want == nil {
				t.Fatalf("error %v, want the text %q\nbody %q\nvars %q", err, wantText, m.Body, vars)
			}
			if e.Code != want.code {
				t.Fatalf("error %v, want code %s (%+v)\nbody %q\nvars %q", err, want.code, *want, m.Body, vars)
			}
			switch e.Code {
			case library.CodeExtraVariable:
				if !slices.Contains(want.path, e.Placeholder) {
					t.Fatalf("error %v names %q, want one of the extra variables %q", err, e.Placeholder, want.path)
				}
			case library.CodeIncludeCycle:
				if !slices.Equal(e.Path, want.path) {
					t.Fatalf("error %v has path %q, want %q", err, e.Path, want.path)
				}
				fallthrough
			default:
				if e.Module != want.module || e.Placeholder != want.placeholder {
					t.Fatalf("error %v names module %q placeholder %q, want %q %q\nbody %q\nvars %q", err, e.Module, e.Placeholder, want.module, want.placeholder, m.Body, vars)
				}
			}
			return
		}
		if want != nil {
			t.Fatalf("rendered %q, want error %+v\nbody %q\nvars %q", got, *want, m.Body, vars)
		}
		if got != wantText {
			t.Fatalf("rendered text differs from the oracle's one-pass rendering\nbody %q\nvars %q\ngot  %q\nwant %q", m.Body, vars, got, wantText)
		}
		for _, val := range o.valueUses {
			if !strings.Contains(got, val) {
				t.Fatalf("the value %q does not come out literally in %q", val, got)
			}
		}
	})
}

// fuzzBuiltin is the builtin library, loaded once.
var fuzzBuiltin = sync.OnceValues(library.Builtin)

// fuzzRequestSeeds are the example requests, the real scenarios when
// present, and hand-written edge cases of the request format.
func fuzzRequestSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	examples, err := assembler.Examples()
	if err != nil {
		f.Fatal(err)
	}
	for _, ex := range examples {
		seeds = append(seeds, ex.Request)
	}
	scenarios, _ := filepath.Glob(filepath.Join(fuzzScenarioDir, "*.json"))
	for _, p := range scenarios {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `null`, `"x"`, `{} {}`, `{}x`, `{`, `{"locale":`, "\uFEFF{}",
		`{"locale":"zh-CN","message":"请整理纪要","attachments":[{"name":"a.m4a","type":"audio/mp4"}]}`,
		`{"locale":"en-US","message":"/translate hello","command":"/translate"}`,
		`{"locale":"not a locale"}`, `{"locale":"JA"}`, `{"locale":"x-private"}`,
		`{"colour":"red"}`, `{"message":1}`, `{"webSearch":"yes"}`,
		`{"now":"yesterday"}`, `{"now":"2026-11-29T15:45:00+14:00"}`, `{"now":"0000-01-01T00:00:00Z"}`,
		`{"timeZone":"Local"}`, `{"timeZone":"Mars/Base"}`, `{"timeZone":"../../etc/passwd"}`, `{"timeZone":"Asia/Kathmandu"}`,
		`{"profile":"default"}`,
		`{"variables":{"A":"x"}}`, `{"variables":{"bot_name":"{{date}}"}}`, `{"variables":{"a":1}}`,
		`{"model":"gpt-4o"}`, `{"model":"gpt-4"}`, `{"model":"text-davinci-edit-001"}`, `{"model":"claude-3"}`,
		`{"skills":[{"name":"","description":"d"}]}`, `{"skills":[{"name":"s|x\ny","description":"a|b"}]}`,
		`{"knowledgeBases":[{"id":"k","name":"n","type":"wiki"}]}`,
		`{"knowledgeBases":[{"id":"k","name":"n","type":"document","docCount":-1}]}`,
		`{"knowledgeBases":[{"id":"k","name":"n","type":"document","docCount":1e400}]}`,
		`{"knowledgeBases":[{"id":"k","name":"n|x","type":"document","docCount":99,"recentDocs":[{"knowledgeId":"d","fileName":"f.pdf","fileSize":-5,"summary":"é\u0301👍🏽|\n\r\t` + strings.Repeat("長", 200) + `"},{"knowledgeId":"e","fileSize":9223372036854775807,"createdAt":"2026-01-02T03:04:05Z"}]}]}`,
		`{"knowledgeBases":[{"id":"q","name":"faq","type":"faq","docCount":2,"faqEntries":[{"chunkId":"c","question":"q?","answers":["a|b","c\nd",""]},{"chunkId":"","question":""}]}]}`,
		`{"selectedDocuments":[{"knowledgeId":"d","knowledgeBaseId":"missing","title":"","fileName":"a|b.md"}]}`,
		`{"attachments":[{"name":"","type":""},{"name":"a\nb"}]}`,
		`{"message":"/"}`, `{"message":"  /minutes now"}`, `{"command":" /minutes "}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// fuzzCodes are the stable error codes of the assembler.
var fuzzCodes = []string{library.CodeNotFound, library.CodeMissingVariable, library.CodeExtraVariable,
	library.CodeUnknownPlaceholder, library.CodeIncludeCycle, library.CodeIncludeTooDeep,
	library.CodeInvalidRequest, library.CodeLimitExceeded}

// FuzzDecodeRequest decodes fuzzed JSON as an assemble request and
// assembles what decodes with the builtin library. Properties: no panic;
// a decoding error is an *assembler.Error with code invalid_json,
// invalid_request or limit_exceeded, the same on a second decode; a decoded request
// assembles (token counting on when it names a model other than gpt-4o)
// or fails with an *assembler.Error of a known code; a result's text is
// its segments joined.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range fuzzRequestSeeds(f) {
		f.Add(s)
	}
	snap, err := fuzzBuiltin()
	if err != nil {
		f.Fatal(err)
	}
	plain := assembler.New(assembler.Config{})
	counting := assembler.New(assembler.Config{CountTokens: true})

	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := assembler.DecodeRequest(data)
		if err != nil {
			var e *library.Error
			if !errors.As(err, &e) {
				t.Fatalf("DecodeRequest error %T %v is not an *assembler.Error", err, err)
			}
			if e.Code != library.CodeInvalidJSON && e.Code != library.CodeInvalidRequest && e.Code != library.CodeLimitExceeded {
				t.Fatalf("DecodeRequest error code %q, want invalid_json, invalid_request or limit_exceeded (%v)", e.Code, err)
			}
			if !errors.Is(err, library.ErrInvalid) {
				t.Fatalf("DecodeRequest error %v does not match library.ErrInvalid", err)
			}
			_, again := assembler.DecodeRequest(data)
			var e2 *library.Error
			if !errors.As(again, &e2) || e2.Code != e.Code {
				t.Fatalf("decoding twice gives %v, then %v", err, again)
			}
			return
		}
		if req == nil {
			t.Fatal("DecodeRequest returned neither a request nor an error")
		}
		// Token counting costs milliseconds on the large examples, all of
		// which name gpt-4o (covered by the benchmarks): count for every
		// other model name, where the encoding choice is what varies.
		a := plain
		if req.Model != "" && req.Model != "gpt-4o" {
			a = counting
		}
		res, err := a.Assemble(snap, nil, req, fuzzNow)
		if err != nil {
			var e *library.Error
			if !errors.As(err, &e) {
				t.Fatalf("Assemble error %T %v is not an *assembler.Error\nrequest %s", err, err, fuzzShort(data))
			}
			if !slices.Contains(fuzzCodes, e.Code) {
				t.Fatalf("Assemble error code %q is not a known code (%v)", e.Code, err)
			}
			return
		}
		texts := make([]string, 0, len(res.Segments))
		for _, s := range res.Segments {
			texts = append(texts, s.Text)
		}
		if joined := strings.Join(texts, "\n\n"); res.Text != joined {
			t.Fatalf("result text is not its segments joined\ntext     %q\nsegments %q", res.Text, joined)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("the result does not marshal to JSON: %v", err)
		}
	})
}

// fuzzShort is data cut for a failure message.
func fuzzShort(data []byte) string {
	if len(data) > 300 {
		return string(bytes.ToValidUTF8(data[:300], nil)) + "…"
	}
	return string(data)
}

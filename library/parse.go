package library

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/library/mdcode"
)

// MaxModuleBytes is the largest module file accepted: 256 KiB, the API's
// and the editor's limit too.
const MaxModuleBytes = 256 << 10

// TooLarge is the message of a module file of n bytes over
// MaxModuleBytes, for every place that refuses one.
func TooLarge(n int) string {
	return fmt.Sprintf("module is %d bytes; the limit is %d bytes (%d KiB)", n, MaxModuleBytes, MaxModuleBytes>>10)
}

const bom = "\uFEFF"

// Normalize removes a leading UTF-8 BOM and turns CRLF into LF, so that a
// Windows file parses exactly like its Unix twin.
func Normalize(data []byte) string {
	s := string(bytes.TrimPrefix(data, []byte(bom)))
	for strings.Contains(s, "\r\n") { // "\r\r\n" needs a second pass
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}

// duplicateKey finds the key in go-yaml's duplicate-key message.
var duplicateKey = regexp.MustCompile(`mapping key "([^"]+)" already defined`)

// Parse reads one module file (docs/module-format.md). file names the
// source in errors; it is not checked against the id here (the loader does
// that). The error is a *FileError naming file, line and field: the
// first of ParseAll's errors.
func Parse(file string, data []byte) (*Module, error) {
	m, errs := ParseAll(file, data)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return m, nil
}

// ParseAll reads one module file like Parse but does not stop at the
// first error: it goes on over every frontmatter field, list item and
// body placeholder, so an editor can show all of a text's errors at once,
// in the order Parse would meet them (errs[0] is Parse's error). The
// module is nil, with one error, when the text cannot be read as a module
// at all (too large, not UTF-8, empty, a control character, no closed
// frontmatter, YAML that does not parse or is not one mapping); otherwise
// it holds every field that parsed, and a field that did not is left
// zero, with its error in errs (FileError.Field names it).
func ParseAll(file string, data []byte) (*Module, FileErrors) {
	fatal := func(e *FileError) (*Module, FileErrors) { return nil, FileErrors{e} }
	if len(data) > MaxModuleBytes {
		return fatal(&FileError{File: file, Msg: TooLarge(len(data))})
	}
	if !utf8.Valid(data) {
		return fatal(&FileError{File: file, Line: invalidUTF8Line(data), Msg: "the text is not valid UTF-8"})
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte(bom)))) == 0 {
		return fatal(&FileError{File: file, Line: 1, Msg: "the file is empty: a module starts with a frontmatter block between --- lines"})
	}
	if line, c, ok := controlChar(data); ok {
		return fatal(&FileError{File: file, Line: line, Msg: fmt.Sprintf("the text contains the control character U+%04X; prompt text may use only tabs and line breaks", c)})
	}
	text := Normalize(data)
	if e := ConflictMarkers(file, ProseMarkerLines(text)); e != nil {
		// Checked before the frontmatter: a marker line there would only
		// show as a YAML error, and one in the body as stray text.
		return fatal(e)
	}
	front, body, bodyLine, err := splitFrontmatter(file, text)
	if err != nil {
		return nil, fileErrors(file, err)
	}
	if err := checkFrontmatterShape(file, front); err != nil {
		return nil, fileErrors(file, err)
	}
	m := &Module{File: file, Text: text, Body: body, BodyLine: bodyLine, fieldLines: map[string]int{}}
	errs, err := decodeFrontmatter(file, front, m)
	if err != nil {
		return nil, fileErrors(file, err)
	}
	m.ID, m.Title, m.Description, m.OutputContract = inText(front, m.ID), inText(front, m.Title), inText(front, m.Description), inText(front, m.OutputContract)
	errs = append(errs, checkModule(file, m, errs)...)
	// After the frontmatter: its errors are the ones to fix first, and an
	// empty body must not hide them.
	if strings.TrimSpace(body) == "" {
		errs = append(errs, &FileError{File: file, Line: bodyLine, Field: "body", Msg: "the body is empty: write the instruction text after the closing ---"})
	}
	m.Placeholders = Placeholders(body)
	m.Pieces = Scan(strings.TrimSpace(body))
	if !errs.Has("layer") {
		for _, p := range m.Placeholders {
			if e, ok := LookupEnv(p.Name); ok && e.EnvOnly && m.Layer != LayerEnv {
				errs = append(errs, &FileError{File: file, Line: bodyLine + p.Line - 1, Msg: fmt.Sprintf("placeholder {{%s}} may be used only in env modules", p.Name)})
			}
		}
	}
	return m, errs
}

// ProseMarkerLines are the 1-based numbers of the conflict marker lines
// of text (linediff.MarkerLines) outside fenced code blocks: a block
// showing markers (how to resolve a merge) is an example the model reads,
// not an unresolved merge. Markers that promptdesk's own merges write
// (ownMergeMarkers) count inside a block too: a conflict of two edits of
// a code block lands there. The merge review counts them everywhere.
func ProseMarkerLines(text string) []int {
	lines := linediff.MarkerLines(text)
	if len(lines) == 0 {
		return nil
	}
	code := mdcode.CodeLines(text)
	src := strings.Split(text, "\n")
	return slices.DeleteFunc(lines, func(n int) bool {
		return code[n] && !linediff.OwnMarker(src[n-1])
	})
}

// ConflictMarkers is the one error of a text that still holds conflict
// marker lines at lines (1-based, ascending), as a merge leaves them:
// it points at the first and names them all. Nil when lines is empty.
func ConflictMarkers(file string, lines []int) *FileError {
	if len(lines) == 0 {
		return nil
	}
	nums := make([]string, len(lines))
	for i, n := range lines {
		nums[i] = strconv.Itoa(n)
	}
	where := "line " + nums[0]
	if len(nums) > 1 {
		where = "lines " + strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
	}
	return &FileError{File: file, Line: lines[0], Msg: fmt.Sprintf("unresolved merge: conflict markers (<<<<<<<, =======, >>>>>>>) at %s; keep the text you want and remove the marker lines", where)}
}

// fileErrors is err as FileErrors: a *FileError as it is, anything else
// as a FileError of file without a line.
func fileErrors(file string, err error) FileErrors {
	if err == nil {
		return nil
	}
	var fe *FileError
	if errors.As(err, &fe) {
		return FileErrors{fe}
	}
	return FileErrors{{File: file, Msg: err.Error()}}
}

// IsFence reports whether line is exactly "---", trailing blanks allowed:
// `----` or `---x` in a body is text, not a fence. Frontmatter in other
// formats (an Agent Skill's SKILL.md) is fenced by the same rule.
func IsFence(line string) bool {
	return strings.TrimRight(line, " \t\r") == "---"
}

// splitFrontmatter returns the YAML between the fences, the body after the
// closing fence, and the 1-based line where the body starts.
func splitFrontmatter(file, text string) (front, body string, bodyLine int, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if !IsFence(first) {
		return "", "", 0, &FileError{File: file, Line: 1, Msg: "a module starts with a frontmatter block: the first line must be ---"}
	}
	offset := len(first) + 1
	line := 2
	for offset <= len(text) {
		cur, _, _ := strings.Cut(rest, "\n")
		if IsFence(cur) {
			front = text[len(first)+1 : offset]
			end := offset + len(cur) + 1
			if end > len(text) {
				end = len(text)
			}
			return front, text[end:], line + 1, nil
		}
		if len(cur) == len(rest) {
			break
		}
		offset += len(cur) + 1
		rest = rest[len(cur)+1:]
		line++
	}
	return "", "", 0, &FileError{File: file, Line: 1, Msg: "frontmatter not closed: no line --- after the opening one"}
}

// inText returns s as a substring of front when front holds it as it is
// (a plain or quoted value on one line, the usual case), else s: the YAML
// decoder builds a new string for every value, and a library of 10,000
// modules would keep each title and description twice, once in Text.
func inText(front, s string) string {
	if i := strings.Index(front, s); s != "" && i >= 0 {
		return front[i : i+len(s)]
	}
	return s
}

// frontLine turns a line inside the frontmatter into a file line.
func frontLine(n ast.Node) int {
	if n == nil || n.GetToken() == nil {
		return 1
	}
	return n.GetToken().Position.Line + 1
}

// decodeFrontmatter reads the fields of front into m. errs are the
// fields' errors, every one; fatal is an error that leaves no fields to
// read (YAML that does not parse or is not one mapping).
func decodeFrontmatter(file, front string, m *Module) (errs FileErrors, fatal error) {
	seen := map[string]bool{}
	if strings.TrimSpace(front) != "" {
		f, err := parser.ParseBytes([]byte(front), 0)
		if err != nil {
			fe := yamlError(file, "frontmatter is not valid YAML", front, 2, err)
			if m := duplicateKey.FindStringSubmatch(fe.Msg); m != nil {
				fe.Field, fe.Msg = m[1], "field given twice"
			}
			return nil, fe
		}
		if len(f.Docs) != 1 {
			return nil, &FileError{File: file, Line: 2, Msg: "frontmatter must be one YAML mapping"}
		}
		body := f.Docs[0].Body
		if _, onlyComments := body.(*ast.CommentNode); onlyComments {
			body = nil
		}
		if body != nil {
			mapping, err := asMapping(file, "", body)
			if err != nil {
				return nil, err
			}
			for _, kv := range mapping {
				key := kv.Key.String()
				if seen[key] {
					errs = append(errs, &FileError{File: file, Line: frontLine(kv.Key), Field: key, Msg: "field given twice"})
					continue
				}
				seen[key] = true
				m.fieldLines[key] = frontLine(kv.Key)
				errs = append(errs, decodeField(file, key, kv.Value, m)...)
			}
		}
	}
	for _, req := range []string{"id", "layer", "version", "title", "description"} {
		if !seen[req] {
			errs = append(errs, &FileError{File: file, Line: 1, Field: req, Msg: "missing required field " + req})
		}
	}
	return errs, nil
}

// asMapping returns the key/value pairs of a YAML mapping node.
func asMapping(file, field string, n ast.Node) ([]*ast.MappingValueNode, error) {
	switch v := unwrap(n).(type) {
	case *ast.MappingNode:
		return v.Values, nil
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, nil
	}
	return nil, &FileError{File: file, Line: frontLine(n), Field: field, Msg: "must be a mapping of key: value"}
}

// unwrap drops comments and tags around a value node.
func unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return n
		}
	}
}

// decodeField reads the field key into m; its errors are every problem of
// the value (one for a scalar, one per bad item of a list).
func decodeField(file, key string, n ast.Node, m *Module) FileErrors {
	var err error
	switch key {
	case "id":
		m.ID, err = nameField(file, key, n)
	case "layer":
		var s string
		s, err = nameField(file, key, n)
		m.Layer = Layer(s)
	case "version":
		m.Version, err = intField(file, key, n)
	case "title":
		m.Title, err = stringField(file, key, n)
	case "description":
		m.Description, err = stringField(file, key, n)
	case "priority":
		m.Priority, err = intField(file, key, n)
	case "requiresAttachments":
		m.RequiresAttachments, err = boolField(file, key, n)
	case "outputContract":
		m.OutputContract, err = stringField(file, key, n)
	case "variables":
		var errs FileErrors
		m.Variables, errs = variablesField(file, n)
		return errs
	case "triggers":
		var errs FileErrors
		m.Triggers, errs = triggersField(file, n)
		return errs
	case "upstream":
		var errs FileErrors
		m.Upstream, errs = upstreamField(file, n)
		return errs
	default:
		err = &FileError{File: file, Line: frontLine(n), Field: key, Msg: "unknown field (allowed: " + fieldNames(Fields) + ")"}
	}
	return fileErrors(file, err)
}

// stringField reads a text value (title, description, outputContract,
// keywords, a variable's description, a command): any scalar except
// null, its text as written, so strings stay strings and `title: no` is
// "no". A plain value that a comment cuts short is an error (see
// commentCut).
func stringField(file, key string, n ast.Node) (string, error) {
	s, plain, err := scalarText(file, key, n)
	if err != nil || !plain {
		return s, err
	}
	return s, commentCut(file, key, unwrap(n).GetToken(), s)
}

// nameField reads a value that is a name or a keyword (id, layer, a
// variable's name and escape, a trigger's kind) like stringField, but
// allows a comment after it: such a value cannot hold " #", so the
// comment cuts nothing off (`id: task.x # <layer>.<name>`).
func nameField(file, key string, n ast.Node) (string, error) {
	s, _, err := scalarText(file, key, n)
	return s, err
}

// scalarText is the text of a scalar as written; plain is false for a
// block scalar (| or >), which a comment cannot cut.
func scalarText(file, key string, n ast.Node) (s string, plain bool, err error) {
	switch v := unwrap(n).(type) {
	case *ast.StringNode:
		return v.Value, true, nil
	case *ast.LiteralNode:
		return v.Value.Value, false, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return v.GetToken().Value, true, nil
	case *ast.NullNode:
		return "", false, &FileError{File: file, Line: frontLine(n), Field: key, Msg: "must not be empty"}
	}
	return "", false, &FileError{File: file, Line: frontLine(n), Field: key, Msg: "must be a string"}
}

// commentCut refuses a plain (unquoted) text value followed on its last
// line by a comment: YAML ends a plain value at a # after a blank, so
// `description: ticket #12` loads as "ticket" and nobody notices. The
// author either meant the # as text or wrote a note; only they know, so
// the error offers both fixes. tk is the value's token and value its text.
func commentCut(file, key string, tk *token.Token, value string) error {
	if tk == nil || quoted(tk) || tk.Next == nil || tk.Next.Type != token.CommentType {
		return nil
	}
	c := tk.Next
	// The blanks between the value and the "#": go-yaml keeps them at the
	// end of the value's Origin, or at the start of the comment's.
	gap := tk.Origin[len(strings.TrimRight(tk.Origin, " \t\n")):]
	if i := strings.IndexByte(c.Origin, '#'); i > 0 {
		gap += c.Origin[:i]
	}
	comment := "#" + strings.TrimRight(c.Value, " \t")
	if strings.Contains(gap, "\n") {
		// A comment on a line of its own, indented deeper than the line the
		// value starts on, reads as the value going on, but ends it.
		if c.Position.Column <= lineStart(tk) {
			return nil
		}
		return &FileError{File: file, Line: c.Position.Line + 1, Field: key, Msg: fmt.Sprintf(
			"the line %q is indented like more of this value, but YAML reads a line starting with # as a comment, so the value would load as %q without it; quote the whole value if the line belongs to it, or indent the comment no deeper than the line the value starts on",
			comment, value)}
	}
	whole := strconv.Quote(value + gap + comment)
	if name := key[strings.LastIndexByte(key, '.')+1:]; !strings.HasSuffix(name, "]") {
		whole = name + ": " + whole
	}
	return &FileError{File: file, Line: c.Position.Line + 1, Field: key, Msg: fmt.Sprintf(
		"a # after a blank starts a YAML comment, so this value would load as %q without %q; quote the value if the # belongs to it (%s), or put the comment on a line of its own",
		value, comment, whole)}
}

// lineStart is the column where the line of tk's first character begins
// its content: the key's column for `key: value`, the dash's for a list
// item.
func lineStart(tk *token.Token) int {
	col := tk.Position.Column
	for p := tk.Prev; p != nil && p.Position.Line == tk.Position.Line; p = p.Prev {
		col = p.Position.Column
	}
	return col
}

// decimal is how version and priority are written: decimal digits, no
// leading zero, and for a negative number a leading "-". YAML also reads
// 0x1F, 0o17, 0b11, +3 and 2_0 as integers, and 017 as 15, not 17.
var decimal = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// intField reads an integer written as plain decimal. A quoted number is a
// string, not an integer, and so is a value with any tag but !!int.
func intField(file, key string, n ast.Node) (int, error) {
	bad := func(msg string) error { return &FileError{File: file, Line: frontLine(n), Field: key, Msg: msg} }
	if tag := tagOf(n); tag != "" && tag != "!!int" {
		return 0, bad(fmt.Sprintf("must be an integer, got a value tagged %s", tag))
	}
	switch v := unwrap(n).(type) {
	case *ast.StringNode:
		if quoted(v.Token) {
			return 0, bad(fmt.Sprintf("must be an integer, got the quoted string %q; write the number without quotes", v.Value))
		}
	case *ast.IntegerNode:
		if text := v.Token.Value; !decimal.MatchString(text) {
			return 0, bad(fmt.Sprintf("must be written in plain decimal digits, got %q, which YAML reads as %v; write the number without a leading zero, \"+\", \"_\" or a 0x, 0o or 0b prefix", text, v.Value))
		}
		switch x := v.Value.(type) {
		case int64:
			if x >= -1<<31 && x < 1<<31 {
				return int(x), nil
			}
		case uint64:
			if x < 1<<31 {
				return int(x), nil
			}
		}
		return 0, bad("integer out of range")
	}
	return 0, bad(fmt.Sprintf("must be an integer, got %q", tokenText(unwrap(n))))
}

// tagOf is the first tag written on a value ("!!str" in `!!str 3`), or "".
func tagOf(n ast.Node) string {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			return v.Start.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return ""
		}
	}
}

// quoted reports whether a scalar was written in single or double quotes.
func quoted(tk *token.Token) bool {
	return tk != nil && (tk.Type == token.DoubleQuoteType || tk.Type == token.SingleQuoteType)
}

func boolField(file, key string, n ast.Node) (bool, error) {
	if v, ok := unwrap(n).(*ast.BoolNode); ok {
		return v.Value, nil
	}
	return false, &FileError{File: file, Line: frontLine(n), Field: key, Msg: fmt.Sprintf("must be true or false, got %q", tokenText(n))}
}

func tokenText(n ast.Node) string {
	if n == nil || n.GetToken() == nil {
		return ""
	}
	return n.GetToken().Value
}

// listItems returns the items of a sequence node.
func listItems(file, field string, n ast.Node) ([]ast.Node, error) {
	switch v := unwrap(n).(type) {
	case *ast.SequenceNode:
		return v.Values, nil
	case *ast.NullNode:
		return nil, nil
	}
	return nil, &FileError{File: file, Line: frontLine(n), Field: field, Msg: "must be a list"}
}

// variablesField reads the variables list; errs has each bad item's
// problems, and a bad item is left out of the list.
func variablesField(file string, n ast.Node) (vars []Variable, errs FileErrors) {
	items, err := listItems(file, "variables", n)
	if err != nil {
		return nil, fileErrors(file, err)
	}
	vars = make([]Variable, 0, len(items))
	for i, item := range items {
		v, bad := variableItem(file, fmt.Sprintf("variables[%d]", i), item, vars)
		if len(bad) > 0 {
			errs = append(errs, bad...)
			continue
		}
		vars = append(vars, v)
	}
	return vars, errs
}

// variableItem reads one item of the variables list, field its name in
// errors, given the variables declared before it.
func variableItem(file, field string, item ast.Node, before []Variable) (v Variable, errs FileErrors) {
	if _, isMap := unwrap(item).(*ast.MappingNode); isMap || isMappingValue(item) {
		kvs, err := asMapping(file, field, item)
		if err != nil {
			return v, fileErrors(file, err)
		}
		for _, kv := range kvs {
			k := kv.Key.String()
			read := stringField
			if k == "name" || k == "escape" {
				read = nameField
			}
			s, err := read(file, field+"."+k, kv.Value)
			if err != nil {
				errs = append(errs, fileErrors(file, err)...)
				continue
			}
			switch k {
			case "name":
				v.Name = s
			case "escape":
				v.Escape = s
			case "description":
				v.Description = s
			default:
				errs = append(errs, &FileError{File: file, Line: frontLine(kv.Key), Field: field + "." + k, Msg: "unknown field (allowed: name, escape, description)"})
			}
		}
		if len(errs) > 0 {
			return v, errs
		}
	} else {
		var err error
		if v.Name, err = nameField(file, field, item); err != nil {
			return v, fileErrors(file, err)
		}
	}
	bad := func(f, msg string) FileErrors {
		return FileErrors{{File: file, Line: frontLine(item), Field: field + f, Msg: msg}}
	}
	switch {
	case !ValidPlaceholderName(v.Name):
		return v, bad(".name", fmt.Sprintf("%q is not a placeholder name [a-z_][a-z0-9_.-]*", v.Name))
	case v.Escape != "" && v.Escape != EscapeXML:
		return v, bad(".escape", fmt.Sprintf("unknown escape %q (allowed: xml)", v.Escape))
	}
	if _, known := LookupEnv(v.Name); known {
		return v, bad(".name", fmt.Sprintf("%q is an environment value and cannot be a variable", v.Name))
	}
	for _, prev := range before {
		if prev.Name == v.Name {
			return v, bad(".name", fmt.Sprintf("variable %q declared twice", v.Name))
		}
	}
	return v, nil
}

func isMappingValue(n ast.Node) bool {
	_, ok := unwrap(n).(*ast.MappingValueNode)
	return ok
}

// triggersField reads the triggers list; errs has each bad item's
// problems, and a bad item is left out of the list.
func triggersField(file string, n ast.Node) (out []Trigger, errs FileErrors) {
	items, err := listItems(file, "triggers", n)
	if err != nil {
		return nil, fileErrors(file, err)
	}
	out = make([]Trigger, 0, len(items))
	for i, item := range items {
		field := fmt.Sprintf("triggers[%d]", i)
		kvs, err := asMapping(file, field, item)
		if err != nil {
			errs = append(errs, fileErrors(file, err)...)
			continue
		}
		var t Trigger
		var bad FileErrors
		for _, kv := range kvs {
			k := kv.Key.String()
			switch k {
			case "kind":
				var s string
				s, err = nameField(file, field+".kind", kv.Value)
				t.Kind = TriggerKind(s)
				bad = append(bad, fileErrors(file, err)...)
			case "command":
				t.Command, err = stringField(file, field+".command", kv.Value)
				bad = append(bad, fileErrors(file, err)...)
			case "keywords":
				var kerrs FileErrors
				t.Keywords, kerrs = keywordsField(file, field+".keywords", kv.Value)
				bad = append(bad, kerrs...)
			default:
				bad = append(bad, &FileError{File: file, Line: frontLine(kv.Key), Field: field + "." + k, Msg: "unknown field (allowed: kind, keywords, command)"})
			}
		}
		if len(bad) == 0 {
			bad = checkTrigger(file, field, frontLine(item), t)
		}
		if len(bad) > 0 {
			errs = append(errs, bad...)
			continue
		}
		out = append(out, t)
	}
	return out, errs
}

// checkTrigger applies the rules of a trigger's kind to t: every rule it
// breaks, in a fixed order (the kind's own need first).
func checkTrigger(file, field string, line int, t Trigger) FileErrors {
	var errs FileErrors
	bad := func(f, msg string) {
		errs = append(errs, &FileError{File: file, Line: line, Field: field + f, Msg: msg})
	}
	switch t.Kind {
	case TriggerIntent:
		if len(t.Keywords) == 0 {
			bad(".keywords", "an intent trigger needs at least one keyword")
		}
	case TriggerCommand:
		if !strings.HasPrefix(t.Command, "/") || len(t.Command) < 2 || strings.ContainsAny(t.Command, " \t\n") {
			bad(".command", fmt.Sprintf("a command trigger needs a command like /minutes, got %q", t.Command))
		}
	case TriggerAttachment:
	case TriggerManual:
		if len(t.Keywords) > 0 {
			bad(".keywords", "a manual trigger takes no keywords")
		}
	case "":
		bad(".kind", "missing required field kind")
		return errs
	default:
		bad(".kind", fmt.Sprintf("unknown trigger kind %q (allowed: intent, command, attachment, manual)", t.Kind))
		return errs
	}
	if t.Kind != TriggerCommand && t.Command != "" {
		bad(".command", "only command triggers take a command")
	}
	if t.Kind == TriggerCommand && len(t.Keywords) > 0 {
		bad(".keywords", "a command trigger takes no keywords")
	}
	return errs
}

// keywordsField accepts a comma list ("minutes, notes"; full-width commas
// and 、 too) or a YAML list of strings; errs has each bad item's problem.
func keywordsField(file, field string, n ast.Node) (out []string, errs FileErrors) {
	var raw []string
	if seq, ok := unwrap(n).(*ast.SequenceNode); ok {
		for i, item := range seq.Values {
			s, err := stringField(file, fmt.Sprintf("%s[%d]", field, i), item)
			if err != nil {
				errs = append(errs, fileErrors(file, err)...)
				continue
			}
			raw = append(raw, s)
		}
	} else {
		s, err := stringField(file, field, n)
		if err != nil {
			return nil, fileErrors(file, err)
		}
		raw = strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '，' || r == '、' })
	}
	out = make([]string, 0, len(raw))
	for _, k := range raw {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out, errs
}

// checkModule applies the rules that join several fields, to the fields
// that parsed: prior are the errors so far, and a rule about a field
// among them (or missing) is not applied.
func checkModule(file string, m *Module, prior FileErrors) FileErrors {
	var errs FileErrors
	bad := func(field, msg string) {
		errs = append(errs, &FileError{File: file, Line: m.FieldLine(field), Field: field, Msg: msg})
	}
	ok := func(field string) bool { return !prior.Has(field) }
	layer, _, _ := strings.Cut(m.ID, ".")
	problem := IDProblem(m.ID)
	idOK := ok("id") && problem == ""
	layerOK := ok("layer") && ValidLayer(m.Layer)
	if ok("id") && !idOK {
		bad("id", problem)
	}
	if ok("layer") && !layerOK {
		bad("layer", fmt.Sprintf("unknown layer %q (allowed: base, env, task, agent, tool, aux, style)", m.Layer))
	}
	if idOK && layerOK && Layer(layer) != m.Layer {
		bad("layer", fmt.Sprintf("id %q is not in layer %q", m.ID, m.Layer))
	}
	if ok("version") && m.Version < 1 {
		bad("version", "version must be 1 or more")
	}
	if ok("title") && strings.TrimSpace(m.Title) == "" {
		bad("title", "title must not be empty")
	}
	if ok("description") && strings.ContainsAny(m.Description, "\n") {
		bad("description", "description is one line")
	}
	if layerOK && m.Layer != LayerTask && len(m.Triggers) > 0 {
		bad("triggers", "only task modules have triggers")
	}
	if layerOK && m.Layer != LayerTask && m.Priority != 0 {
		bad("priority", "only task modules have a priority")
	}
	return errs
}

// invalidUTF8Line is the 1-based line of the first byte that is not UTF-8.
func invalidUTF8Line(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		i += size
	}
	return line
}

// Frontmatter limits: the YAML parser's memory grows with the square of
// the nesting depth, and a module's frontmatter is a handful of fields.
const (
	MaxFrontmatterBytes = 32 << 10
	maxFrontmatterDepth = 32
)

// checkFrontmatterShape refuses frontmatter too large or too deeply nested
// to be a module's, before the YAML parser sees it.
func checkFrontmatterShape(file, front string) error {
	if len(front) > MaxFrontmatterBytes {
		return &FileError{File: file, Line: 2, Msg: fmt.Sprintf("frontmatter is %d bytes; the limit is %d (32 KiB)", len(front), MaxFrontmatterBytes)}
	}
	depth, line := 0, 2
	for i := 0; i < len(front); i++ {
		switch front[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case '\n':
			line++
		}
		indent := 0
		if i == 0 || front[i-1] == '\n' {
			for i+indent < len(front) && (front[i+indent] == ' ' || front[i+indent] == '-') {
				indent++
			}
		}
		if depth > maxFrontmatterDepth || indent > 2*maxFrontmatterDepth {
			return &FileError{File: file, Line: line, Msg: fmt.Sprintf("frontmatter nests deeper than %d levels", maxFrontmatterDepth)}
		}
	}
	return nil
}

// controlChar finds the first C0 control character other than tab, LF and
// CR, or DEL: such bytes are invisible in the editor, and Postgres refuses
// NUL in text.
func controlChar(data []byte) (line int, c byte, found bool) {
	line = 1
	for _, b := range data {
		switch {
		case b == '\n':
			line++
		case b == '\t' || b == '\r':
		case b < 0x20 || b == 0x7f:
			return line, b, true
		}
	}
	return 0, 0, false
}

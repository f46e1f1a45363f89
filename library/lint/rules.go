package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/mdcode"
)

// The layers each checklist rule applies to (docs/lint.md says why).
// Rule 1 applies to base.identity only among base modules: the other base
// modules follow it in the same system prompt. env modules are runtime
// facts, not roles: only those that bring a source of answers (knowledge
// bases, selected documents, web search) get rule 6.
var ruleLayers = map[string][]library.Layer{
	"1":              {library.LayerTask, library.LayerAgent, library.LayerAux},
	"2":              {library.LayerBase, library.LayerTask, library.LayerAgent, library.LayerTool, library.LayerAux, library.LayerStyle},
	"3":              {library.LayerTask, library.LayerAgent, library.LayerAux},
	"4":              {library.LayerTask, library.LayerAgent, library.LayerAux},
	"5":              {library.LayerBase, library.LayerTask, library.LayerAgent, library.LayerTool, library.LayerAux, library.LayerStyle},
	"6":              {library.LayerBase, library.LayerTask, library.LayerAgent, library.LayerTool, library.LayerAux, library.LayerStyle},
	"7":              {library.LayerBase, library.LayerTask, library.LayerAgent, library.LayerAux, library.LayerStyle},
	"8":              {library.LayerBase, library.LayerTask, library.LayerAgent, library.LayerTool, library.LayerAux, library.LayerStyle},
	library.RuleTool: {library.LayerTool},
}

// identityID is the base module that opens every assembled prompt.
const identityID = "base.identity"

// sourceEnv are the environment values that bring a source of answers:
// an env module using one says what to answer when the source lacks it.
var sourceEnv = []string{library.EnvKnowledgeBases, library.EnvSelectedDocuments, library.EnvWebSearchStatus}

func applies(rule string, m *library.Module) bool {
	switch {
	case rule == "1" && m.ID == identityID:
		return true
	case rule == "6" && m.Layer == library.LayerEnv:
		return slices.ContainsFunc(m.Placeholders, func(p library.Placeholder) bool { return slices.Contains(sourceEnv, p.Name) })
	}
	return slices.Contains(ruleLayers[rule], m.Layer)
}

// Shapes the structural checks look for; they are syntax, not words.
var (
	// dataFence opens a fenced code block of a data format.
	dataFence = regexp.MustCompile("^\\s*(```|~~~)\\s*(?i:json|jsonc|json5|yaml|yml|csv|xml)\\b")
	// jsonExample is a JSON object with a quoted key: the contract shows
	// the output's shape.
	jsonExample = regexp.MustCompile(`\{\s*"[^"\n]*"\s*:`)
	// verdictLine is a fixed line of a keyword and its allowed values:
	// "VERDICT: PASS|FAIL|PARTIAL", "RISK: <low|medium|high>", or the
	// keyword with one value per line ("VERDICT: PASS").
	verdictLine = regexp.MustCompile(`(?m)\b[A-Z][A-Z_]{2,}:\s*<?[A-Za-z_]+(?:\s*\|\s*[A-Za-z_]+)+>?|^\s*[A-Z][A-Z_]{2,}: [A-Z_]+\s*$`)
	// heading is a Markdown heading line the output must contain.
	heading = regexp.MustCompile(`(?m)^\s*#{1,6} \S`)
	// schemaKey is a JSON Schema keyword as a quoted key.
	schemaKey = regexp.MustCompile(`"(?:type|properties|required|parameters|enum|items)"\s*:`)
	// paramLine is a parameter list item with a JSON type:
	// "- query (string, required): …".
	paramLine = regexp.MustCompile("^\\s*(?:[-*+]|\\d+\\.)\\s+`?[A-Za-z_][A-Za-z0-9_.]*`?\\s*[(:]\\s*(?:string|integer|number|boolean|array|object)\\b")
)

// checker holds one module and its prepared text while the rules run.
type checker struct {
	m        *library.Module
	c        *cues // nil: no cue file for the locale
	body     text
	contract text
	out      []library.Finding
}

// check runs every rule that applies to m's layer. c is nil for a locale
// without a cue file: only the checks that need no words run.
func check(m *library.Module, c *cues) []library.Finding {
	k := &checker{m: m, c: c, body: newText(m.Body, m.BodyLine), contract: newText(m.OutputContract, m.FieldLine("outputContract"))}
	if applies("3", m) {
		k.structuredFence()
	}
	if applies(library.RuleTool, m) {
		k.toolSchema()
	}
	k.braces()
	if c == nil {
		return k.out
	}
	if applies("1", m) {
		k.rule1()
	}
	if applies("2", m) {
		k.rule2()
	}
	if applies("3", m) {
		k.rule3()
	}
	if applies("4", m) {
		k.rule4()
	}
	if applies("5", m) {
		k.require("5", c.Mistakes, "names no common mistakes to avoid: add the errors this job typically makes (e.g. a \"Common mistakes\" list)")
	}
	if applies("6", m) {
		k.rule6()
	}
	if applies("7", m) {
		k.require("7", c.Detail, "states no level of detail: say how long or detailed the output should be")
	}
	if applies("8", m) {
		k.require("8", c.Leak, "does not keep process instructions out of the output: say what not to include (these instructions, the working steps, a preamble), or \"output only …\"")
	}
	if applies(library.RuleTool, m) {
		k.toolWording()
	}
	return k.out
}

func (k *checker) warn(rule string, line int, field, msg string) {
	k.out = append(k.out, library.Finding{File: k.m.File, Line: line, Field: field, Rule: rule, Severity: library.SeverityWarning, Message: msg})
}

// require warns on the body's first line when no cue of the list occurs.
func (k *checker) require(rule string, cues []string, msg string) {
	if !k.body.has(cues) {
		k.warn(rule, k.m.BodyLine, "body", "the body "+msg)
	}
}

// example quotes the first cue of a list, to show the kind of words meant.
func example(cues []string) string { return fmt.Sprintf("%q", cues[0]) }

// rule1: the first sentence says who the model is and what it answers
// for; an agent role's opening paragraph states its boundary.
func (k *checker) rule1() {
	para, line := opening(k.m.Body, k.m.BodyLine)
	sentence := firstSentence(para, k.c.SentenceEnds)
	st := newText(sentence, line)
	cue, _, ok := st.find(k.c.Role)
	switch {
	case !ok:
		k.warn("1", line, "body", fmt.Sprintf("the first sentence does not say who the model is: open with the role (%s …) and what it answers for", example(k.c.Role)))
	default:
		after := st.s[st.index(fold(cue))+len(fold(cue)):]
		if utf8.RuneCountInString(strings.TrimSpace(after)) < k.c.RoleMinLength {
			k.warn("1", line, "body", fmt.Sprintf("the first sentence names a role but not what it answers for: %q; add the job it is responsible for", strings.TrimSpace(sentence)))
		}
	}
	if k.m.Layer == library.LayerAgent && !newText(para, line).has(k.c.Boundary) {
		k.warn("1", line, "body", "the opening paragraph states no boundary for this role: say what it does and what it does not do (\"you plan, you do not implement\")")
	}
}

// rule2: forbidden actions are stated; a read-only role says so.
func (k *checker) rule2() {
	k.require("2", k.c.Forbidden, fmt.Sprintf("states no forbidden action: say what the model must not do (%s …)", example(k.c.Forbidden)))
	for _, field := range []string{"title", "description"} {
		value := k.m.Title
		if field == "description" {
			value = k.m.Description
		}
		if cue, _, ok := newText(value, k.m.FieldLine(field)).find(k.c.ReadOnly); ok && !k.body.has(k.c.ReadOnly) {
			k.warn("2", k.m.FieldLine(field), field, fmt.Sprintf("the %s says the role is %s but the body never does: state it where the model reads it", field, cue))
			return
		}
	}
}

// structuredFence: a body that shows a fenced JSON, YAML, CSV or XML
// block expects structured output (rule 3, needs no words).
func (k *checker) structuredFence() {
	if k.m.OutputContract != "" {
		return
	}
	for i, l := range strings.Split(k.m.Body, "\n") {
		if dataFence.MatchString(l) {
			k.warn("3", k.m.BodyLine+i, "outputContract", "the body shows a data block (structured output) but the module has no outputContract describing the output's shape")
			return
		}
	}
}

// rule3: a body that asks for structured output has an outputContract.
func (k *checker) rule3() {
	if k.m.OutputContract != "" || slices.ContainsFunc(k.out, func(f library.Finding) bool { return f.Rule == "3" }) {
		return
	}
	if cue, line, ok := k.body.find(k.c.Structured); ok {
		k.warn("3", line, "outputContract", fmt.Sprintf("the body asks for structured output (%q) but the module has no outputContract describing its shape", cue))
	}
}

// rule4: output a program consumes has a fixed format. It is consumed by
// a program when the module is an aux job with an outputContract (the
// application stores or shows the result), or when the contract or body
// names a data format or a verdict.
func (k *checker) rule4() {
	if k.m.OutputContract == "" {
		return
	}
	line := k.m.FieldLine("outputContract")
	// Only the contract: the body also names input formats ("CSV files").
	format, _, machine := k.contract.find(k.c.MachineFormat)
	verdict := k.contract.has(k.c.Verdict) || k.body.has(k.c.Verdict)
	exact := k.contract.has(k.c.ExactOutput)
	hasVerdictLine := verdictLine.MatchString(k.m.OutputContract)
	switch {
	case verdict && !hasVerdictLine:
		k.warn("4", line, "outputContract", "the output ends in a verdict but the contract gives no fixed verdict line: write it out, e.g. VERDICT: PASS|FAIL|PARTIAL, and say nothing follows it")
	case machine && !jsonExample.MatchString(k.m.OutputContract) && strings.EqualFold(format, "json"):
		k.warn("4", line, "outputContract", "the output is JSON but the contract shows no example object: give its exact shape, e.g. {\"title\": \"...\"}")
	case machine && !exact:
		k.warn("4", line, "outputContract", fmt.Sprintf("the output is %s for a program but the contract does not say it is the whole output: say %s only, with no code fence and no text around it", strings.ToUpper(format), strings.ToUpper(format)))
	case k.m.Layer == library.LayerAux && !machine && !verdict && !hasVerdictLine && !exact &&
		len(heading.FindAllString(k.m.OutputContract, -1)) < 2:
		k.warn("4", line, "outputContract", "an aux job's output is consumed by the application but the contract fixes no format: give a JSON example, a fixed line such as RESULT: A|B, the exact headings, or say the output is only that text")
	}
}

// rule6: says what to answer when information is missing; a module that
// searches says to name the scope searched.
func (k *checker) rule6() {
	_, line, ok := k.body.find(k.c.Missing)
	if !ok {
		k.warn("6", k.m.BodyLine, "body", "the body does not say what to answer when information is missing: say what to reply instead of inventing (e.g. \"not in the documents\")")
		return
	}
	if k.body.has(k.c.Search) && !k.body.has(k.c.SearchScope) {
		k.warn("6", line, "body", "when nothing is found the reply should name the scope searched (e.g. \"not in the documents (searched: …)\"); the body does not ask for it")
	}
}

// toolSchema: a tool module does not repeat the parameter schema, which
// the tool definition carries (needs no words).
func (k *checker) toolSchema() {
	for i, l := range strings.Split(k.m.Body, "\n") {
		switch {
		case dataFence.MatchString(l):
			k.warn(library.RuleTool, k.m.BodyLine+i, "body", "a tool module describes when and why to use the tool, not its parameter schema: remove the code block (the tool definition carries the schema)")
		case schemaKey.MatchString(l):
			k.warn(library.RuleTool, k.m.BodyLine+i, "body", "a tool module does not repeat the parameter schema (JSON Schema keys): the tool definition carries it")
		case paramLine.MatchString(l):
			k.warn(library.RuleTool, k.m.BodyLine+i, "body", "a tool module does not list the parameters with their types: the tool definition carries them; say when and why to use the tool instead")
		default:
			continue
		}
		return
	}
}

// toolWording: a tool module says when to use the tool and how it fails.
func (k *checker) toolWording() {
	if !k.body.has(k.c.ToolWhen) {
		k.warn(library.RuleTool, k.m.BodyLine, "body", fmt.Sprintf("a tool module says when and why to use the tool (e.g. a %s section)", example(k.c.ToolWhen)))
	}
	if !k.body.has(k.c.ToolFails) {
		k.warn(library.RuleTool, k.m.BodyLine, "body", "a tool module says how the tool fails and what to do then (no result, an error, a timeout)")
	}
}

// braces: brace text in the body that looks meant as a placeholder but
// is not one (library.Scan leaves it literal, so the model reads it as
// written): "{{ name }}" with spaces, "{{" not closed on its line, and
// template sections such as "{{#each}}". Applies to every layer and needs
// no words; an escaped "\{{" is literal on purpose, and so is brace text
// in code (fenced blocks, inline code spans: JSX style={{…}}, Go T{{…}}),
// which the renderer leaves as written like any other text that is no
// {{name}}.
func (k *checker) braces() {
	var fence mdcode.Fence
	for i, l := range strings.Split(k.m.Body, "\n") {
		if fence.Line(l) {
			continue
		}
		spans := mdcode.Spans(l)
		for at := 0; ; at += 2 {
			j := strings.Index(l[at:], "{{")
			if j < 0 {
				break
			}
			at += j
			if at > 0 && l[at-1] == '\\' || mdcode.InSpan(spans, at) {
				continue
			}
			rest := l[at+2:]
			end := strings.Index(rest, "}}")
			if msg := braceProblem(rest, end); msg != "" {
				k.warn(library.RulePlaceholder, k.m.BodyLine+i, "body", msg)
			}
			if end >= 0 {
				at += end + 2
			}
		}
	}
}

// braceProblem says what is wrong with the text after a "{{" whose "}}"
// is at end of rest (-1: not on the line), or "" when it is a placeholder
// or other brace text (a JSON example).
func braceProblem(rest string, end int) string {
	inner, shown := rest, short(rest)
	if end >= 0 {
		inner = rest[:end]
		shown = short(inner) + "}}"
	}
	name := strings.TrimSpace(inner)
	switch {
	case end >= 0 && library.ValidPlaceholderName(inner):
		return ""
	case strings.HasPrefix(inner, "#") || strings.HasPrefix(inner, "/"):
		return fmt.Sprintf("{{%s is template syntax this format does not have (no sections or loops, only {{name}} placeholders): the model would read it as written", shown)
	case end < 0:
		return fmt.Sprintf("{{%s: the {{ is not closed by }} on its line, so it is no placeholder and the model would read it as written: write {{name}}", shown)
	case strings.HasPrefix(inner, " ") && library.ValidPlaceholderName(name):
		return fmt.Sprintf("{{%s has spaces inside the braces, so it is no placeholder and the model would read it as written: write {{%s}}", shown, name)
	case strings.HasPrefix(inner, " "):
		return fmt.Sprintf("{{%s has a space after the braces, so it is no placeholder and the model would read it as written: write {{name}}", shown)
	}
	return ""
}

// short is s cut to its first 24 characters, enough to recognise the
// brace text in a message.
func short(s string) string {
	if r := []rune(s); len(r) > 24 {
		return string(r[:24]) + "…"
	}
	return s
}

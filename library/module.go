// Package library is promptdesk's domain core: the module file format,
// placeholders, the environment values modules may name
// (docs/module-format.md), label files, and the loader that turns a folder
// of modules into an immutable Snapshot. It imports nothing web- or
// database-specific.
package library

import (
	"fmt"
	"strings"
)

// Layer is one of the seven module layers, in assembly order.
type Layer string

// The layers, in assembly order.
const (
	LayerBase  Layer = "base"
	LayerEnv   Layer = "env"
	LayerTask  Layer = "task"
	LayerAgent Layer = "agent"
	LayerTool  Layer = "tool"
	LayerAux   Layer = "aux"
	LayerStyle Layer = "style"
)

// Layers lists every layer in assembly order.
var Layers = []Layer{LayerBase, LayerEnv, LayerTask, LayerAgent, LayerTool, LayerAux, LayerStyle}

// ValidLayer reports whether l is one of Layers.
func ValidLayer(l Layer) bool {
	for _, x := range Layers {
		if x == l {
			return true
		}
	}
	return false
}

// TriggerKind says how a task module fires (docs/module-format.md,
// Triggers).
type TriggerKind string

// Trigger kinds.
const (
	TriggerIntent     TriggerKind = "intent"
	TriggerCommand    TriggerKind = "command"
	TriggerAttachment TriggerKind = "attachment"
	TriggerManual     TriggerKind = "manual"
)

// Trigger is one entry of a task module's `triggers` list. Keywords is
// used by intent (required) and attachment (optional) triggers; Command,
// with its leading slash, by command triggers.
type Trigger struct {
	Kind     TriggerKind `json:"kind"`
	Keywords []string    `json:"keywords,omitempty"`
	Command  string      `json:"command,omitempty"`
}

// EscapeXML is the only escape mode a variable may declare: & < > " '
// are escaped, so a value cannot close its XML element or attribute.
const EscapeXML = "xml"

// Variable is a placeholder the caller must supply. Escape is "" or
// EscapeXML.
type Variable struct {
	Name        string `json:"name"`
	Escape      string `json:"escape,omitempty"`
	Description string `json:"description,omitempty"`
}

// Module is one parsed module file in one locale. Modules held by a
// Snapshot are shared and must not be modified.
type Module struct {
	// Frontmatter holds the fields of the frontmatter block; they are
	// promoted (m.ID, m.Version, …) and flattened in JSON.
	Frontmatter
	// Body is the instruction text after the frontmatter, LF line endings.
	Body string `json:"body"`
	// BodyLine is the 1-based file line where Body starts.
	BodyLine int `json:"-"`
	// Locale is the BCP 47 tag of the folder the module came from.
	Locale string `json:"locale"`
	// File is the path the module was read from, for messages.
	File string `json:"-"`
	// Text is the whole file normalised (no BOM, LF line endings).
	Text string `json:"-"`
	// Placeholders are the placeholders the body uses, in order of appearance.
	Placeholders []Placeholder `json:"-"`
	// Pieces is the body without surrounding blank space, scanned once at
	// load so rendering never scans it again.
	Pieces []Piece `json:"-"`

	fieldLines map[string]int
}

// FieldLine is the 1-based file line of a frontmatter field, or 1 when the
// field is absent.
func (m *Module) FieldLine(field string) int {
	if l, ok := m.fieldLines[field]; ok {
		return l
	}
	return 1
}

// PlaceholderLine is the file line of the first {{name}} in the body, or
// the body's first line when there is none.
func (m *Module) PlaceholderLine(name string) int {
	for _, p := range m.Placeholders {
		if p.Name == name {
			return m.BodyLine + p.Line - 1
		}
	}
	return m.BodyLine
}

// Name is the part of the id after the layer: "doc-minutes" for
// "task.doc-minutes", "knowledge_search" for "tool.knowledge_search".
func (m *Module) Name() string {
	_, name, _ := strings.Cut(m.ID, ".")
	return name
}

// Variable returns the declared variable called name.
func (m *Module) Variable(name string) (Variable, bool) {
	for _, v := range m.Variables {
		if v.Name == name {
			return v, true
		}
	}
	return Variable{}, false
}

// Commands returns the module's slash commands in trigger order.
func (m *Module) Commands() []string {
	var out []string
	for _, t := range m.Triggers {
		if t.Kind == TriggerCommand {
			out = append(out, t.Command)
		}
	}
	return out
}

// FileName is the file name a module with this id has: "<layer>-<name>.md".
func FileName(id string) string {
	layer, name, _ := strings.Cut(id, ".")
	return layer + "-" + name + ".md"
}

// IDFromFileName is the inverse of FileName; ok is false when the name
// does not have the `<layer>-<name>.md` shape.
func IDFromFileName(file string) (id string, ok bool) {
	base, found := strings.CutSuffix(file, ".md")
	if !found {
		return "", false
	}
	layer, name, found := strings.Cut(base, "-")
	if !found || layer == "" || name == "" {
		return "", false
	}
	return layer + "." + name, true
}

// MaxIDLength is the longest module id in bytes: an id becomes a file
// name (FileName) when a library is exported or copied, and file systems
// refuse names over 255 bytes.
const MaxIDLength = 128

// IDProblem says what is wrong with a module id, "" when nothing: an id
// is <layer>.<name>, a layer (ValidLayer), a dot and a ValidName, at most
// MaxIDLength bytes long.
func IDProblem(id string) string {
	layer, name, cut := strings.Cut(id, ".")
	switch {
	case !cut || !ValidLayer(Layer(layer)) || !ValidName(name):
		return fmt.Sprintf("id %q must be <layer>.<name>: a layer (base, env, task, agent, tool, aux, style), a dot, and lowercase [a-z0-9._-]", id)
	case len(id) > MaxIDLength:
		return fmt.Sprintf("id %.40q… is %d bytes long; an id has at most %d", id, len(id), MaxIDLength)
	}
	return ""
}

// ValidName reports whether s uses only lowercase [a-z0-9._-] and is not empty.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// Frontmatter is a module's frontmatter fields: the "parsed fields" stored
// as JSON with an override, in the file's key names.
type Frontmatter struct {
	ID                  string     `json:"id"`
	Layer               Layer      `json:"layer"`
	Version             int        `json:"version"`
	Title               string     `json:"title"`
	Description         string     `json:"description"`
	Priority            int        `json:"priority"`
	RequiresAttachments bool       `json:"requiresAttachments"`
	Variables           []Variable `json:"variables,omitempty"`
	OutputContract      string     `json:"outputContract,omitempty"`
	Triggers            []Trigger  `json:"triggers,omitempty"`
	// Upstream is where an imported text came from; nil when not given.
	Upstream *Upstream `json:"upstream,omitempty"`
}

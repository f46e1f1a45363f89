package library

// FieldDoc documents one frontmatter key, list-item key or trigger kind
// for the editor's completion: its Name, a one-line Description, and
// TaskOnly for what only task modules take. The format's rules are in
// parse.go; docs/module-format.md explains them.
type FieldDoc struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required,omitempty"`
	TaskOnly    bool   `json:"taskOnly,omitempty"`
}

// Fields are the frontmatter keys a module may have, in the order a
// module file usually lists them.
var Fields = []FieldDoc{
	{Name: "id", Description: "<layer>.<name>: an override keeps the module's id", Required: true},
	{Name: "layer", Description: "base, env, task, agent, tool, aux or style: an override keeps the layer", Required: true},
	{Name: "version", Description: "integer ≥ 1, raised on every substantive wording change", Required: true},
	{Name: "title", Description: "short human title for the console and menus", Required: true},
	{Name: "description", Description: "one line: what the module is for", Required: true},
	{Name: "priority", Description: "integer: the larger wins a trigger conflict", TaskOnly: true},
	{Name: "requiresAttachments", Description: "true or false: intent and attachment triggers need an attachment"},
	{Name: "variables", Description: "placeholders the caller must supply: [name] or [{name, escape: xml, description}]"},
	{Name: "outputContract", Description: "the shape of structured output"},
	{Name: "triggers", Description: "when the task module enters a prompt: a list of {kind, keywords, command}", TaskOnly: true},
	{Name: "upstream", Description: "where an imported text came from: {source, name, version}"},
}

// VariableFields are the keys of one item of the variables list.
var VariableFields = []FieldDoc{
	{Name: "name", Description: "the placeholder name [a-z_][a-z0-9_.-]*", Required: true},
	{Name: "escape", Description: "xml: escape & < > \" ' in the value before substitution"},
	{Name: "description", Description: "what the caller passes"},
}

// TriggerFields are the keys of one item of the triggers list.
var TriggerFields = []FieldDoc{
	{Name: "kind", Description: "intent, command, attachment or manual", Required: true},
	{Name: "keywords", Description: "comma list or YAML list: words that fire an intent or attachment trigger"},
	{Name: "command", Description: "the slash command of a command trigger, e.g. /minutes"},
}

// TriggerKinds documents each TriggerKind.
var TriggerKinds = []FieldDoc{
	{Name: string(TriggerIntent), Description: "fires when one of its keywords occurs in the message"},
	{Name: string(TriggerCommand), Description: "fires on its slash command, exactly"},
	{Name: string(TriggerAttachment), Description: "fires when the request has an attachment (and one of its keywords, if any)"},
	{Name: string(TriggerManual), Description: "never fires: enters only when a profile lists the module"},
}

package assembler

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// Command is one slash command of a chat client's `/` menu: the command
// with its slash, the task module it fires, and that module's title and
// description in the served locale.
type Command struct {
	Command     string `json:"command"`
	Module      string `json:"module"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// Commands lists the command triggers of every task module (builtin and
// user modules) as served for locale through the override chain, sorted
// by command, then module; never nil. The runtime API's commands route
// and the runtime client's fallback both answer with it.
func (a *Assembler) Commands(snap *library.Snapshot, st *State, locale string) []Command {
	if st == nil {
		st = &State{}
	}
	ids, _ := allIDs(snap, st)
	out := []Command{}
	for _, id := range ids {
		s, ok := a.Resolve(snap, st, id, locale)
		if !ok || s.Module.Layer != library.LayerTask {
			continue
		}
		for _, cmd := range s.Module.Commands() {
			out = append(out, Command{Command: cmd, Module: id, Title: s.Module.Title, Description: s.Module.Description})
		}
	}
	slices.SortFunc(out, func(a, b Command) int {
		return cmp.Or(cmp.Compare(a.Command, b.Command), cmp.Compare(a.Module, b.Module))
	})
	return out
}

// Tool is the model-facing description of one tool (a tool-layer
// module): the module it comes from, its title and description, the
// module rendered with no variables (Text) and that text's token count
// (0 when counting is off).
type Tool struct {
	Module      string `json:"module"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Text        string `json:"text"`
	Tokens      int    `json:"tokens"`
}

// Tools renders every tool module as served for locale through the
// override chain at now, keyed by tool name (the module id without
// "tool.", e.g. "knowledge_search"); never nil. Errors: a tool module
// that does not render without variables, naming it (a fault of the
// library, not of the caller).
func (a *Assembler) Tools(snap *library.Snapshot, st *State, locale string, now time.Time) (map[string]Tool, error) {
	if st == nil {
		st = &State{}
	}
	ids, _ := allIDs(snap, st)
	out := map[string]Tool{}
	for _, id := range ids {
		s, ok := a.Resolve(snap, st, id, locale)
		if !ok || s.Module.Layer != library.LayerTool {
			continue
		}
		r, err := a.Render(snap, st, &RenderRequest{Module: id, Locale: locale}, now)
		if err != nil {
			return nil, fmt.Errorf("tool module %s does not render without variables: %v", id, err)
		}
		out[s.Module.Name()] = Tool{Module: id, Title: s.Module.Title, Description: s.Module.Description, Text: r.Text, Tokens: r.Tokens}
	}
	return out, nil
}

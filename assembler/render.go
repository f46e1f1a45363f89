package assembler

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

// placeholderUse records how one placeholder was resolved, for the report.
type placeholderUse struct {
	module, name, source string
}

// inclusion is one module rendered for a `{{id}}` placeholder of another
// module: which text served, the direct includer's id, and where the
// included text (with its own includes) is in the output.
type inclusion struct {
	served Served
	by     string
	text   span
}

// span is a part of the renderer's output, [start, end) in bytes.
type span struct {
	start, end int
	set        bool
}

// renderer renders the modules of one request, in one pass, straight
// into one output buffer: a substituted value is written out and never
// scanned again, and segment, module and table texts are spans of that one
// buffer rather than copies.
type renderer struct {
	a      *Assembler
	snap   *library.Snapshot
	st     *State
	locale string
	lab    labeler
	vars   map[string]string
	out    strings.Builder

	// Environment values.
	req   *Request
	model string
	now   time.Time // in the request's zone
	loc   *time.Location
	// Tables are rendered at their first use and copied after that.
	kb, selected, skills span
	// pool is the skills the request can list; skillRows are the ones
	// listed and skillCut the refs of those the budget left out, most
	// relevant first (fitSkills).
	pool      *skillPool
	skillRows []skillRow
	skillCut  []int32
	// kbTables (one per knowledge base) and skillTable are the tables'
	// texts, from the table cache, before rendering.
	kbTables   []string
	kbBuf      [4]string
	skillTable string

	// declared collects every variable declared by a rendered module, to
	// find extra variables after assembly.
	declared map[string]bool
	uses     []placeholderUse
	// includes are in text order, an includer before what it includes.
	includes []inclusion
}

func (r *renderer) slice(s span) string { return r.out.String()[s.start:s.end] }

// labelsFor returns the labels of the locale, else of the fallback locale.
func (a *Assembler) labelsFor(snap *library.Snapshot, locale string) labeler {
	if l, ok := snap.Labels(locale); ok {
		return labeler{l, library.LocaleKey(locale)}
	}
	l, _ := snap.Labels(a.cfg.FallbackLocale)
	return labeler{l, library.LocaleKey(a.cfg.FallbackLocale)}
}

// module renders a served module (its body, then its output contract) at
// the end of the output and returns its span.
func (r *renderer) module(s Served) (span, error) {
	start := r.out.Len()
	if err := r.write(s, []string{s.Module.ID}); err != nil {
		return span{}, err
	}
	if c := strings.TrimSpace(s.Module.OutputContract); c != "" {
		r.out.WriteString("\n\n")
		r.out.WriteString(r.lab.get("output_contract.heading"))
		r.out.WriteString("\n")
		r.out.WriteString(c)
	}
	return span{start, r.out.Len(), true}, nil
}

func (r *renderer) write(s Served, stack []string) error {
	m := s.Module
	for _, v := range m.Variables {
		r.declared[v.Name] = true
		if _, supplied := r.vars[v.Name]; !supplied {
			return &library.Error{Code: library.CodeMissingVariable, Module: m.ID, Placeholder: v.Name, Msg: "the module declares this variable and the request does not supply it"}
		}
	}
	for _, p := range m.Pieces {
		if r.out.Len() > MaxOutputBytes {
			return &library.Error{Code: library.CodeLimitExceeded, Module: m.ID, Msg: fmt.Sprintf("the rendered text is over the limit of %d bytes (%d MiB); includes repeat too much", MaxOutputBytes, MaxOutputBytes>>20)}
		}
		if p.Name == "" {
			r.out.WriteString(p.Literal)
			continue
		}
		if v, ok := m.Variable(p.Name); ok {
			val := r.vars[p.Name]
			if v.Escape == library.EscapeXML {
				xmlEscaper.WriteString(&r.out, val)
			} else {
				r.out.WriteString(val)
			}
			r.uses = append(r.uses, placeholderUse{m.ID, p.Name, "variable"})
			continue
		}
		if r.writeEnv(p.Name) {
			r.uses = append(r.uses, placeholderUse{m.ID, p.Name, "env"})
			continue
		}
		if r.snap.Has(p.Name) || r.hasOverride(p.Name) {
			if slices.Contains(stack, p.Name) {
				return &library.Error{Code: library.CodeIncludeCycle, Module: m.ID, Placeholder: p.Name, Path: append(slices.Clone(stack), p.Name)}
			}
			if len(stack) > MaxIncludeDepth {
				return &library.Error{Code: library.CodeIncludeTooDeep, Module: m.ID, Placeholder: p.Name, Path: slices.Clone(stack), Msg: "includes nest deeper than the limit of 10"}
			}
			inc, ok := r.a.Resolve(r.snap, r.st, p.Name, r.locale)
			if !ok {
				return &library.Error{Code: library.CodeNotFound, Module: m.ID, Placeholder: p.Name, Msg: "included module not found"}
			}
			r.uses = append(r.uses, placeholderUse{m.ID, p.Name, "include"})
			at, start := len(r.includes), r.out.Len()
			r.includes = append(r.includes, inclusion{served: inc, by: m.ID})
			if err := r.write(inc, append(stack, p.Name)); err != nil {
				return err
			}
			r.includes[at].text = span{start, r.out.Len(), true}
			continue
		}
		return &library.Error{Code: library.CodeUnknownPlaceholder, Module: m.ID, Placeholder: p.Name, Msg: "not a declared variable, an environment value or a module id"}
	}
	return nil
}

var weekdayLabels = [...]string{"weekday.sunday", "weekday.monday", "weekday.tuesday", "weekday.wednesday", "weekday.thursday", "weekday.friday", "weekday.saturday"}

// writeEnv writes the environment value called name; false when
// name is not one.
func (r *renderer) writeEnv(name string) bool {
	var buf [64]byte
	switch name {
	case library.EnvDate:
		r.out.Write(r.now.AppendFormat(buf[:0], "2006-01-02"))
	case library.EnvWeekday:
		r.out.WriteString(r.lab.get(weekdayLabels[r.now.Weekday()]))
	case library.EnvCurrentTime:
		r.out.Write(r.now.AppendFormat(buf[:0], time.RFC3339))
	case library.EnvModel:
		r.out.WriteString(r.model)
	case library.EnvAttachments:
		if len(r.req.Attachments) == 0 {
			r.out.WriteString(r.lab.get("attachments.none"))
		}
		for i, at := range r.req.Attachments {
			if i > 0 {
				r.out.WriteString(r.lab.get("list.separator"))
			}
			r.out.WriteString(at.Name)
		}
	case library.EnvWebSearchStatus:
		if r.req.WebSearch {
			r.out.WriteString(r.lab.get("web_search.enabled"))
		} else {
			r.out.WriteString(r.lab.get("web_search.disabled"))
		}
	case library.EnvKnowledgeBases:
		r.table(&r.kb, func() {
			for i, t := range r.kbTables {
				if i > 0 {
					r.out.WriteString("\n\n")
				}
				r.out.WriteString(t)
			}
		}, len(r.kbTables) > 0)
	case library.EnvSelectedDocuments:
		r.table(&r.selected, func() { writeSelectedTable(&r.out, r.lab, r.req.SelectedDocuments, r.req.KnowledgeBases) }, len(r.req.SelectedDocuments) > 0)
	case library.EnvSkills:
		r.table(&r.skills, func() { r.out.WriteString(r.skillTable) }, len(r.skillRows) > 0)
	default:
		return false
	}
	return true
}

// prepareKnowledgeTables takes the knowledge-base tables from the table
// cache, rendering the ones not there, so their sizes are known before
// the output buffer is sized (fitSkills does the same for the skill
// table).
func (r *renderer) prepareKnowledgeTables() {
	kbs := r.req.KnowledgeBases
	r.kbTables = r.kbBuf[:0]
	for i := range kbs {
		kb := &kbs[i]
		docs := shownDocs(kb)
		r.kbTables = append(r.kbTables, r.a.cachedTable(r.lab, r.loc,
			func(w tableInputs) { tableContext(w, tableKnowledge, r.lab, r.loc); knowledgeInputs(w, kb, docs) },
			func(b *strings.Builder) { writeKnowledgeTable(b, r.lab, kb, docs, r.loc) }))
	}
}

// prepareSkillTable takes the skill table of r.skillRows from the table
// cache, rendering it when it is not there ("" without rows).
func (r *renderer) prepareSkillTable() {
	r.skillTable = ""
	if len(r.skillRows) > 0 {
		r.skillTable = r.a.cachedTable(r.lab, nil,
			func(w tableInputs) { tableContext(w, tableSkills, r.lab, nil); skillInputs(w, r.skillRows) },
			func(b *strings.Builder) { writeSkillTable(b, r.lab, r.skillRows) })
	}
}

// tablesLen is the length of the prepared tables' texts.
func (r *renderer) tablesLen() int {
	n := len(r.skillTable)
	for _, t := range r.kbTables {
		n += len(t) + 2
	}
	return n
}

// table writes a table at its first use and copies it after that; an
// empty table (nothing to list) writes nothing.
func (r *renderer) table(s *span, render func(), present bool) {
	if !present {
		return
	}
	if s.set {
		r.out.WriteString(r.slice(*s))
		return
	}
	start := r.out.Len()
	render()
	*s = span{start, r.out.Len(), true}
}

func (r *renderer) hasOverride(id string) bool {
	return r.st != nil && r.st.Overrides.HasID(id)
}

// xmlEscaper escapes & < > " ' for variables declared `escape: xml`, so a
// value can close neither its XML element nor an attribute.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

package assembler

import (
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/library"
)

// placeholderUse records how one placeholder was resolved, for the report.
type placeholderUse struct {
	module, name, source string
}

// renderer renders modules of one request in one pass (S3): a substituted
// value is written out and never scanned again.
type renderer struct {
	a      *Assembler
	snap   *library.Snapshot
	st     *State
	locale string
	vars   map[string]string
	env    map[string]string
	// declared collects every variable declared by a rendered module, to
	// find extra variables after assembly.
	declared map[string]bool
	uses     []placeholderUse
	// served collects the modules used through includes.
	included []Served
}

// render renders a served module's body (plus its output contract) and
// the modules it includes.
func (r *renderer) render(s Served, stack []string) (string, error) {
	var b strings.Builder
	if err := r.write(&b, s, append(stack, s.Module.ID)); err != nil {
		return "", err
	}
	text := strings.TrimSpace(b.String())
	if c := strings.TrimSpace(s.Module.OutputContract); c != "" {
		text += "\n\n" + r.labels().get("output_contract.heading") + "\n" + c
	}
	return text, nil
}

func (r *renderer) labels() labeler {
	if l, ok := r.snap.Labels(r.locale); ok {
		return labeler{l}
	}
	l, _ := r.snap.Labels(r.a.cfg.FallbackLocale)
	return labeler{l}
}

func (r *renderer) write(b *strings.Builder, s Served, stack []string) error {
	m := s.Module
	for _, v := range m.Variables {
		r.declared[v.Name] = true
	}
	for _, p := range library.Scan(m.Body) {
		if p.Name == "" {
			b.WriteString(p.Literal)
			continue
		}
		if v, ok := m.Variable(p.Name); ok {
			val, supplied := r.vars[p.Name]
			if !supplied {
				return &Error{Code: CodeMissingVariable, Module: m.ID, Placeholder: p.Name, Msg: "the module declares this variable and the request does not supply it"}
			}
			if v.Escape == library.EscapeXML {
				val = escapeXML(val)
			}
			b.WriteString(val)
			r.uses = append(r.uses, placeholderUse{m.ID, p.Name, "variable"})
			continue
		}
		if val, ok := r.env[p.Name]; ok {
			b.WriteString(val)
			r.uses = append(r.uses, placeholderUse{m.ID, p.Name, "env"})
			continue
		}
		if r.snap.Has(p.Name) || r.hasOverride(p.Name) {
			if slices.Contains(stack, p.Name) {
				return &Error{Code: CodeIncludeCycle, Module: m.ID, Placeholder: p.Name, Path: append(slices.Clone(stack), p.Name)}
			}
			if len(stack) > MaxIncludeDepth {
				return &Error{Code: CodeIncludeTooDeep, Module: m.ID, Placeholder: p.Name, Path: slices.Clone(stack), Msg: "includes nest deeper than the limit of 10"}
			}
			inc, ok := r.a.Resolve(r.snap, r.st, p.Name, r.locale)
			if !ok {
				return &Error{Code: CodeNotFound, Module: m.ID, Placeholder: p.Name, Msg: "included module not found"}
			}
			r.included = append(r.included, inc)
			r.uses = append(r.uses, placeholderUse{m.ID, p.Name, "include"})
			var sub strings.Builder
			if err := r.write(&sub, inc, append(stack, p.Name)); err != nil {
				return err
			}
			b.WriteString(strings.TrimRight(sub.String(), "\n")) // the file's last newline is not part of the text

			continue
		}
		return &Error{Code: CodeUnknownPlaceholder, Module: m.ID, Placeholder: p.Name, Msg: "not a declared variable, an environment value or a module id"}
	}
	return nil
}

func (r *renderer) hasOverride(id string) bool {
	if r.st == nil {
		return false
	}
	for k := range r.st.Overrides {
		if k.ID == id {
			return true
		}
	}
	return false
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

// escapeXML escapes & < > " ' for variables declared `escape: xml` (S3).
func escapeXML(s string) string { return xmlEscaper.Replace(s) }

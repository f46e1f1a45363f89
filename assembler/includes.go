package assembler

import (
	"slices"

	"github.com/promptdesk/promptdesk/library"
)

// CheckIncludes follows the includes of m as if it were saved as the
// override of its id in locale, so a save can be refused: a cycle is an
// *Error with code include_cycle and the path (`a → b → a`), a chain deeper
// than MaxIncludeDepth is include_too_deep. Nothing is rendered.
func (a *Assembler) CheckIncludes(snap *library.Snapshot, st *State, m *library.Module, locale string) error {
	var visit func(cur *library.Module, stack []string) error
	visit = func(cur *library.Module, stack []string) error {
		for _, p := range cur.Placeholders {
			if _, isVar := cur.Variable(p.Name); isVar {
				continue
			}
			if _, isEnv := library.LookupEnv(p.Name); isEnv {
				continue
			}
			next := m
			if p.Name != m.ID {
				s, ok := a.Resolve(snap, st, p.Name, locale)
				if !ok {
					continue // unknown placeholders are reported by CheckPlaceholders
				}
				next = s.Module
			}
			if slices.Contains(stack, p.Name) {
				return &library.Error{Code: library.CodeIncludeCycle, Module: cur.ID, Placeholder: p.Name, Path: append(slices.Clone(stack), p.Name)}
			}
			if len(stack) > MaxIncludeDepth {
				return &library.Error{Code: library.CodeIncludeTooDeep, Module: cur.ID, Placeholder: p.Name, Path: slices.Clone(stack), Msg: "includes nest deeper than the limit of 10"}
			}
			if err := visit(next, append(stack, p.Name)); err != nil {
				return err
			}
		}
		return nil
	}
	return visit(m, []string{m.ID})
}

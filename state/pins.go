package state

import (
	"context"
	"errors"
	"fmt"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// RevisionSource reads one stored revision of an override.
type RevisionSource interface {
	GetRevision(ctx context.Context, moduleID, locale string, revision int) (domain.Revision, error)
}

// Pinned returns st with each pinned override served at its pinned
// revision, read from src, instead of the one published: a past answer
// can be assembled again. st is not modified; without pins it is
// returned as it is. A pinned revision must hold a module text that
// parses and fits v's library. Errors: a 422 invalid_request naming the
// pin's field when the revision does not exist, removed the override or
// does not parse; else the store's.
func Pinned(ctx context.Context, src RevisionSource, v *View, st *assembler.State, pins []assembler.Pin) (*assembler.State, error) {
	if len(pins) == 0 {
		return st, nil
	}
	out := &assembler.State{Overrides: st.Overrides, Profiles: st.Profiles}
	for _, p := range pins {
		bad := func(msg string) error {
			return &library.Error{Code: library.CodeInvalidRequest, Module: p.ID, Field: p.Field, Msg: msg}
		}
		r, err := src.GetRevision(ctx, p.ID, p.Locale, p.Revision)
		switch {
		case errors.Is(err, library.ErrNotFound):
			return nil, bad(fmt.Sprintf("%s has no revision %d", OverrideFile(p.ID, p.Locale), p.Revision))
		case err != nil:
			return nil, err
		case domain.Removal(r.Action, r.Text):
			return nil, bad(fmt.Sprintf("revision %d of %s removed the override (%s): it has no text to serve", p.Revision, OverrideFile(p.ID, p.Locale), r.Action))
		}
		o, err := parseOverride(domain.Override{ModuleID: r.ModuleID, Locale: p.Locale, Text: r.Text, Revision: r.Revision,
			BasedOnVersion: r.BasedOnVersion, BaseSnapshot: r.BaseSnapshot})
		if err == nil {
			err = v.Library.CheckPlaceholdersWith(o.Module, func(id string) bool { return v.Exists(id) })
		}
		if err != nil {
			return nil, bad(fmt.Sprintf("revision %d of %s cannot be served: %v", p.Revision, OverrideFile(p.ID, p.Locale), err))
		}
		out.Overrides = out.Overrides.With(assembler.Key(p.ID, p.Locale), o)
	}
	return out, nil
}

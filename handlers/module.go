package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/modulepage"
)

// Module serves the module detail page. It reads the served state, and
// the saved scenarios for where the module is used (Service.WhereUsed).
type Module struct {
	Served    *state.Served
	Assembler *assembler.Assembler
	Service   UseFinder
}

// UseFinder finds where a module is used (*state.Overrides): the
// profiles that list it and the saved scenarios whose assembly takes it.
type UseFinder interface {
	WhereUsed(ctx context.Context, id string) (state.Uses, error)
}

// timeLayout is how the console shows stored times.
const timeLayout = "2006-01-02 15:04 MST"

// Show renders GET /modules/:id. Errors: ErrNotFound for an id that is
// neither a builtin nor a user module.
func (h *Module) Show(c echo.Context) error {
	id := c.Param("id")
	v := h.Served.Current()
	if !v.Exists(id) {
		return fmt.Errorf("module %q does not exist: %w", id, library.ErrNotFound)
	}
	m := moduleModel(h.Assembler, v, id)
	m.Flash = flashFor(c)
	uses, err := h.Service.WhereUsed(c.Request().Context(), id)
	if err != nil {
		return err
	}
	m.Uses = usesModel(uses)
	return Render(c, http.StatusOK, modulepage.Page(m))
}

// moduleModel is the module page of id, which exists in v.
func moduleModel(a *assembler.Assembler, v *state.View, id string) modulepage.Model {
	m := modulepage.Model{ID: id, Status: string(v.ModuleStatus(id)), Fallback: a.FallbackLocale()}
	if pm, from, ok := v.Primary(a, id); ok {
		m.Fields, m.Triggers = moduleFields(pm)
		m.FieldsFrom = from
	}
	builtinVersion := 0
	if b, ok := v.Library.Any(id); ok {
		builtinVersion = b.Version
	}
	for _, loc := range v.Locales(id) {
		l := modulepage.Locale{
			Locale:         loc,
			Source:         string(state.StatusBroken),
			BuiltinVersion: builtinVersion,
			EditURL:        overrideURL(id, loc),
			DeleteURL:      overrideURL(id, loc) + "/delete",
		}
		if s, ok := a.Resolve(v.Library, v.State, id, loc); ok {
			l.Source, l.ServedLocale, l.Fallback = s.Source, s.Locale, s.Fallback
			l.Version, l.Title, l.Body = s.Module.Version, s.Module.Title, s.Module.Body
		}
		if l.Source == string(state.StatusBroken) {
			// Not served at all: a user module's locale with only a draft.
			if o, ok := v.WithDrafts.Overrides.Get(assembler.Key(id, loc)); ok {
				l.Source, l.ServedLocale = string(state.StatusDraft), loc
				l.Version, l.Title, l.Body = o.Module.Version, o.Module.Title, o.Module.Body
			}
		}
		key := assembler.Key(id, loc)
		if r, ok := v.Rows.Get(key); ok {
			l.Override = &modulepage.Override{
				Revision:       r.Revision,
				Author:         r.Author,
				Updated:        r.UpdatedAt.UTC().Format(timeLayout),
				BasedOnVersion: r.BasedOnVersion,
			}
			if d := v.Drift(id, loc); d.Drifted() {
				l.Override.Drift, l.Override.ReviewURL = d.Describe(), reviewURL(id, r.Locale)
			}
			if err, broken := v.Broken.Get(key); broken {
				l.Override.Broken = err.Error()
			}
		}
		if d, ok := v.Drafts.Get(key); ok {
			l.Draft = &modulepage.Draft{
				Revision:   d.Revision,
				Author:     d.Author,
				Updated:    d.UpdatedAt.UTC().Format(timeLayout),
				PublishURL: overrideURL(id, loc) + "/publish",
				DiscardURL: overrideURL(id, loc) + "/discard",
			}
			if err, broken := v.DraftBroken.Get(key); broken {
				l.Draft.Broken = err.Error()
			}
		}
		m.Locales = append(m.Locales, l)
	}
	return m
}

// moduleFields copies a module's frontmatter into the view model.
func moduleFields(pm *library.Module) (modulepage.Fields, []modulepage.Trigger) {
	f := modulepage.Fields{
		Layer:               string(pm.Layer),
		Version:             pm.Version,
		Title:               pm.Title,
		Description:         pm.Description,
		Priority:            pm.Priority,
		RequiresAttachments: pm.RequiresAttachments,
		OutputContract:      pm.OutputContract,
		Upstream:            pm.Upstream.String(),
	}
	for _, vr := range pm.Variables {
		f.Variables = append(f.Variables, modulepage.Variable{Name: vr.Name, Escape: vr.Escape, Description: vr.Description})
	}
	var ts []modulepage.Trigger
	for _, t := range pm.Triggers {
		ts = append(ts, modulepage.Trigger{Kind: string(t.Kind), Keywords: strings.Join(t.Keywords, ", "), Command: t.Command})
	}
	return f, ts
}

// overrideURL is the editor of id's override in locale.
func overrideURL(id, locale string) string {
	return "/modules/" + id + "/override/" + locale
}

// localeURL is the module page of id scrolled to locale's card, where
// that locale's next actions (publish, discard, edit) are:
// "/modules/base.identity#locale-zh-CN".
func localeURL(id, locale string) string {
	return "/modules/" + id + "#" + modulepage.LocaleAnchor(locale)
}

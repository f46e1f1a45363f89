package handlers

import (
	"net/url"

	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/modulepage"
)

// usesModel is the module page's "where used" of u.
func usesModel(u state.Uses) *modulepage.Uses {
	m := &modulepage.Uses{Total: u.Total}
	for _, p := range u.Profiles {
		m.Profiles = append(m.Profiles, modulepage.ProfileUse{ID: p.ID, Name: p.Name, URL: "/profiles/" + url.PathEscape(p.ID), Position: p.Position})
	}
	for _, s := range u.Scenarios {
		su := modulepage.ScenarioUse{ID: s.ID, Name: s.Name, PreviewURL: "/preview?scenario=" + url.QueryEscape(s.ID), Err: problem(s.Err)}
		for _, e := range s.Entries {
			su.Entries = append(su.Entries, modulepage.UseEntry{Kind: e.Kind, Locale: e.Locale, Source: e.Source, Reason: e.Reason, Line: e.Line})
		}
		m.Scenarios = append(m.Scenarios, su)
	}
	return m
}

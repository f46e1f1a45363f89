package handlers

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/driftpage"
)

// Drift serves the drift list. It reads only the served View.
type Drift struct {
	Served *state.Served
}

// List renders GET /drift: every served override that DriftOf finds
// drifted, with why, each linked to its review (DriftReview).
func (h *Drift) List(c echo.Context) error {
	v := h.Served.Current()
	m := driftpage.Model{Flash: flashFor(c)}
	for key, r := range v.Rows.All() {
		d := v.Drift(key.ID, r.Locale)
		if !d.Drifted() {
			continue
		}
		m.Rows = append(m.Rows, driftpage.Row{
			ModuleID:       key.ID,
			Locale:         r.Locale,
			BasedOnVersion: d.BasedOnVersion,
			BuiltinVersion: d.BuiltinVersion,
			Reason:         d.Describe(),
			Revision:       r.Revision,
			Author:         r.Author,
			Note:           r.Note,
			Updated:        r.UpdatedAt.UTC().Format(timeLayout),
			ModuleURL:      "/modules/" + key.ID,
			EditorURL:      overrideURL(key.ID, r.Locale),
			ReviewURL:      reviewURL(key.ID, r.Locale),
		})
	}
	slices.SortFunc(m.Rows, func(a, b driftpage.Row) int {
		return strings.Compare(a.ModuleID+" "+a.Locale, b.ModuleID+" "+b.Locale)
	})
	return Render(c, http.StatusOK, driftpage.Page(m))
}

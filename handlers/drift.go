package handlers

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/views/driftpage"
)

// Drift serves the drift list (S2, S10). It reads only the Overlay.
type Drift struct {
	Overlay *Overlay
}

// List renders GET /drift: every served override whose builtin has a
// higher version than it was based on, or a changed text at that version,
// each linked to its review (DriftReview).
func (h *Drift) List(c echo.Context) error {
	v := h.Overlay.Current()
	m := driftpage.Model{Flash: flashFor(c)}
	for key, o := range v.State.Overrides {
		if !o.Drifted(v.Library) {
			continue
		}
		b, ok := v.Library.Module(key.ID, o.Locale)
		if !ok {
			b, _ = v.Library.Any(key.ID) // Drifted implies a builtin exists
		}
		r := v.Rows[key]
		row := driftpage.Row{
			ModuleID:       key.ID,
			Locale:         r.Locale,
			BasedOnVersion: o.BasedOnVersion,
			BuiltinVersion: b.Version,
			Reason:         "builtin version raised",
			Revision:       r.Revision,
			Author:         r.Author,
			Updated:        r.UpdatedAt.UTC().Format(timeLayout),
			ModuleURL:      "/modules/" + key.ID,
			EditorURL:      overrideURL(key.ID, r.Locale),
			ReviewURL:      reviewURL(key.ID, r.Locale),
		}
		if b.Version == o.BasedOnVersion {
			row.Reason = "builtin text changed without a version bump"
		}
		m.Rows = append(m.Rows, row)
	}
	slices.SortFunc(m.Rows, func(a, b driftpage.Row) int {
		return strings.Compare(a.ModuleID+" "+a.Locale, b.ModuleID+" "+b.Locale)
	})
	return Render(c, http.StatusOK, driftpage.Page(m))
}

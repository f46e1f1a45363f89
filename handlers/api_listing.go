package handlers

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// APIOverrideEntry is one entry of GET /api/v1/overrides: an override
// (or user module) in one locale, published or with a draft pending.
// Revision is the head's, the If-Match of its next change; Status draft
// or published (of the head); PublishedRevision the revision served (0:
// only a draft); Drifted whether its builtin moved on, with Drift saying
// how; Broken whether its served text no longer fits the library (the
// builtin serves instead).
type APIOverrideEntry struct {
	ID                string    `json:"id"`
	Locale            string    `json:"locale"`
	Kind              string    `json:"kind"`
	Status            string    `json:"status"`
	Revision          int       `json:"revision"`
	PublishedRevision int       `json:"publishedRevision"`
	Author            string    `json:"author"`
	UpdatedAt         time.Time `json:"updatedAt"`
	Drifted           bool      `json:"drifted"`
	Drift             *APIDrift `json:"drift,omitempty"`
	Broken            bool      `json:"broken"`
}

// List handles GET /api/v1/overrides[?status=S]: 200 with a JSON array of
// APIOverrideEntry, every override and draft sorted by id, then locale;
// status draft or published keeps those whose head has that status, and
// drifted those that drifted. It reads the served state, not the
// database. Errors: 422 invalid_request for another status.
func (h *APIOverrides) List(c echo.Context) error {
	status := c.QueryParam("status")
	switch status {
	case "", OverrideStatusDraft, OverrideStatusPublished, string(state.StatusDrifted):
	default:
		return &library.Error{Code: library.CodeInvalidRequest, Field: "status", Msg: fmt.Sprintf("%q is not draft, published or drifted", status)}
	}
	v := h.Served.Current()
	var keys []assembler.OverrideKey
	for k := range v.Rows.All() {
		keys = append(keys, k)
	}
	for k := range v.Drafts.All() {
		if _, ok := v.Rows.Get(k); !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b assembler.OverrideKey) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Locale, b.Locale))
	})
	out := make([]APIOverrideEntry, 0, len(keys))
	for _, k := range keys {
		head, _ := v.Head(k.ID, k.Locale)
		e := APIOverrideEntry{ID: head.ModuleID, Locale: head.Locale, Kind: overrideKind(v, head.ModuleID), Status: headStatus(head),
			Revision: head.Revision, PublishedRevision: head.PublishedRevision, Author: head.Author, UpdatedAt: head.UpdatedAt.UTC(),
			Drift: apiDrift(v, head)}
		e.Drifted = e.Drift != nil
		_, e.Broken = v.Broken.Get(k)
		if status == string(state.StatusDrifted) && !e.Drifted || status != "" && status != string(state.StatusDrifted) && e.Status != status {
			continue
		}
		out = append(out, e)
	}
	return WriteJSON(c, http.StatusOK, out)
}

// APIProfile is one entry of GET /api/v1/profiles: a profile as stored
// (the console's profile page has the same fields).
type APIProfile struct {
	ID              string    `json:"id"`
	Name            string    `json:"name"`
	Locale          string    `json:"locale"`
	Model           string    `json:"model"`
	TimeZone        string    `json:"timeZone"`
	PromptModules   []string  `json:"promptModules"`
	SystemPrompt    string    `json:"systemPrompt"`
	SkillDisclosure bool      `json:"skillDisclosure"`
	TokenBudget     int       `json:"tokenBudget"`
	SkillBudget     int       `json:"skillBudget"`
	UpdatedAt       time.Time `json:"updatedAt"`
}

// Profiles handles GET /api/v1/profiles: 200 with a JSON array of
// APIProfile, every profile sorted by id, from the served state, with an
// ETag (WriteCachedJSON).
func (h *API) Profiles(c echo.Context) error {
	ps := h.Served.Current().Profiles()
	out := make([]APIProfile, len(ps))
	for i, p := range ps {
		out[i] = APIProfile{ID: p.ID, Name: p.Name, Locale: p.Locale, Model: p.Model, TimeZone: p.TimeZone,
			PromptModules: append([]string{}, p.PromptModules...), SystemPrompt: p.SystemPrompt, SkillDisclosure: p.SkillDisclosure,
			TokenBudget: p.TokenBudget, SkillBudget: p.SkillBudget, UpdatedAt: p.UpdatedAt.UTC()}
	}
	return WriteCachedJSON(c, out)
}

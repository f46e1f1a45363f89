package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/views/profilepage"
)

// ProfileStore is what the profile pages read from the store.
type ProfileStore interface {
	ListProfiles(ctx context.Context) ([]store.Profile, error)
	GetProfile(ctx context.Context, id string) (store.Profile, error)
}

// Profiles serves the profile pages. Writes go through Service, which
// refreshes what assembly reads.
type Profiles struct {
	Store   ProfileStore
	Service *state.Profiles
	Served  *state.Served
}

// List renders GET /profiles.
func (h *Profiles) List(c echo.Context) error {
	ps, err := h.Store.ListProfiles(c.Request().Context())
	if err != nil {
		return err
	}
	m := profilepage.List{Flash: flashFor(c)}
	for _, p := range ps {
		m.Rows = append(m.Rows, profilepage.Row{
			ID: p.ID, Name: p.Name, Locale: p.Locale, Model: p.Model, TimeZone: p.TimeZone,
			Modules: len(p.PromptModules), SkillDisclosure: p.SkillDisclosure, TokenBudget: p.TokenBudget,
			Updated: p.UpdatedAt.UTC().Format(timeLayout),
		})
	}
	return Render(c, http.StatusOK, profilepage.ListPage(m))
}

// New renders GET /profiles/new.
func (h *Profiles) New(c echo.Context) error {
	f := profilepage.Form{New: true, Action: "/profiles", SkillDisclosure: true, TokenBudget: "0"}
	return Render(c, http.StatusOK, profilepage.FormPage(f))
}

// Create handles POST /profiles. Responds 422 with errors next to the
// fields, 409 when the id is taken, else redirects to the list.
func (h *Profiles) Create(c echo.Context) error {
	f := bindProfile(c, true)
	f.Action = "/profiles"
	p, ok := h.validate(&f)
	if !ok {
		return Render(c, http.StatusUnprocessableEntity, profilepage.FormPage(f))
	}
	if _, err := h.Service.Create(consoleContext(c), p); errors.Is(err, library.ErrConflict) {
		f.Errors = map[string]string{"id": fmt.Sprintf("a profile %q exists already", p.ID)}
		return Render(c, http.StatusConflict, profilepage.FormPage(f))
	} else if err != nil {
		return err
	}
	return h.written(c, fmt.Sprintf("Profile %s created.", p.ID))
}

// Edit renders GET /profiles/:id. Errors: ErrNotFound.
func (h *Profiles) Edit(c echo.Context) error {
	p, err := h.Store.GetProfile(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	f := profilepage.Form{
		Action:          "/profiles/" + p.ID,
		DeleteURL:       "/profiles/" + p.ID + "/delete",
		ID:              p.ID,
		Name:            p.Name,
		Locale:          p.Locale,
		Model:           p.Model,
		TimeZone:        p.TimeZone,
		PromptModules:   strings.Join(p.PromptModules, "\n"),
		SystemPrompt:    p.SystemPrompt,
		SkillDisclosure: p.SkillDisclosure,
		TokenBudget:     strconv.Itoa(p.TokenBudget),
	}
	return Render(c, http.StatusOK, profilepage.FormPage(f))
}

// Update handles POST /profiles/:id. Responds 422 with errors next to the
// fields, else redirects to the list. Errors: ErrNotFound.
func (h *Profiles) Update(c echo.Context) error {
	f := bindProfile(c, false)
	f.ID = c.Param("id")
	f.Action = "/profiles/" + f.ID
	f.DeleteURL = f.Action + "/delete"
	p, ok := h.validate(&f)
	if !ok {
		return Render(c, http.StatusUnprocessableEntity, profilepage.FormPage(f))
	}
	if _, err := h.Service.Update(consoleContext(c), p); err != nil {
		return err
	}
	return h.written(c, fmt.Sprintf("Profile %s saved.", p.ID))
}

// ConfirmDelete renders GET /profiles/:id/delete. Errors: ErrNotFound.
func (h *Profiles) ConfirmDelete(c echo.Context) error {
	p, err := h.Store.GetProfile(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return Render(c, http.StatusOK, profilepage.DeletePage(profilepage.Delete{ID: p.ID, Name: p.Name, Action: "/profiles/" + p.ID + "/delete"}))
}

// Delete handles POST /profiles/:id/delete. Errors: ErrNotFound.
func (h *Profiles) Delete(c echo.Context) error {
	id := c.Param("id")
	if err := h.Service.Delete(consoleContext(c), id); err != nil {
		return err
	}
	return h.written(c, fmt.Sprintf("Profile %s deleted.", id))
}

// written goes back to the list after a write.
func (h *Profiles) written(c echo.Context, msg string) error {
	setFlash(c, msg)
	return seeOther(c, "/profiles")
}

// bindProfile reads the form exactly as typed.
func bindProfile(c echo.Context, isNew bool) profilepage.Form {
	return profilepage.Form{
		New:             isNew,
		ID:              strings.TrimSpace(c.FormValue("id")),
		Name:            c.FormValue("name"),
		Locale:          c.FormValue("locale"),
		Model:           c.FormValue("model"),
		TimeZone:        c.FormValue("timeZone"),
		PromptModules:   c.FormValue("promptModules"),
		SystemPrompt:    c.FormValue("systemPrompt"),
		SkillDisclosure: c.FormValue("skillDisclosure") == "on",
		TokenBudget:     c.FormValue("tokenBudget"),
	}
}

// maxProfileID keeps profile ids readable in lists and URLs.
const maxProfileID = 64

// validate checks the form and returns the profile to store; on
// failure f.Errors names each bad field.
func (h *Profiles) validate(f *profilepage.Form) (store.Profile, bool) {
	errs := map[string]string{}
	p := store.Profile{
		ID:              f.ID,
		Name:            strings.TrimSpace(f.Name),
		Model:           strings.TrimSpace(f.Model),
		TimeZone:        strings.TrimSpace(f.TimeZone),
		SystemPrompt:    f.SystemPrompt,
		SkillDisclosure: f.SkillDisclosure,
		PromptModules:   []string{},
	}
	if !library.ValidName(p.ID) || len(p.ID) > maxProfileID {
		errs["id"] = fmt.Sprintf("required: up to %d lowercase letters, digits, dots, dashes or underscores", maxProfileID)
	}
	for field, val := range map[string]string{"name": f.Name, "locale": f.Locale, "model": f.Model, "timeZone": f.TimeZone, "promptModules": f.PromptModules, "systemPrompt": f.SystemPrompt} {
		switch {
		case !utf8.ValidString(val):
			errs[field] = "the text is not valid UTF-8"
		case strings.ContainsFunc(val, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f }):
			errs[field] = "the text contains a control character; use only tabs and line breaks"
		}
	}
	if loc := strings.TrimSpace(f.Locale); loc != "" {
		if canon, err := canonicalLocale(loc); err != nil {
			errs["locale"] = fmt.Sprintf("%q is not a BCP 47 locale tag such as en-US", loc)
		} else {
			p.Locale = canon
		}
	}
	if p.TimeZone != "" {
		if _, err := time.LoadLocation(p.TimeZone); err != nil || p.TimeZone == "Local" {
			errs["timeZone"] = fmt.Sprintf("%q is not an IANA time zone such as Asia/Shanghai", p.TimeZone)
		}
	}
	v := h.Served.Current()
	var unknown, twice []string
	for _, line := range strings.Split(f.PromptModules, "\n") {
		id := strings.TrimSpace(line)
		switch {
		case id == "":
		case slices.Contains(p.PromptModules, id):
			twice = append(twice, id)
		case !v.Exists(id):
			unknown = append(unknown, id)
		default:
			p.PromptModules = append(p.PromptModules, id)
		}
	}
	switch {
	case len(unknown) > 0:
		errs["promptModules"] = "no such module: " + strings.Join(unknown, ", ")
	case len(twice) > 0:
		errs["promptModules"] = "listed twice: " + strings.Join(twice, ", ")
	}
	if b := strings.TrimSpace(f.TokenBudget); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 0 {
			errs["tokenBudget"] = "a whole number of tokens, 0 or more"
		}
		p.TokenBudget = n
	}
	if len(errs) > 0 {
		f.Errors = errs
		return store.Profile{}, false
	}
	return p, true
}

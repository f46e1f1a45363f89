package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/profilepage"
)

// ProfileService is what the profile pages need (*state.Profiles): the
// profiles as stored, and the writes, each checked.
type ProfileService interface {
	List(ctx context.Context) ([]domain.Profile, error)
	Get(ctx context.Context, id string) (domain.Profile, error)
	Create(ctx context.Context, d state.ProfileDraft) (domain.Profile, error)
	Update(ctx context.Context, d state.ProfileDraft) (domain.Profile, error)
	Delete(ctx context.Context, id string) error
}

// Profiles serves the profile pages. Writes go through Service, which
// refreshes what assembly reads.
type Profiles struct {
	Service ProfileService
	Served  *state.Served
}

// List renders GET /profiles.
func (h *Profiles) List(c echo.Context) error {
	ps, err := h.Service.List(c.Request().Context())
	if err != nil {
		return err
	}
	m := profilepage.List{Flash: flashFor(c)}
	for _, p := range ps {
		m.Rows = append(m.Rows, profilepage.Row{
			ID: p.ID, Name: p.Name, Locale: p.Locale, Model: p.Model, TimeZone: p.TimeZone,
			Modules: len(p.PromptModules), SkillDisclosure: p.SkillDisclosure, TokenBudget: p.TokenBudget,
			SkillBudget: p.SkillBudget, Updated: p.UpdatedAt.UTC().Format(timeLayout),
		})
	}
	return Render(c, http.StatusOK, profilepage.ListPage(m))
}

// New renders GET /profiles/new.
func (h *Profiles) New(c echo.Context) error {
	f := profilepage.Form{New: true, Action: "/profiles", SkillDisclosure: true, TokenBudget: "0", SkillBudget: "0"}
	return Render(c, http.StatusOK, profilepage.FormPage(f))
}

// Create handles POST /profiles. Responds 422 with errors next to the
// fields, 409 when the id is taken, else redirects to the list.
func (h *Profiles) Create(c echo.Context) error {
	f := bindProfile(c, true)
	f.Action = "/profiles"
	p, err := h.Service.Create(consoleContext(c), draft(f))
	switch {
	case refused(&f, err):
		return Render(c, http.StatusUnprocessableEntity, profilepage.FormPage(f))
	case errors.Is(err, library.ErrConflict):
		f.Errors = map[string]string{"id": fmt.Sprintf("a profile %q exists already", f.ID)}
		return Render(c, http.StatusConflict, profilepage.FormPage(f))
	case err != nil:
		return err
	}
	return h.written(c, fmt.Sprintf("Profile %s created.", p.ID))
}

// Edit renders GET /profiles/:id. Errors: ErrNotFound.
func (h *Profiles) Edit(c echo.Context) error {
	p, err := h.Service.Get(c.Request().Context(), c.Param("id"))
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
		SkillBudget:     strconv.Itoa(p.SkillBudget),
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
	p, err := h.Service.Update(consoleContext(c), draft(f))
	if refused(&f, err) {
		return Render(c, http.StatusUnprocessableEntity, profilepage.FormPage(f))
	} else if err != nil {
		return err
	}
	return h.written(c, fmt.Sprintf("Profile %s saved.", p.ID))
}

// ConfirmDelete renders GET /profiles/:id/delete. Errors: ErrNotFound.
func (h *Profiles) ConfirmDelete(c echo.Context) error {
	p, err := h.Service.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return Render(c, http.StatusOK, profilepage.DeletePage(profilepage.Delete{ID: p.ID, Name: p.Name, Action: "/profiles/" + p.ID + "/delete"}))
}

// Delete handles POST /profiles/:id/delete. A profile deleted before
// goes back to the list saying so. Errors: ErrNotFound.
func (h *Profiles) Delete(c echo.Context) error {
	id := c.Param("id")
	err := h.Service.Delete(consoleContext(c), id)
	if again, err := goneAgain(c, err, "/profiles"); again {
		return err
	}
	if err != nil {
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
		SkillBudget:     c.FormValue("skillBudget"),
	}
}

// draft is the form as the profile service reads it.
func draft(f profilepage.Form) state.ProfileDraft {
	return state.ProfileDraft{ID: f.ID, Name: f.Name, Locale: f.Locale, Model: f.Model, TimeZone: f.TimeZone,
		PromptModules: f.PromptModules, SystemPrompt: f.SystemPrompt, SkillDisclosure: f.SkillDisclosure, TokenBudget: f.TokenBudget,
		SkillBudget: f.SkillBudget}
}

// refused puts the service's field errors next to the form's fields;
// ok is false for any other error.
func refused(f *profilepage.Form, err error) bool {
	var pe state.ProfileError
	if !errors.As(err, &pe) {
		return false
	}
	f.Errors = map[string]string{}
	for _, fe := range pe {
		f.Errors[fe.Field] = fe.Msg
	}
	return true
}

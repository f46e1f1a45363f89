package state

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// ProfileStore is what Profiles needs from the store.
type ProfileStore interface {
	CreateProfile(ctx context.Context, p domain.Profile) (domain.Profile, error)
	UpdateProfile(ctx context.Context, p domain.Profile) (domain.Profile, error)
	DeleteProfile(ctx context.Context, id string) error
	ProfileReader
}

// Profiles writes assembly profiles and refreshes Served after each
// write, since assembly reads profiles from the View. Every profile
// written goes through Check first.
type Profiles struct {
	Store  ProfileStore
	Served *Served
}

// ProfileDraft is a profile as an operator typed it, every field text.
type ProfileDraft struct {
	ID, Name, Locale, Model, TimeZone string
	// PromptModules holds module ids, one a line; blank lines are skipped.
	PromptModules   string
	SystemPrompt    string
	SkillDisclosure bool
	// TokenBudget is a whole number of tokens; "" is 0, no budget.
	TokenBudget string
	// SkillBudget is a whole number of tokens for the skills-available
	// segment; "" is 0, the server's default.
	SkillBudget string
}

// ProfileError lists every refused field of a ProfileDraft, by the
// draft's field names in camel case ("id", "promptModules", …); it
// matches library.ErrInvalid.
type ProfileError []FieldError

func (e ProfileError) Error() string { return fieldErrorText("profile", e) }

// Is makes a ProfileError match library.ErrInvalid.
func (e ProfileError) Is(target error) bool { return target == library.ErrInvalid }

// Limits of a profile's fields (the id's is library.NameProblem's).
const (
	MaxProfileName         = 200       // characters
	MaxProfileModel        = 100       // characters
	MaxProfileModules      = 100       // module ids
	MaxProfileSystemPrompt = 20_000    // characters
	MaxProfileTokenBudget  = 2_000_000 // tokens
	MaxProfileSkillBudget  = 2_000_000 // tokens
)

// Check validates d against the modules served now and returns the
// profile to store: text fields trimmed (the system prompt as typed),
// the locale canonical, the module ids in their order. Errors:
// ProfileError naming every bad field.
func (s *Profiles) Check(d ProfileDraft) (domain.Profile, error) {
	var errs ProfileError
	bad := func(field, msg string) { errs = append(errs, FieldError{field, msg}) }
	p := domain.Profile{
		ID:              strings.TrimSpace(d.ID),
		Name:            strings.TrimSpace(d.Name),
		Model:           strings.TrimSpace(d.Model),
		TimeZone:        strings.TrimSpace(d.TimeZone),
		SystemPrompt:    d.SystemPrompt,
		SkillDisclosure: d.SkillDisclosure,
		PromptModules:   []string{},
	}
	if msg := library.NameProblem(p.ID); msg != "" {
		bad("id", msg)
	}
	oneLine := func(field, val string, limit int) {
		if msg := lineProblem(val, limit); msg != "" {
			bad(field, msg)
		}
	}
	oneLine("name", p.Name, MaxProfileName)
	oneLine("model", p.Model, MaxProfileModel)
	if loc := strings.TrimSpace(d.Locale); loc != "" {
		if canon, err := library.CanonicalLocale(loc); err != nil {
			bad("locale", library.LocaleProblem(loc))
		} else {
			p.Locale = canon
		}
	}
	if p.TimeZone != "" {
		if _, err := assembler.LoadZone(p.TimeZone); err != nil {
			bad("timeZone", err.Error())
		}
	}
	s.checkModules(d.PromptModules, &p, bad)
	if msg := paragraphProblem(d.SystemPrompt, MaxProfileSystemPrompt); msg != "" {
		bad("systemPrompt", msg)
	}
	if b := strings.TrimSpace(d.TokenBudget); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 0 || n > MaxProfileTokenBudget {
			bad("tokenBudget", fmt.Sprintf("a whole number of tokens from 0 (no budget) to %d", MaxProfileTokenBudget))
		}
		p.TokenBudget = n
	}
	if b := strings.TrimSpace(d.SkillBudget); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 0 || n > MaxProfileSkillBudget {
			bad("skillBudget", fmt.Sprintf("a whole number of tokens from 0 (the server's default) to %d", MaxProfileSkillBudget))
		}
		p.SkillBudget = n
	}
	if len(errs) > 0 {
		return domain.Profile{}, errs
	}
	return p, nil
}

// checkModules reads the module ids of text into p: each must exist in
// what is served now, once, at most MaxProfileModules of them.
func (s *Profiles) checkModules(text string, p *domain.Profile, bad func(field, msg string)) {
	if !utf8.ValidString(text) {
		bad("promptModules", "the text is not valid UTF-8")
		return
	}
	lines := strings.FieldsFunc(text, func(r rune) bool { return r == '\n' })
	if n := len(lines); n > MaxProfileModules {
		bad("promptModules", fmt.Sprintf("at most %d modules (this list has %d lines)", MaxProfileModules, n))
		return
	}
	v := s.Served.Current()
	var unknown, twice []string
	for _, line := range lines {
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
		bad("promptModules", "no such module: "+strings.Join(unknown, ", "))
	case len(twice) > 0:
		bad("promptModules", "listed twice: "+strings.Join(twice, ", "))
	}
}

// Create checks d and stores it as a new profile. Errors: ProfileError;
// library.ErrConflict when the id is taken; the store's.
func (s *Profiles) Create(ctx context.Context, d ProfileDraft) (domain.Profile, error) {
	p, err := s.Check(d)
	if err != nil {
		return domain.Profile{}, err
	}
	saved, err := s.Store.CreateProfile(s.Served.own(ctx), p)
	if err != nil {
		return domain.Profile{}, err
	}
	s.Served.refresh(ctx, "profile created", profileKey(saved.ID))
	return saved, nil
}

// Update checks d and replaces the profile d.ID. Errors: ProfileError;
// library.ErrNotFound; the store's.
func (s *Profiles) Update(ctx context.Context, d ProfileDraft) (domain.Profile, error) {
	p, err := s.Check(d)
	if err != nil {
		return domain.Profile{}, err
	}
	saved, err := s.Store.UpdateProfile(s.Served.own(ctx), p)
	if err != nil {
		return domain.Profile{}, err
	}
	s.Served.refresh(ctx, "profile updated", profileKey(saved.ID))
	return saved, nil
}

// Delete removes a profile. Errors are the store's (library.ErrNotFound).
func (s *Profiles) Delete(ctx context.Context, id string) error {
	if err := s.Store.DeleteProfile(s.Served.own(ctx), id); err != nil {
		return err
	}
	s.Served.refresh(ctx, "profile deleted", profileKey(id))
	return nil
}

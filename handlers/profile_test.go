package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func profileForm(id string, modules ...string) url.Values {
	return url.Values{
		"id":              {id},
		"name":            {"Support desk"},
		"locale":          {"zh-cn"},
		"model":           {"gpt-4o"},
		"timeZone":        {"Asia/Shanghai"},
		"promptModules":   {strings.Join(modules, "\r\n")},
		"systemPrompt":    {"Answer in short paragraphs."},
		"skillDisclosure": {"on"},
		"tokenBudget":     {"6000"},
		"skillBudget":     {"3000"},
	}
}

func TestProfileCreateEditDelete(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ctx := context.Background()
	if r := a.get("/profiles").want(t, http.StatusOK); r.find("no-profiles").Length() != 1 {
		t.Error("empty list has no empty-state message")
	}
	a.get("/profiles/new").want(t, http.StatusOK)

	r := a.post("/profiles", profileForm("support", "base.identity", "", "  base.behavior  ", "style.learning")).want(t, http.StatusSeeOther)
	if loc := r.Header().Get("Location"); loc != "/profiles" {
		t.Errorf("redirect to %q", loc)
	}
	p, err := a.store.GetProfile(ctx, "support")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Support desk" || p.Locale != "zh-CN" || p.Model != "gpt-4o" || p.TimeZone != "Asia/Shanghai" ||
		!slices.Equal(p.PromptModules, []string{"base.identity", "base.behavior", "style.learning"}) ||
		p.SystemPrompt != "Answer in short paragraphs." || !p.SkillDisclosure || p.TokenBudget != 6000 || p.SkillBudget != 3000 {
		t.Errorf("stored %+v", p)
	}
	list := a.get("/profiles").want(t, http.StatusOK)
	if list.doc.Find(`[data-testid="profile-row"][data-id="support"]`).Length() != 1 {
		t.Error("the list does not show the profile")
	}
	if got := strings.TrimSpace(list.find("profile-skill-budget").Text()); got != "3000" {
		t.Errorf("the list shows the skill budget %q, want 3000", got)
	}

	edit := a.get("/profiles/support").want(t, http.StatusOK)
	if got := edit.textarea("promptModules"); got != "base.identity\nbase.behavior\nstyle.learning" {
		t.Errorf("edit form modules %q", got)
	}
	if got := edit.doc.Find(`input[name="skillBudget"]`).AttrOr("value", ""); got != "3000" {
		t.Errorf("edit form skill budget %q, want 3000", got)
	}
	form := profileForm("ignored", "base.identity")
	form.Del("skillDisclosure")
	form.Set("tokenBudget", "")
	form.Set("skillBudget", "")
	a.post("/profiles/support", form).want(t, http.StatusSeeOther)
	p, _ = a.store.GetProfile(ctx, "support")
	if p.SkillDisclosure || p.TokenBudget != 0 || p.SkillBudget != 0 || len(p.PromptModules) != 1 {
		t.Errorf("update stored %+v", p)
	}
	if got := strings.TrimSpace(a.get("/profiles").want(t, http.StatusOK).find("profile-skill-budget").Text()); got != "server default" {
		t.Errorf("the list shows the skill budget 0 as %q", got)
	}

	// The profile is used by the preview at once.
	prev := a.post("/preview", url.Values{"request": {`{"profile": "support", "message": "hi"}`}}).want(t, http.StatusOK)
	if got := prev.find("result-locale").Text(); got != "zh-CN" {
		t.Errorf("preview with the profile assembled %q, want its zh-CN", got)
	}
	if prev.doc.Find(`[data-testid="report-entry"][data-kind="profile-prompt"]`).Length() != 1 {
		t.Error("the profile's system prompt is not in the report")
	}

	a.post("/profiles", profileForm("support", "base.identity")).want(t, http.StatusConflict)
	a.get("/profiles/support/delete").want(t, http.StatusOK)
	a.post("/profiles/support/delete", nil).want(t, http.StatusSeeOther)
	a.get("/profiles/support").want(t, http.StatusNotFound)
	a.wantDeletedAgain(t, a.post("/profiles/support/delete", nil), "/profiles", "Profile support")
	a.post("/profiles/never-made/delete", nil).want(t, http.StatusNotFound)
	a.post("/profiles/support", profileForm("support")).want(t, http.StatusNotFound)
}

func TestProfileErrorsNextToTheField(t *testing.T) {
	t.Parallel()
	a := setup(t)
	cases := []struct {
		name, field, value, msg string
	}{
		{"bad id", "id", "Support Desk", "lowercase"},
		{"unknown module", "promptModules", "base.identity\nbase.nope\ntask.nothing", "base.nope, task.nothing"},
		{"module twice", "promptModules", "base.identity\nbase.identity", "listed twice: base.identity"},
		{"negative budget", "tokenBudget", "-1", "from 0 (no budget) to 2000000"},
		{"budget over the limit", "tokenBudget", "2000001", "from 0 (no budget) to 2000000"},
		{"name too long", "name", strings.Repeat("名", 201), "at most 200 characters (this one has 201)"},
		{"model too long", "model", strings.Repeat("m", 101), "at most 100 characters (this one has 101)"},
		{"too many modules", "promptModules", strings.Repeat("base.identity\n", 101), "at most 100 modules (this list has 101 lines)"},
		{"system prompt too long", "systemPrompt", strings.Repeat("x", 20_001), "at most 20000 characters (this one has 20001)"},
		{"id with a slash", "id", "desk/1", `'/' is not allowed`},
		{"word budget", "tokenBudget", "lots", "whole number"},
		{"negative skill budget", "skillBudget", "-5", "from 0 (the server's default) to 2000000"},
		{"skill budget over the limit", "skillBudget", "2000001", "from 0 (the server's default) to 2000000"},
		{"word skill budget", "skillBudget", "many", "whole number"},
		{"bad locale", "locale", "english please", "BCP 47"},
		{"bad zone", "timeZone", "Mars/Olympus", "IANA"},
		{"zone read as a file", "timeZone", "localtime", `"localtime" is not an IANA time zone`},
		{"zone's posix copy", "timeZone", "posix/Asia/Tokyo", "IANA"},
		{"id too long", "id", strings.Repeat("a", 65), "at most 64 characters (this one has 65)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			form := profileForm("desk", "base.identity")
			form.Set(c.field, c.value)
			r := a.post("/profiles", form).want(t, http.StatusUnprocessableEntity)
			errs := r.find("field-error")
			if errs.Length() != 1 || errs.AttrOr("data-field", "") != c.field {
				t.Fatalf("errors %q on %q, want one on %s", errs.Text(), errs.AttrOr("data-field", ""), c.field)
			}
			if !strings.Contains(errs.Text(), c.msg) {
				t.Errorf("message %q does not say %q", errs.Text(), c.msg)
			}
			// The error sits in the field's own block, and the form keeps what was typed.
			if errs.Parent().Find(`[name="`+c.field+`"]`).Length() != 1 {
				t.Errorf("the error is not next to the %s field", c.field)
			}
			got := r.doc.Find(`input[name="`+c.field+`"]`).AttrOr("value", r.textarea(c.field))
			if got != c.value {
				t.Errorf("field %s shows %q, want the typed %q", c.field, got, c.value)
			}
			if c.field != "name" && r.doc.Find(`input[name="name"]`).AttrOr("value", "") != "Support desk" {
				t.Error("the other fields were not kept")
			}
		})
	}
	form := profileForm("desk", "base.identity")
	form.Set("systemPrompt", "ok \xc3\x28")
	r := a.post("/profiles", form).want(t, http.StatusUnprocessableEntity)
	if errs := r.find("field-error"); errs.AttrOr("data-field", "") != "systemPrompt" || !strings.Contains(errs.Text(), "UTF-8") {
		t.Errorf("invalid UTF-8: error %q on %q, want systemPrompt naming UTF-8", errs.Text(), errs.AttrOr("data-field", ""))
	}
	form = profileForm("desk", "base.identity")
	form.Set("name", "nul \x00 name")
	r = a.post("/profiles", form).want(t, http.StatusUnprocessableEntity)
	if errs := r.find("field-error"); errs.AttrOr("data-field", "") != "name" || !strings.Contains(errs.Text(), "control character") {
		t.Errorf("NUL byte: error %q on %q, want name naming a control character", errs.Text(), errs.AttrOr("data-field", ""))
	}
	if ps, _ := a.store.ListProfiles(context.Background()); len(ps) != 0 {
		t.Errorf("%d profiles stored by failed saves", len(ps))
	}
}

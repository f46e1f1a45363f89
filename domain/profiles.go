package domain

import "time"

// Profile is a named assembly setup: locale, model, base modules, system
// prompt, skill disclosure, token budget and skill budget.
type Profile struct {
	ID            string // slug
	Name          string
	Locale        string
	Model         string
	TimeZone      string   // IANA name, e.g. "Asia/Shanghai"
	PromptModules []string // ordered module ids, style modules included; never nil when read
	// SystemPrompt is free text appended last.
	SystemPrompt    string
	SkillDisclosure bool
	TokenBudget     int // tokens; 0 means no budget
	// SkillBudget is the token budget of the skills-available segment;
	// 0 means the server's (serve --skill-budget).
	SkillBudget int
	UpdatedAt   time.Time
}

package domain

import "time"

// Profile is a named assembly setup: locale, model, base modules, system
// prompt, skill disclosure and token budget.
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
	UpdatedAt       time.Time
}

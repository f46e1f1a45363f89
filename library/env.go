package library

// EnvValue documents one environment placeholder. EnvOnly values may
// be used only in env-layer modules.
type EnvValue struct {
	Name        string
	Description string
	EnvOnly     bool
}

// Environment placeholder names.
const (
	EnvDate              = "date"
	EnvWeekday           = "weekday"
	EnvCurrentTime       = "current_time"
	EnvModel             = "model"
	EnvAttachments       = "attachments"
	EnvKnowledgeBases    = "knowledge_bases"
	EnvSelectedDocuments = "selected_documents"
	EnvSkills            = "skills"
	EnvWebSearchStatus   = "web_search_status"
)

// EnvValues lists every known environment placeholder with the
// description the console shows.
var EnvValues = []EnvValue{
	{EnvDate, "today's date, YYYY-MM-DD, in the request's time zone", true},
	{EnvWeekday, "today's weekday in the request's locale (labels weekday.*)", true},
	{EnvCurrentTime, "the current time, RFC 3339, in the request's time zone", true},
	{EnvModel, "the model name of the request", true},
	{EnvAttachments, "the attachment names, or the label attachments.none", true},
	{EnvKnowledgeBases, "one table per knowledge base: its recent documents or FAQ entries", false},
	{EnvSelectedDocuments, "the table of @-mentioned documents", false},
	{EnvSkills, "the skill metadata table: name, description, how it triggers", false},
	{EnvWebSearchStatus, "label web_search.enabled or web_search.disabled", false},
}

// LookupEnv returns the environment value called name.
func LookupEnv(name string) (EnvValue, bool) {
	for _, e := range EnvValues {
		if e.Name == name {
			return e, true
		}
	}
	return EnvValue{}, false
}

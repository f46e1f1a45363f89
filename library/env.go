package library

// EnvValue documents one environment placeholder (S4). EnvOnly values may
// be used only in env-layer modules.
type EnvValue struct {
	Name        string
	Description string
	EnvOnly     bool
}

// Environment placeholder names (S4).
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
// description the console shows (S4).
var EnvValues = []EnvValue{
	{EnvDate, "today's date, YYYY-MM-DD, in the request's time zone", true},
	{EnvWeekday, "today's weekday in the request's locale (labels weekday.*)", true},
	{EnvCurrentTime, "the current time, RFC 3339, in the request's time zone", true},
	{EnvModel, "the model name of the request", true},
	{EnvAttachments, "the attachment names, or the label attachments.none", true},
	{EnvKnowledgeBases, "one table per knowledge base (S5.1)", false},
	{EnvSelectedDocuments, "the table of @-mentioned documents (S5.2)", false},
	{EnvSkills, "the skill metadata table (S5.3)", false},
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

package assembler

import "time"

// Request is one assemble request, decoded from camelCase JSON.
// The console's preview form builds the same object.
type Request struct {
	// Profile is a profile id or "" for none.
	Profile string `json:"profile,omitempty"`
	// Locale is a BCP 47 tag; "" means the profile's locale, then the fallback.
	Locale  string `json:"locale,omitempty"`
	Message string `json:"message,omitempty"`
	// Command is an explicit slash command such as "/minutes".
	Command     string       `json:"command,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
	Model       string       `json:"model,omitempty"`
	WebSearch   bool         `json:"webSearch,omitempty"`
	// TimeZone is an IANA zone name; "" means the profile's, then the server's.
	TimeZone string `json:"timeZone,omitempty"`
	// Now, when set, replaces the clock (previews and tests).
	Now               *time.Time         `json:"now,omitempty"`
	KnowledgeBases    []KnowledgeBase    `json:"knowledgeBases,omitempty"`
	SelectedDocuments []SelectedDocument `json:"selectedDocuments,omitempty"`
	Skills            []Skill            `json:"skills,omitempty"`
	Variables         map[string]string  `json:"variables,omitempty"`
	// Format is the answer's form: "" or FormatText, or FormatMessages
	// to add Result.Messages.
	Format string `json:"format,omitempty"`
	// SystemMessages splits the messages of FormatMessages:
	// SystemMessagesOne (default, "") or SystemMessagesPerSegment.
	SystemMessages string `json:"systemMessages,omitempty"`
	// Revisions pins overrides to past revisions, to reproduce an old
	// answer: keyed "<module id>@<locale>" (Pins), valued a revision
	// number. Assemble does not read it: the caller builds the State
	// with the pinned revisions.
	Revisions map[string]int `json:"revisions,omitempty"`
}

// Attachment is a file the user attached: its name and MIME type.
type Attachment struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
}

// Knowledge-base types: documents or FAQ entries.
const (
	KnowledgeDocument = "document"
	KnowledgeFAQ      = "faq"
)

// KnowledgeBase is one knowledge base with its most recent documents
// (document bases) or entries (FAQ bases). DocCount is the base's total,
// which may exceed the rows given.
type KnowledgeBase struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Type        string     `json:"type"`
	Description string     `json:"description,omitempty"`
	DocCount    int        `json:"docCount"`
	RecentDocs  []Document `json:"recentDocs,omitempty"`
	FAQEntries  []FAQEntry `json:"faqEntries,omitempty"`
}

// Document is one row of a document base. FileSize is in bytes.
type Document struct {
	KnowledgeID string    `json:"knowledgeId"`
	Title       string    `json:"title,omitempty"`
	FileName    string    `json:"fileName,omitempty"`
	FileType    string    `json:"fileType,omitempty"`
	FileSize    int64     `json:"fileSize,omitempty"`
	CreatedAt   time.Time `json:"createdAt,omitzero"`
	Summary     string    `json:"summary,omitempty"`
}

// FAQEntry is one question of a FAQ base with its answers.
type FAQEntry struct {
	ChunkID     string    `json:"chunkId"`
	KnowledgeID string    `json:"knowledgeId,omitempty"`
	Question    string    `json:"question"`
	Answers     []string  `json:"answers,omitempty"`
	CreatedAt   time.Time `json:"createdAt,omitzero"`
}

// SelectedDocument is a document the user @-mentioned.
type SelectedDocument struct {
	KnowledgeID     string `json:"knowledgeId"`
	KnowledgeBaseID string `json:"knowledgeBaseId,omitempty"`
	Title           string `json:"title,omitempty"`
	FileName        string `json:"fileName,omitempty"`
	FileType        string `json:"fileType,omitempty"`
}

// Skill is skill metadata supplied by the runtime, listed in the skill table.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

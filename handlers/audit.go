package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state/ledger"
	"github.com/promptdesk/promptdesk/views/auditpage"
	"github.com/promptdesk/promptdesk/views/components"
)

// AuditLog is the audit log as the page reads it (*state.Audit): who may
// see which subjects, and the entries.
type AuditLog interface {
	Visible(role string) (subjects, actions []string)
	List(ctx context.Context, role string, f domain.AuditFilter) ([]domain.AuditEntry, error)
}

// Audit serves the audit log page.
type Audit struct {
	Log AuditLog
}

// auditPageSize is how many entries one page shows.
const auditPageSize = 50

// auditTimeLayout shows the seconds: several changes often share a minute.
const auditTimeLayout = "2006-01-02 15:04:05 MST"

// Text folding: a before/after text longer than foldLines lines shows its
// first foldHead lines, the rest on request.
const (
	foldLines = 30
	foldHead  = 20
)

// List renders GET /audit: entries newest first, filtered by the query
// parameters actor, action, subject and subject_id (exact values), one
// page of auditPageSize at a time; before=ID shows the entries older than
// ID. Errors: ErrInvalid for an unknown subject or a malformed before.
func (h *Audit) List(c echo.Context) error {
	f := auditpage.Filter{
		Actor:     strings.TrimSpace(c.QueryParam("actor")),
		Action:    strings.TrimSpace(c.QueryParam("action")),
		Subject:   strings.TrimSpace(c.QueryParam("subject")),
		SubjectID: strings.TrimSpace(c.QueryParam("subject_id")),
	}
	var before int64
	if s := strings.TrimSpace(c.QueryParam("before")); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("before must be an entry id (a positive whole number), got %q: %w", s, library.ErrInvalid)
		}
		before = n
	}

	// One more than a page tells whether an older page exists.
	u, _ := CurrentUser(c)
	entries, err := h.Log.List(c.Request().Context(), u.Role, domain.AuditFilter{
		Actor: f.Actor, Action: f.Action, Subject: f.Subject, SubjectID: f.SubjectID,
		Limit: auditPageSize + 1, BeforeID: before,
	})
	if err != nil {
		return err
	}
	subjects, actions := h.Log.Visible(u.Role)
	m := auditpage.Model{Filter: f, Actions: actions, Subjects: subjects}
	if len(entries) > auditPageSize {
		entries = entries[:auditPageSize]
		m.OlderURL = auditURL(f, entries[len(entries)-1].ID)
	}
	if before > 0 {
		m.NewestURL = auditURL(f, 0)
	}
	for _, e := range entries {
		m.Rows = append(m.Rows, auditRow(e))
	}
	return Render(c, http.StatusOK, auditpage.Page(m))
}

// auditURL is the audit page with filter f, before entry id before (0:
// the newest page).
func auditURL(f auditpage.Filter, before int64) string {
	q := url.Values{}
	for _, p := range [][2]string{{"actor", f.Actor}, {"action", f.Action}, {"subject", f.Subject}, {"subject_id", f.SubjectID}} {
		if p[1] != "" {
			q.Set(p[0], p[1])
		}
	}
	if before > 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	if len(q) == 0 {
		return "/audit"
	}
	return "/audit?" + q.Encode()
}

func auditRow(e domain.AuditEntry) auditpage.Row {
	r := auditpage.Row{
		ID:        e.ID,
		At:        e.At.UTC().Format(auditTimeLayout),
		AtISO:     e.At.UTC().Format(time.RFC3339),
		Actor:     e.Actor,
		Action:    e.Action,
		Subject:   e.Subject,
		SubjectID: e.SubjectID,
		Locale:    e.Locale,
		Revision:  e.Revision,
		Note:      e.Note,
	}
	before, after := e.Before, e.After
	if e.Subject != domain.SubjectOverride {
		before, after = auditJSON(before), auditJSON(after)
	}
	r.Change, r.Before, r.After = changeSummary(before, after), foldText(before), foldText(after)
	switch e.Subject {
	case domain.SubjectOverride:
		r.SubjectURL = "/modules/" + url.PathEscape(e.SubjectID)
	case domain.SubjectProfile:
		r.SubjectURL = "/profiles/" + url.PathEscape(e.SubjectID)
	case domain.SubjectScenario:
		r.SubjectURL = "/scenarios/" + url.PathEscape(e.SubjectID)
	case domain.SubjectWebhook:
		r.SubjectURL = "/webhooks"
	case domain.SubjectLedger:
		// A decision's id is "<catalogue>/<entry>", a sync's the catalogue.
		r.SubjectURL = "/ledger?" + ledgerQuery(e.SubjectID, ledger.Filter{}, 1)
		if catalogue, name, ok := strings.Cut(e.SubjectID, "/"); ok {
			r.SubjectURL = ledgerEntryURL(catalogue, name)
		}
	}
	return r
}

// auditJSON shows a profile or scenario, stored as one line of JSON, one
// field per line (indentJSON); anything else stays as it is.
func auditJSON(s string) string {
	if s == "" || !json.Valid([]byte(s)) {
		return s
	}
	return indentJSON(json.RawMessage(s)) + "\n"
}

// lineCount is the number of lines of s; 0 for "".
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// changeSummary says in a few words how before became after.
func changeSummary(before, after string) string {
	switch {
	case before == "" && after == "":
		return "no text"
	case before == "":
		return "new text, " + components.Count("count.lines", lineCount(after))
	case after == "":
		return "text removed, " + components.Count("count.lines", lineCount(before))
	case before == after:
		return "text unchanged, " + components.Count("count.lines", lineCount(after))
	}
	return fmt.Sprintf("%d → %s", lineCount(before), components.Count("count.lines", lineCount(after)))
}

// foldText splits a long text after foldHead lines.
func foldText(s string) auditpage.Text {
	if s == "" {
		return auditpage.Text{Empty: true}
	}
	n := lineCount(s)
	if n <= foldLines {
		return auditpage.Text{Head: s}
	}
	i := 0
	for range foldHead {
		i += strings.IndexByte(s[i:], '\n') + 1
	}
	return auditpage.Text{Head: s[:i], Rest: s[i:], RestLines: n - foldHead}
}

package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
)

// fakeAuditLog is an AuditLog holding entries in memory; it records the
// role and filter of the last List.
type fakeAuditLog struct {
	entries []domain.AuditEntry
	role    string
	filter  domain.AuditFilter
}

func (f *fakeAuditLog) Visible(role string) (subjects, actions []string) {
	return []string{domain.SubjectOverride}, []string{domain.ActionSave}
}

func (f *fakeAuditLog) List(_ context.Context, role string, filter domain.AuditFilter) ([]domain.AuditEntry, error) {
	f.role, f.filter = role, filter
	return f.entries[:min(len(f.entries), filter.Limit)], nil
}

// TestAuditPageFake drives the audit page with a fake log, no database:
// the page asks for one entry more than it shows, passes the user's role
// and the query's filter, and links the older page from its last row.
func TestAuditPageFake(t *testing.T) {
	log := &fakeAuditLog{}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := range auditPageSize + 5 {
		id := int64(1000 - i)
		log.entries = append(log.entries, domain.AuditEntry{ID: id, At: at, Actor: "alice", Action: domain.ActionSave,
			Subject: domain.SubjectOverride, SubjectID: fmt.Sprintf("task.m%d", i), Locale: "en-US", Revision: 2, Before: "a", After: "b"})
	}
	h := &Audit{Log: log}
	e := echo.New()
	req := httptest.NewRequest(http.MethodGet, "/audit?actor=alice&subject=override", nil)
	rec := httptest.NewRecorder()
	c := e.NewContext(req, rec)
	c.Set(userCtxKey, domain.User{Name: "vic", Role: domain.RoleViewer})
	if err := h.List(c); err != nil {
		t.Fatal(err)
	}
	if log.role != domain.RoleViewer || log.filter.Actor != "alice" || log.filter.Subject != domain.SubjectOverride || log.filter.Limit != auditPageSize+1 {
		t.Errorf("List got role %q, filter %+v", log.role, log.filter)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatal(err)
	}
	if n := doc.Find(`[data-testid="audit-row"]`).Length(); rec.Code != http.StatusOK || n != auditPageSize {
		t.Errorf("status %d, %d rows, want 200 and %d", rec.Code, n, auditPageSize)
	}
	last := log.entries[auditPageSize-1].ID
	if href, _ := doc.Find(`[data-testid="audit-older"]`).Attr("href"); href != fmt.Sprintf("/audit?actor=alice&before=%d&subject=override", last) {
		t.Errorf("older link %q, want the page before entry %d", href, last)
	}
}

package state

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// OverrideHistory is what Overrides reads of an override's past.
type OverrideHistory interface {
	ListRevisions(ctx context.Context, moduleID, locale string) ([]domain.Revision, error)
}

// Head returns the stored head of the override of id in locale: its
// newest revision, a draft or the published one, with PublishedRevision
// and Draft set. Errors: library.ErrNotFound when there is none (never
// saved, or removed); the store's.
func (s *Overrides) Head(ctx context.Context, id, locale string) (domain.Override, error) {
	return s.Store.GetOverride(ctx, id, locale)
}

// Revisions returns every revision of the override of id in locale,
// newest first; none (no error) when there never was one.
// Errors: the store's.
func (s *Overrides) Revisions(ctx context.Context, id, locale string) ([]domain.Revision, error) {
	return s.Store.ListRevisions(ctx, id, locale)
}

// GetRevision returns revision n of the override of id in locale, so
// that Overrides is the RevisionSource of pinned assembly too. Errors:
// library.ErrNotFound when there is no such revision; the store's.
func (s *Overrides) GetRevision(ctx context.Context, id, locale string, n int) (domain.Revision, error) {
	return s.Store.GetRevision(ctx, id, locale, n)
}

// ProfileReader is what Profiles reads from the store.
type ProfileReader interface {
	ListProfiles(ctx context.Context) ([]domain.Profile, error)
	GetProfile(ctx context.Context, id string) (domain.Profile, error)
}

// List returns every stored profile by id. Errors: the store's.
func (s *Profiles) List(ctx context.Context) ([]domain.Profile, error) {
	return s.Store.ListProfiles(ctx)
}

// Get returns the profile id as stored. Errors: library.ErrNotFound when
// there is none; the store's.
func (s *Profiles) Get(ctx context.Context, id string) (domain.Profile, error) {
	return s.Store.GetProfile(ctx, id)
}

// AuditStore is what Audit reads from the store.
type AuditStore interface {
	ListAudit(ctx context.Context, f domain.AuditFilter) ([]domain.AuditEntry, error)
}

// Audit reads the audit log with the rule of who sees what: every role
// sees the entries of content (overrides, profiles, scenarios, the
// porting ledger); user,
// token and webhook entries (logins, failed logins with addresses, token
// use, webhook endpoints) are for admins only.
type Audit struct {
	Store AuditStore
}

// The audit subjects, and those every role sees.
var (
	auditSubjects   = []string{domain.SubjectOverride, domain.SubjectProfile, domain.SubjectScenario, domain.SubjectLedger, domain.SubjectToken, domain.SubjectUser, domain.SubjectWebhook}
	contentSubjects = []string{domain.SubjectOverride, domain.SubjectProfile, domain.SubjectScenario, domain.SubjectLedger}
)

// The actions of content changes and of security events, offered as
// filter values (the filter takes any); only admins see the latter.
var (
	contentActions = []string{domain.ActionCreate, domain.ActionSave, domain.ActionUpdate, domain.ActionRestore, domain.ActionRebase,
		domain.ActionKeepMine, domain.ActionTakeBuiltin, domain.ActionImport, domain.ActionDelete, domain.ActionPublish, domain.ActionDiscard, domain.ActionAccept,
		domain.ActionDecide, domain.ActionSync}
	securityActions = []string{domain.ActionRevoke, domain.ActionUse,
		domain.ActionLogin, domain.ActionLoginFailed, domain.ActionRole, domain.ActionDisable, domain.ActionEnable, domain.ActionPassword}
)

// Visible returns the audit subjects a user with role may read and the
// actions to offer as filter values, in display order.
func (a *Audit) Visible(role string) (subjects, actions []string) {
	if domain.RoleAtLeast(role, domain.RoleAdmin) {
		return auditSubjects, slices.Concat(contentActions, securityActions)
	}
	return contentSubjects, contentActions
}

// List returns the entries f selects that a user with role may read,
// newest first (f.Subjects is set from role). Errors: library.ErrForbidden
// when f.Subject is one only admins read; library.ErrInvalid naming the
// subject field when it is not a subject at all; the store's.
func (a *Audit) List(ctx context.Context, role string, f domain.AuditFilter) ([]domain.AuditEntry, error) {
	subjects, _ := a.Visible(role)
	if f.Subject != "" && !slices.Contains(subjects, f.Subject) {
		if slices.Contains(auditSubjects, f.Subject) {
			return nil, fmt.Errorf("only admins see %s entries of the audit log: %w", f.Subject, library.ErrForbidden)
		}
		return nil, fmt.Errorf("unknown subject %q (allowed: %s): %w", f.Subject, strings.Join(subjects, ", "), library.ErrInvalid)
	}
	f.Subjects = nil
	if len(subjects) < len(auditSubjects) {
		f.Subjects = subjects
	}
	return a.Store.ListAudit(ctx, f)
}

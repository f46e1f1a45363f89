package store_test

import (
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	ctx := domain.WithActor(t.Context(), "alice")

	tok, secret, err := s.CreateToken(ctx, "runtime", []string{"read", "assemble", "read"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(secret, "pd_"))
	if !strings.HasPrefix(secret, "pd_") || err != nil || len(raw) != 32 {
		t.Fatalf("secret %q: want pd_ and 32 bytes of base64url (%v)", secret, err)
	}
	if tok.Name != "runtime" || !slices.Equal(tok.Scopes, []string{"assemble", "read"}) || tok.Prefix != secret[:8] || tok.LastUsedAt != nil || tok.RevokedAt != nil {
		t.Errorf("created %+v", tok)
	}
	// Only the hash is stored.
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var hash string
	if err := conn.QueryRow(t.Context(), `SELECT hash FROM api_tokens WHERE name = 'runtime'`).Scan(&hash); err != nil || hash != domain.HashToken(secret) || strings.Contains(hash, secret[3:]) {
		t.Errorf("stored hash %q (%v), want sha256 of the secret", hash, err)
	}

	got, err := s.Authenticate(t.Context(), secret, "GET", "/api/v1/modules")
	if err != nil || got.Name != "runtime" || got.LastUsedAt == nil {
		t.Fatalf("Authenticate: %+v %v", got, err)
	}
	first := *got.LastUsedAt
	// Used again within the minute: last_used_at is not rewritten.
	again, err := s.Authenticate(t.Context(), secret, "GET", "/api/v1/modules")
	if err != nil || again.LastUsedAt == nil || !again.LastUsedAt.Equal(first) {
		t.Errorf("second use: %+v %v, want last used still %s", again, err, first)
	}
	// An hour ago: the next use records the time again.
	if _, err := conn.Exec(t.Context(), `UPDATE api_tokens SET last_used_at = now() - interval '1 hour'`); err != nil {
		t.Fatal(err)
	}
	if later, err := s.Authenticate(t.Context(), secret, "GET", "/api/v1/modules"); err != nil || later.LastUsedAt == nil || !later.LastUsedAt.After(first.Add(-30*60e9)) {
		t.Errorf("use after an hour: %+v %v, want last used now", later, err)
	}

	for _, bad := range []string{"", "pd_", secret + "x", "Bearer " + secret, strings.ToUpper(secret)} {
		if _, err := s.Authenticate(t.Context(), bad, "GET", "/api/v1/modules"); !errors.Is(err, library.ErrNotFound) {
			t.Errorf("Authenticate(%q): %v, want not found", bad, err)
		}
	}
	if _, _, err := s.CreateToken(ctx, "runtime", []string{"read"}); !errors.Is(err, library.ErrConflict) {
		t.Errorf("duplicate name: %v, want conflict", err)
	}
	for _, scopes := range [][]string{nil, {"root"}, {"read", "all"}} {
		if _, _, err := s.CreateToken(ctx, "other", scopes); !errors.Is(err, library.ErrInvalid) {
			t.Errorf("scopes %v: %v, want invalid", scopes, err)
		}
	}
	for name, want := range map[string]string{" ": "required", "My Runtime": `begins with 'M'`, "ci/reader": `'/' is not allowed`, strings.Repeat("t", 65): "at most 64 characters"} {
		if _, _, err := s.CreateToken(ctx, name, []string{"read"}); !errors.Is(err, library.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("name %q: %v, want invalid saying %s", name, err, want)
		}
	}
	_, writer, err := s.CreateToken(ctx, "writer", []string{"write"})
	if err != nil {
		t.Fatal(err)
	}

	if _, err := s.RevokeToken(domain.WithActor(t.Context(), "bob"), "runtime"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(t.Context(), secret, "GET", "/api/v1/modules"); !errors.Is(err, domain.ErrTokenRevoked) || !errors.Is(err, library.ErrNotFound) {
		t.Errorf("revoked: %v, want ErrTokenRevoked", err)
	}
	if _, err := s.Authenticate(t.Context(), writer, "GET", "/api/v1/modules"); err != nil {
		t.Errorf("the other token after a revoke: %v", err)
	}
	if _, err := s.RevokeToken(ctx, "runtime"); !errors.Is(err, library.ErrConflict) {
		t.Errorf("revoke twice: %v, want conflict", err)
	}
	if _, err := s.RevokeToken(ctx, "nobody"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("revoke unknown: %v, want not found", err)
	}

	list, err := s.ListTokens(t.Context())
	if err != nil || len(list) != 2 || list[0].Name != "runtime" || list[0].RevokedAt == nil || list[1].Name != "writer" || list[1].RevokedAt != nil {
		t.Errorf("list %+v %v", list, err)
	}

	audit, err := s.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectToken})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, e := range audit {
		if e.Action == domain.ActionUse { // TestTokenUseIsAudited
			continue
		}
		rows = append(rows, e.Actor+" "+e.Action+" "+e.SubjectID)
		if strings.Contains(e.Before+e.After, secret) || strings.Contains(e.Before+e.After, writer) {
			t.Errorf("audit row %d holds a secret", e.ID)
		}
	}
	if want := "bob revoke runtime,alice create writer,alice create runtime"; strings.Join(rows, ",") != want {
		t.Errorf("audit %q, want %q", rows, want)
	}
}

// A token's use writes one audit row (actor token:<name>, After the
// method and path) with its last_used_at; a second use within the minute
// writes none; after a minute the next use writes another.
func TestTokenUseIsAudited(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	_, secret, err := s.CreateToken(domain.WithActor(t.Context(), "alice"), "runtime", []string{"read"})
	if err != nil {
		t.Fatal(err)
	}
	uses := func() []domain.AuditEntry {
		t.Helper()
		list, err := s.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectToken, Action: domain.ActionUse})
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	if _, err := s.Authenticate(t.Context(), secret, "GET", "/api/v1/modules"); err != nil {
		t.Fatal(err)
	}
	got := uses()
	if len(got) != 1 || got[0].Actor != "token:runtime" || got[0].SubjectID != "runtime" || got[0].After != `{"method":"GET","path":"/api/v1/modules"}` {
		t.Fatalf("after the first use: %+v, want one use row", got)
	}
	if _, err := s.Authenticate(t.Context(), secret, "POST", "/api/v1/assemble"); err != nil {
		t.Fatal(err)
	}
	if got := uses(); len(got) != 1 {
		t.Errorf("a second use within the minute wrote %d rows, want none", len(got)-1)
	}
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), `UPDATE api_tokens SET last_used_at = now() - interval '2 minutes'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(t.Context(), secret, "POST", "/api/v1/assemble"); err != nil {
		t.Fatal(err)
	}
	if got := uses(); len(got) != 2 || got[0].After != `{"method":"POST","path":"/api/v1/assemble"}` {
		t.Errorf("a use after a minute: %+v, want a second row", got)
	}
}

package store_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// withPoolSize sets pgxpool's connection limit in a connection string of
// either form.
func withPoolSize(dbURL string, n int) string {
	if !strings.Contains(dbURL, "://") {
		return fmt.Sprintf("%s pool_max_conns=%d", dbURL, n)
	}
	sep := "?"
	if strings.Contains(dbURL, "?") {
		sep = "&"
	}
	return fmt.Sprintf("%s%spool_max_conns=%d", dbURL, sep, n)
}

// No lost updates: 50 editors each land 20 saves on one
// override, re-reading and retrying whenever they are refused. Every
// refusal is ErrConflict naming the current revision, nothing else fails,
// and the history is exactly revisions 1..1001 with every save's text,
// each with its audit row under the right actor.
func TestThousandConcurrentSaves(t *testing.T) {
	t.Parallel()
	const (
		editors = 50
		each    = 20
	)
	dbURL := storetest.NewDatabase(t)
	// One connection per editor, so that their transactions really race.
	s, err := store.Open(t.Context(), withPoolSize(dbURL, editors))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	if _, err := s.SaveOverride(domain.WithActor(ctx, "creator"), override("identity", "en-US", "base"), 0); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	var conflicts, failures atomic.Int64
	var wg sync.WaitGroup
	for e := range editors {
		wg.Go(func() {
			actor := fmt.Sprintf("editor-%02d", e)
			ctx := domain.WithActor(ctx, actor)
			for i := 0; i < each; {
				cur, err := s.GetOverride(ctx, "identity", "en-US")
				if err != nil {
					failures.Add(1)
					t.Errorf("%s: read: %v", actor, err)
					return
				}
				_, err = s.SaveOverride(ctx, override("identity", "en-US", fmt.Sprintf("%s save %d", actor, i)), cur.Revision)
				switch {
				case err == nil:
					i++
				case errors.Is(err, library.ErrConflict) && strings.Contains(err.Error(), "is at revision "):
					conflicts.Add(1)
				default:
					failures.Add(1)
					t.Errorf("%s: save on revision %d: %v", actor, cur.Revision, err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d saves from %d goroutines in %v: %d refused with a conflict and retried, %d other errors",
		editors*each, editors, elapsed.Round(time.Millisecond), conflicts.Load(), failures.Load())
	if failures.Load() > 0 {
		t.FailNow()
	}

	revs, err := s.ListRevisions(ctx, "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	const total = editors*each + 1
	if len(revs) != total {
		t.Fatalf("%d revisions, want %d", len(revs), total)
	}
	texts := map[string]bool{}
	for i, r := range revs {
		if want := total - i; r.Revision != want {
			t.Fatalf("revision #%d from the newest is %d, want %d: not gap-free", i, r.Revision, want)
		}
		if r.Revision > 1 && (r.Action != domain.ActionSave || !strings.HasPrefix(r.Text, r.Author+" save ")) {
			t.Errorf("revision %d: %s by %s of %q", r.Revision, r.Action, r.Author, r.Text)
		}
		texts[r.Text] = true
	}
	for e := range editors {
		for i := range each {
			if text := fmt.Sprintf("editor-%02d save %d", e, i); !texts[text] {
				t.Errorf("the save %q was lost", text)
			}
		}
	}
	head, err := s.GetOverride(ctx, "identity", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	if head.Revision != total || head.Text != revs[0].Text {
		t.Errorf("head at revision %d %q, want %d %q", head.Revision, head.Text, total, revs[0].Text)
	}

	// One audit row per save, under its editor, with the text it replaced.
	entries, err := s.ListAudit(ctx, domain.AuditFilter{Subject: domain.SubjectOverride, Limit: domain.MaxAuditLimit})
	if err != nil {
		t.Fatal(err)
	}
	older, err := s.ListAudit(ctx, domain.AuditFilter{Subject: domain.SubjectOverride, BeforeID: entries[len(entries)-1].ID})
	if err != nil {
		t.Fatal(err)
	}
	entries = append(entries, older...)
	if len(entries) != total {
		t.Fatalf("%d audit rows, want %d", len(entries), total)
	}
	perActor := map[string]int{}
	for i, e := range entries {
		r := revs[i] // both newest first
		if e.Revision != r.Revision || e.Actor != r.Author || e.After != r.Text {
			t.Errorf("audit row %d: revision %d by %s, after %q; want revision %d by %s, after %q",
				i, e.Revision, e.Actor, e.After, r.Revision, r.Author, r.Text)
		}
		if i+1 < len(revs) && e.Before != revs[i+1].Text {
			t.Errorf("audit row of revision %d: before %q, want %q", e.Revision, e.Before, revs[i+1].Text)
		}
		perActor[e.Actor]++
	}
	for e := range editors {
		if n := perActor[fmt.Sprintf("editor-%02d", e)]; n != each {
			t.Errorf("editor-%02d has %d audit rows, want %d", e, n, each)
		}
	}
	if perActor["creator"] != 1 {
		t.Errorf("creator has %d audit rows, want 1", perActor["creator"])
	}
}

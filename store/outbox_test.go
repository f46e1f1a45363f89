package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
)

// outboxRow is one stored event with the endpoints of its deliveries.
type outboxRow struct {
	key       string
	event     domain.WebhookEvent
	endpoints []int64
}

// outbox reads every stored event, oldest first, with its deliveries.
func outbox(t *testing.T, dbURL string) []outboxRow {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), `SELECT e.key, e.body,
			coalesce((SELECT array_agg(d.webhook_id ORDER BY d.webhook_id) FROM webhook_deliveries d WHERE d.event_id = e.id), '{}')
		FROM webhook_events e ORDER BY e.id`)
	if err != nil {
		t.Fatal(err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (outboxRow, error) {
		var o outboxRow
		var body string
		if err := r.Scan(&o.key, &body, &o.endpoints); err != nil {
			return o, err
		}
		return o, json.Unmarshal([]byte(body), &o.event)
	})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// endpoints adds n webhook endpoints and returns their ids.
func endpoints(t *testing.T, s *store.Store, n int) []int64 {
	t.Helper()
	var ids []int64
	for i := range n {
		w, err := s.CreateWebhook(domain.WithActor(t.Context(), "admin"), domain.Webhook{
			URL: fmt.Sprintf("https://receiver%d.example.com/hook", i), Secret: "0123456789abcdef"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.ID)
	}
	return ids
}

// Every change that alters what an override serves writes its event, with
// one delivery per endpoint, in its own transaction; a draft, a discard
// and a publish of what is published already write none.
func TestOverrideChangesWriteTheirEvents(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	ids := endpoints(t, s, 2)
	ctx := domain.WithActor(t.Context(), "ada")

	if _, err := s.SaveOverride(ctx, override("identity", "zh-CN", "one"), 0); err != nil { // revision 1, a draft
		t.Fatal(err)
	}
	if _, err := s.Publish(ctx, "identity", "zh-CN", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Publish(ctx, "identity", "zh-CN", 1); err != nil { // published already: nothing
		t.Fatal(err)
	}
	if _, err := s.SaveOverride(ctx, override("identity", "zh-CN", "two"), 1); err != nil { // 2, a draft
		t.Fatal(err)
	}
	if _, _, err := s.Discard(ctx, "identity", "zh-CN", 2); err != nil { // 3, serves "one" again
		t.Fatal(err)
	}
	if _, err := s.KeepMine(ctx, "identity", "zh-CN", 3, 4, "builtin v4", ""); err != nil { // 4
		t.Fatal(err)
	}
	if err := s.DeleteOverride(ctx, "identity", "zh-CN", 4); err != nil { // 5
		t.Fatal(err)
	}
	if _, err := s.RestoreRevision(ctx, "identity", "zh-CN", 1, 5); err != nil { // 6
		t.Fatal(err)
	}
	if _, err := s.Publish(ctx, "identity", "zh-CN", 6); err != nil {
		t.Fatal(err)
	}
	if err := s.TakeBuiltin(ctx, "identity", "zh-CN", 6); err != nil { // 7
		t.Fatal(err)
	}

	var got []string
	for _, o := range outbox(t, dbURL) {
		e := o.event
		if e.IdempotencyKey != o.key || e.Module != "identity" || e.Locale != "zh-CN" || e.Actor != "ada" ||
			time.Since(e.OccurredAt) > time.Minute || !slices.Equal(o.endpoints, ids) {
			t.Errorf("event %s: %+v with deliveries to %v; want module identity (zh-CN) by ada, now, to %v", o.key, e, o.endpoints, ids)
		}
		got = append(got, fmt.Sprintf("%s %s %d", o.key, e.Action, e.Revision))
	}
	want := []string{
		"override.published:identity:zh-cn:1 publish 1",
		"override.published:identity:zh-cn:4 keep-mine 4",
		"override.deleted:identity:zh-cn:5 delete 5",
		"override.restored:identity:zh-cn:6 restore 6",
		"override.published:identity:zh-cn:6 publish 6",
		"override.deleted:identity:zh-cn:7 take-builtin 7",
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// failEvents makes every insert into webhook_events raise, as a full disk
// or any other failure of the event's statement would.
func failEvents(t *testing.T, dbURL string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), `CREATE FUNCTION fail_event() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'the event cannot be written'; END $$;
		CREATE TRIGGER fail_event BEFORE INSERT ON webhook_events FOR EACH ROW EXECUTE FUNCTION fail_event();`)
	if err != nil {
		t.Fatal(err)
	}
}

// A change whose event cannot be written does not commit: the publish
// (and the delete) is an error and nothing of it is stored, neither the
// change, its audit entry nor its event.
func TestChangeWithoutItsEventDoesNotCommit(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	endpoints(t, s, 1)
	ctx := domain.WithActor(t.Context(), "ada")
	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "draft"), 0); err != nil {
		t.Fatal(err)
	}
	failEvents(t, dbURL)

	if _, err := s.SaveOverride(ctx, override("identity", "en-US", "draft two"), 1); err != nil {
		t.Fatalf("a draft, which has no event: %v", err)
	}
	if _, err := s.Publish(ctx, "identity", "en-US", 2); err == nil || !strings.Contains(err.Error(), "the event cannot be written") {
		t.Fatalf("publish with its event failing: %v, want the trigger's error", err)
	}
	if err := s.DeleteOverride(ctx, "identity", "en-US", 2); err == nil {
		t.Fatal("delete with its event failing: no error")
	}
	head, err := s.GetOverride(t.Context(), "identity", "en-US")
	if err != nil || head.Revision != 2 || head.PublishedRevision != 0 || head.Text != "draft two" {
		t.Errorf("head %+v, %v; want the draft at revision 2, nothing published", head, err)
	}
	audit, err := s.ListAudit(t.Context(), domain.AuditFilter{Subject: domain.SubjectOverride})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range audit {
		if a.Action != domain.ActionCreate && a.Action != domain.ActionSave {
			t.Errorf("audit entry %s of revision %d stored for a change that failed", a.Action, a.Revision)
		}
	}
	if rows := outbox(t, dbURL); len(rows) != 0 {
		t.Errorf("events stored: %+v", rows)
	}
}

// Only a drift is recorded on its own: the event of an override change
// cannot be written apart from the change.
func TestOnlyDriftEventsAreRecordedAlone(t *testing.T) {
	t.Parallel()
	dbURL, s := setupURL(t)
	endpoints(t, s, 1)
	e, _ := domain.OverrideEvent(domain.AuditEntry{Subject: domain.SubjectOverride, Action: domain.ActionPublish,
		SubjectID: "identity", Locale: "en-US", Revision: 1}, time.Now())
	if _, _, err := s.RecordDriftEvent(t.Context(), e); !errors.Is(err, library.ErrInvalid) {
		t.Errorf("a publish's event recorded alone: %v, want invalid", err)
	}
	d := domain.DriftEvent("identity", "en-US", 1, domain.WebhookDrift{Reason: "version-lowered", BasedOnVersion: 3, BuiltinVersion: 2}, time.Now())
	for i, want := range []bool{true, false} {
		n, recorded, err := s.RecordDriftEvent(t.Context(), d)
		if err != nil || recorded != want || n != map[bool]int{true: 1}[want] {
			t.Errorf("drift recorded the %d. time: %d deliveries, recorded %v, %v; want recorded %v", i+1, n, recorded, err, want)
		}
	}
	if rows := outbox(t, dbURL); len(rows) != 1 || rows[0].key != d.IdempotencyKey {
		t.Errorf("events %+v, want the drift once", rows)
	}
}

// The event of an override change is written by the change's transaction
// and nowhere else: in the store's source, webhook_events is inserted
// into by insertEvent alone, whose only callers are overrideChanged (the
// audit of an override change, inside its transaction) and
// RecordDriftEvent (drifts only); and no package outside the store
// mentions the table. A separate path written after the commit fails this.
func TestEventsAreWrittenOnlyByTheirChange(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	callers := map[string][]string{} // insertEvent's callers
	var inserters []string           // functions whose SQL inserts into webhook_events
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir // a private cluster's data, the git worktree's metadata
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := rel + ":" + fn.Name.Name
			ast.Inspect(fn, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.BasicLit:
					if n.Kind == token.STRING && strings.Contains(strings.ToLower(n.Value), "webhook_events") {
						if filepath.Dir(rel) != "store" {
							t.Errorf("%s mentions webhook_events outside the store", name)
						}
						if strings.Contains(strings.ToLower(n.Value), "insert into webhook_events") {
							inserters = append(inserters, name)
						}
					}
				case *ast.SelectorExpr:
					if n.Sel.Name == "insertEvent" {
						callers[name] = append(callers[name], fset.Position(n.Pos()).String())
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"store/webhooks.go:insertEvent"}; !slices.Equal(inserters, want) {
		t.Errorf("functions inserting into webhook_events: %v, want %v", inserters, want)
	}
	got := make([]string, 0, len(callers))
	for name := range callers {
		got = append(got, name)
	}
	slices.Sort(got)
	if want := []string{"store/changerequests.go:requestChanged", "store/overrides.go:overrideChanged", "store/webhooks.go:RecordDriftEvent"}; !slices.Equal(got, want) {
		t.Errorf("callers of insertEvent: %v, want %v", callers, want)
	}
}

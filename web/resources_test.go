package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/store"
)

// A full disk (a trigger raising SQLSTATE disk_full on every new
// revision) makes a write through the API answer 503
// database_out_of_resources naming the cause, not a 500, and /readyz
// degraded with why, while the database still answers; the first write
// that commits afterwards makes it ready again.
func TestFullDiskAnswers503AndDegradesReadiness(t *testing.T) {
	t.Parallel()
	dbURL := storetestDatabase(t)
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	srv := newServerOn(t, st)
	h := srv.Handler()
	token := newToken(t, st, "editor", domain.ScopeWrite)
	builtin, ok := srv.served.Current().Library.Module("base.identity", "en-US")
	if !ok {
		t.Fatal("no builtin base.identity (en-US)")
	}
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), `CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$;
		CREATE TRIGGER full_disk BEFORE INSERT ON override_revisions FOR EACH ROW EXECUTE FUNCTION full_disk();`); err != nil {
		t.Fatal(err)
	}
	put := func() *httptest.ResponseRecorder {
		return serveAPI(h, http.MethodPut, "/api/v1/overrides/base.identity?locale=en-US", builtin.Text+"\nOne more line.\n", token)
	}
	wantAPIError(t, "a save on a full disk", put(), http.StatusServiceUnavailable, CodeDatabaseResources, "disk full", "53100", "nothing was saved")
	type ready struct {
		Status, Database, Writes string
		WritesFailingSince       *string `json:"writes_failing_since"`
	}
	readyz := func() ready {
		rec := serve(h, http.MethodGet, "/readyz")
		var r ready
		if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("/readyz: %d %s", rec.Code, rec.Body.String())
		}
		return r
	}
	if r := readyz(); r.Status != "degraded" || r.Database != "ok" || r.Writes != "failing: disk full (SQLSTATE 53100)" || r.WritesFailingSince == nil {
		t.Errorf("/readyz while writes fail: %+v; want degraded, the database ok, writes failing on a full disk", r)
	}
	if _, err := conn.Exec(t.Context(), `DROP TRIGGER full_disk ON override_revisions`); err != nil {
		t.Fatal(err)
	}
	if rec := put(); rec.Code != http.StatusCreated && rec.Code != http.StatusOK {
		t.Fatalf("the save once the disk has room: %d %s", rec.Code, rec.Body.String())
	}
	if r := readyz(); r.Status != "ready" || r.Writes != "ok" || r.WritesFailingSince != nil {
		t.Errorf("/readyz after a write committed: %+v, want ready", r)
	}
}

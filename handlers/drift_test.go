package handlers_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// bumpedLibrary copies the library folder into a temp folder with the
// version of id raised by one in every locale, and loads it.
func bumpedLibrary(t *testing.T, id string) *library.Snapshot {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "library"))); err != nil {
		t.Fatal(err)
	}
	base := builtin(t)
	for _, loc := range base.ModuleLocales(id) {
		m, _ := base.Module(id, loc)
		path := filepath.Join(dir, "modules", loc, library.FileName(id))
		text := strings.Replace(m.Text, "version: "+strconv.Itoa(m.Version)+"\n", "version: "+strconv.Itoa(m.Version+1)+"\n", 1)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := library.LoadDir(dir)
	if err != nil {
		t.Fatalf("bumped library: %v", err)
	}
	return snap
}

func TestDriftListsOverridesWhoseBuiltinMovedOn(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	before := setupOn(t, dbURL)
	before.get("/drift").want(t, http.StatusOK)
	en := builtinText(t, before.lib, "base.identity", "en-US")
	before.saveOverride("base.identity", "en-US", identityText(t, before, "You are the drifting assistant."), 0)
	before.saveOverride("base.caution", "en-US", strings.Replace(builtinText(t, before.lib, "base.caution", "en-US").Text, "\n---\n", "\n---\nBe careful.\n", 1), 0)

	if r := before.get("/drift").want(t, http.StatusOK); r.find("no-drift").Length() != 1 || r.find("drift-row").Length() != 0 {
		t.Fatal("drift listed before the builtin moved")
	}

	// The same database under a library whose base.identity is one version on.
	after := setupOn(t, dbURL, bumpedLibrary(t, "base.identity"))
	r := after.get("/drift").want(t, http.StatusOK)
	rows := r.find("drift-row")
	if rows.Length() != 1 {
		t.Fatalf("%d drift rows, want 1 (base.identity only)", rows.Length())
	}
	row := rows.First()
	if row.AttrOr("data-id", "") != "base.identity" || row.AttrOr("data-locale", "") != "en-US" {
		t.Errorf("drift row is %s %s", row.AttrOr("data-id", ""), row.AttrOr("data-locale", ""))
	}
	if got, want := row.Find(`[data-testid="based-on"]`).Text(), "v"+strconv.Itoa(en.Version); got != want {
		t.Errorf("based on %q, want %q", got, want)
	}
	if got, want := row.Find(`[data-testid="builtin-now"]`).Text(), "v"+strconv.Itoa(en.Version+1); got != want {
		t.Errorf("builtin now %q, want %q", got, want)
	}
	if href := row.Find("a").First().AttrOr("href", ""); href != "/modules/base.identity" {
		t.Errorf("module link %q", href)
	}

	lib := after.get("/?status=drifted").want(t, http.StatusOK)
	if ids := lib.find("module-row"); ids.Length() != 1 || ids.AttrOr("data-id", "") != "base.identity" {
		t.Errorf("status=drifted lists %d rows", ids.Length())
	}
	// A drifted override still serves, marked as such.
	prev := after.post("/preview", url.Values{"request": {`{"locale": "en-US"}`}}).want(t, http.StatusOK)
	if s := prev.doc.Find(`[data-testid="report-entry"][data-module="base.identity"]`).AttrOr("data-source", ""); s != "override-drifted" {
		t.Errorf("preview serves base.identity from %q, want override-drifted", s)
	}
	// Editing a drifted override keeps its base: only the review resolves drift.
	after.saveOverride("base.identity", "en-US", identityText(t, after, "You are the edited drifting assistant."), 1)
	if rows := after.get("/drift").want(t, http.StatusOK).find("drift-row"); rows.Length() != 1 {
		t.Errorf("after an edit, %d drift rows, want 1: an edit must not clear drift", rows.Length())
	}
}

package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/state"
)

func generationOf(t *testing.T, rec *httptest.ResponseRecorder) int64 {
	t.Helper()
	g, err := strconv.ParseInt(rec.Header().Get(handlers.HeaderGeneration), 10, 64)
	if err != nil || g < 1 {
		t.Fatalf("%s: %q", handlers.HeaderGeneration, rec.Header().Get(handlers.HeaderGeneration))
	}
	return g
}

// TestAPIETags: the listing routes answer a strong ETag of their body;
// If-None-Match with it is 304 with no body until a publish changes the
// body, then 200 with a new ETag.
func TestAPIETags(t *testing.T) {
	t.Parallel()
	a := setup(t)
	routes := []string{"/api/v1/modules", "/api/v1/modules/base.identity?locale=en-US", "/api/v1/commands", "/api/v1/tools"}
	etags := map[string]string{}
	for _, r := range routes {
		rec := a.api(http.MethodGet, r, "")
		etag := rec.Header().Get("ETag")
		if rec.Code != http.StatusOK || len(etag) < 10 || etag[0] != '"' || etag[len(etag)-1] != '"' {
			t.Fatalf("%s: %d, ETag %q; want 200 and a strong tag", r, rec.Code, etag)
		}
		etags[r] = etag
		for _, inm := range []string{etag, `"other", ` + etag, "W/" + etag, "*"} {
			rec = a.api(http.MethodGet, r, "", "If-None-Match", inm)
			if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 || rec.Header().Get("ETag") != etag {
				t.Errorf("%s with If-None-Match %s: %d %q, want 304 with the ETag and no body", r, inm, rec.Code, rec.Body.String())
			}
		}
		// Header lines given apart are one list.
		req := httptest.NewRequest(http.MethodGet, r, nil)
		a.authorize(req)
		req.Header.Add("If-None-Match", `"other"`)
		req.Header.Add("If-None-Match", etag)
		if rec := a.send(req); rec.Code != http.StatusNotModified {
			t.Errorf("%s with the tag on a second If-None-Match line: %d, want 304", r, rec.Code)
		}
		if rec = a.api(http.MethodGet, r, "", "If-None-Match", `"stale"`); rec.Code != http.StatusOK || rec.Body.Len() == 0 {
			t.Errorf("%s with a stale If-None-Match: %d", r, rec.Code)
		}
	}
	a.publishAPI("base.identity", "en-US", identityText(t, a, "You are the ETag test's assistant."), 0)
	for _, r := range routes[:2] {
		rec := a.api(http.MethodGet, r, "", "If-None-Match", etags[r])
		if rec.Code != http.StatusOK || rec.Header().Get("ETag") == etags[r] || rec.Header().Get("ETag") == "" {
			t.Errorf("%s after a publish: %d, ETag %s (was %s); want 200 and a new ETag", r, rec.Code, rec.Header().Get("ETag"), etags[r])
		}
	}
	// Commands and tools do not read base.identity: still 304.
	if rec := a.api(http.MethodGet, "/api/v1/tools", "", "If-None-Match", etags["/api/v1/tools"]); rec.Code != http.StatusNotModified {
		t.Errorf("tools after an unrelated publish: %d, want 304", rec.Code)
	}
}

// TestAPIChanges: every answer carries the generation; a draft leaves it,
// a publish or delete moves it, and the change feed lists what changed,
// waking a waiting request.
func TestAPIChanges(t *testing.T) {
	t.Parallel()
	a := setup(t)
	rec := a.api(http.MethodGet, "/api/v1/changes", "")
	start := decode[handlers.APIChanges](t, rec)
	if rec.Code != http.StatusOK || start.Generation != generationOf(t, rec) || len(start.Changes) != 0 || start.Reset {
		t.Fatalf("changes without since: %d %+v", rec.Code, start)
	}
	g := start.Generation
	for _, r := range []*httptest.ResponseRecorder{
		a.api(http.MethodPost, "/api/v1/assemble", `{}`),
		a.api(http.MethodPost, "/api/v1/render", `{"module":"base.identity"}`),
		a.api(http.MethodGet, "/api/v1/modules", ""),
		a.api(http.MethodPost, "/api/v1/assemble", `{"locale":"x y"}`),
	} {
		if got := generationOf(t, r); got != g {
			t.Errorf("generation %d, want %d", got, g)
		}
	}

	// A waiting request is answered by the publish.
	type answer struct {
		rec     *httptest.ResponseRecorder
		changes handlers.APIChanges
	}
	done := make(chan answer)
	go func() {
		rec := a.api(http.MethodGet, "/api/v1/changes?since="+strconv.FormatInt(g, 10)+"&wait=20", "")
		done <- answer{rec, decode[handlers.APIChanges](t, rec)}
	}()
	text := identityText(t, a, "You are the change feed's assistant.")
	// A draft changes nothing served.
	if rec := a.putText(identityURL, text, ""); rec.Code != http.StatusOK || generationOf(t, a.api(http.MethodGet, "/api/v1/modules", "")) != g {
		t.Errorf("after a draft: %d, generation moved", rec.Code)
	}
	// A publish answers with the generation that includes it.
	if rec := a.api(http.MethodPost, "/api/v1/overrides/base.identity/publish?locale=en-US", "", "If-Match", "1"); rec.Code != http.StatusOK || generationOf(t, rec) != g+1 {
		t.Fatalf("publish: %d %s, generation %s; want 200 and %d", rec.Code, rec.Body.String(), rec.Header().Get(handlers.HeaderGeneration), g+1)
	}
	got := <-done
	want := state.ServedChange{Generation: g + 1, Subject: "override", ID: "base.identity", Locale: "en-US", Action: "published", Revision: 1}
	if got.rec.Code != http.StatusOK || got.changes.Generation != g+1 || got.changes.Reset || len(got.changes.Changes) != 1 || got.changes.Changes[0] != want {
		t.Errorf("waiting request: %d %+v, want generation %d and %+v", got.rec.Code, got.changes, g+1, want)
	}
	if generationOf(t, a.api(http.MethodGet, "/api/v1/modules", "")) != g+1 {
		t.Error("the generation header did not move with the publish")
	}

	// Delete: removed.
	if rec := a.api(http.MethodDelete, identityURL, "", "If-Match", "1"); rec.Code != http.StatusNoContent || generationOf(t, rec) != g+2 {
		t.Fatalf("delete: %d %s, generation %s; want 204 and %d", rec.Code, rec.Body.String(), rec.Header().Get(handlers.HeaderGeneration), g+2)
	}
	all := decode[handlers.APIChanges](t, a.api(http.MethodGet, "/api/v1/changes?since="+strconv.FormatInt(g, 10), ""))
	if all.Generation != g+2 || len(all.Changes) != 2 || all.Changes[1] != (state.ServedChange{Generation: g + 2, Subject: "override", ID: "base.identity", Locale: "en-US", Action: "removed"}) {
		t.Errorf("since %d: %+v", g, all)
	}
	// Nothing new: answered at once with no changes (wait=0).
	if none := decode[handlers.APIChanges](t, a.api(http.MethodGet, "/api/v1/changes?since="+strconv.FormatInt(g+2, 10), "")); len(none.Changes) != 0 || none.Reset || none.Generation != g+2 {
		t.Errorf("up to date: %+v", none)
	}
	// A generation from another process life: reset.
	if r := decode[handlers.APIChanges](t, a.api(http.MethodGet, "/api/v1/changes?since=999999", "")); !r.Reset || r.Generation != g+2 || len(r.Changes) != 0 {
		t.Errorf("since a future generation: %+v, want reset", r)
	}
	wantError(t, "since x", a.api(http.MethodGet, "/api/v1/changes?since=x", ""), http.StatusUnprocessableEntity, "invalid_request", "since")
	wantError(t, "wait 31", a.api(http.MethodGet, "/api/v1/changes?since=1&wait=31", ""), http.StatusUnprocessableEntity, "invalid_request", "wait", "0 to 30")
}

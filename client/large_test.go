package client_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/client"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library/librarytest"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
)

// At 10,000 modules the fallback answers what a server with the same
// library and no overrides answers: the assembly's text, the commands
// and the tools.
func TestFallbackAtTenThousandModules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lib, err := librarytest.Library(10000)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	_, token, err := st.CreateToken(domain.WithActor(ctx, "test"), "runtime", []string{domain.ScopeAssemble})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(ctx, web.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Store: st,
		Library: reload.Fixed(lib), Assembler: assembler.New(assembler.Config{CountTokens: true}), Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(ctx) })
	get := func(path string, out any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL()+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("GET %s: %s: %v", path, resp.Status, err)
		}
	}
	var commands []assembler.Command
	get("/api/v1/commands?locale=en-US", &commands)
	var tools map[string]assembler.Tool
	get("/api/v1/tools?locale=en-US", &tools)
	// The first assembly at this size builds the server's caches: under
	// the race detector on a loaded machine it can take longer than the
	// default timeout, which would answer from the fallback.
	online := client.New(srv.URL(), token, client.Options{HTTPClient: &http.Client{Timeout: 2 * time.Minute}})
	const r = `{"locale":"en-US","message":"summarise the report of module 42","command":"/minutes"}`
	want, err := online.Assemble(ctx, decodeRequest(t, r))
	if err != nil || want.Origin.Source != client.SourceServer {
		t.Fatalf("the server's assembly: %+v %v", want.Origin, err)
	}

	// Nothing listens on port 1: every request fails at once.
	offline := client.New("http://127.0.0.1:1", token, client.Options{Library: lib, Now: func() time.Time { return clock }})
	a, err := offline.Assemble(ctx, decodeRequest(t, r))
	if err != nil || a.Origin.Source != client.SourceFallback || a.Text != want.Text {
		i := 0
		for i < min(len(a.Text), len(want.Text)) && a.Text[i] == want.Text[i] {
			i++
		}
		t.Errorf("the fallback's assembly: %s, %v; its text differs from the server's at byte %d:\nfallback %.200q\nserver   %.200q",
			a.Origin.Source, err, i, a.Text[max(0, i-100):], want.Text[max(0, i-100):])
	}
	cmds, err := offline.Commands(ctx, "en-US")
	if err != nil || cmds.Origin.Source != client.SourceFallback || len(cmds.List) < 1000 || !reflect.DeepEqual(cmds.List, commands) {
		t.Errorf("the fallback's commands: %s, %v, %d of the server's %d, equal %v", cmds.Origin.Source, err, len(cmds.List), len(commands), reflect.DeepEqual(cmds.List, commands))
	}
	tl, err := offline.Tools(ctx, "en-US")
	if err != nil || tl.Origin.Source != client.SourceFallback || len(tl.ByName) < 100 || !reflect.DeepEqual(tl.ByName, tools) {
		t.Errorf("the fallback's tools: %s, %v, %d of the server's %d", tl.Origin.Source, err, len(tl.ByName), len(tools))
	}
}

package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/mcpserver"
	"github.com/promptdesk/promptdesk/store"
)

// bearer is an http.RoundTripper adding "Authorization: Bearer token".
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpConnect connects the SDK's client to srv's /mcp over streamable
// HTTP with token; opts (may be nil) takes the notification handlers.
func mcpConnect(t *testing.T, srv *Server, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "promptdesk-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL() + mcpPath, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// startMCP starts a server (prompts/list pages of pageSize, its Config
// changed by configure when given) and returns it with a token holding
// assemble and read and a maker of other tokens.
func startMCP(t *testing.T, pageSize int, configure ...func(*Config)) (*Server, string, func(name string, scopes ...string) string) {
	t.Helper()
	srv, st := newServerWith(t, nil, func(c *Config) {
		c.MCPPageSize = pageSize
		for _, f := range configure {
			f(c)
		}
	})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	token := func(name string, scopes ...string) string { return newToken(t, st, name, scopes...) }
	return srv, token("mcp-reader", domain.ScopeAssemble, domain.ScopeRead), token
}

// apiJSON calls the API in process and decodes its 200 answer as a
// generic JSON value.
func apiJSON(t *testing.T, srv *Server, method, target, body, token string) any {
	t.Helper()
	rec := serveAPI(srv.Handler(), method, target, body, token)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body.String())
	}
	var v any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// structured decodes a tool result's structured content as a generic JSON
// value, failing on a tool error.
func structured(t *testing.T, what string, res *mcp.CallToolResult, err error) any {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", what, toolText(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// toolText is the text of a tool result's content.
func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPNeedsAToken(t *testing.T) {
	t.Parallel()
	srv, _, token := startMCP(t, 0)
	writeOnly := token("mcp-writer-only", domain.ScopeWrite)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, c := range []struct {
		what, token string
		status      int
		code        string
	}{
		{"no token", "", http.StatusUnauthorized, "unauthorized"},
		{"unknown token", "pd_" + strings.Repeat("x", 43), http.StatusUnauthorized, "unauthorized"},
		{"write-only token", writeOnly, http.StatusForbidden, "forbidden"},
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL()+mcpPath, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		authorize(req, c.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e apiErrorBody
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != c.status || e.Error.Code != c.code {
			t.Errorf("%s: %d %q, want %d %q", c.what, resp.StatusCode, e.Error.Code, c.status, c.code)
		}
		if c.status == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q", c.what, resp.Header.Get("WWW-Authenticate"))
		}
	}
}

func TestMCPPromptsOverHTTP(t *testing.T) {
	t.Parallel()
	srv, tok, _ := startMCP(t, 7)
	cs := mcpConnect(t, srv, tok, nil)
	ctx := context.Background()

	// Paging: every module once, in pages of 7, as GET /api/v1/modules lists them.
	var names []string
	pages := 0
	cursor := ""
	for {
		res, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(res.Prompts) > 7 {
			t.Fatalf("page %d has %d prompts, more than the page size 7", pages, len(res.Prompts))
		}
		for _, p := range res.Prompts {
			names = append(names, p.Name)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	var want []string
	for _, m := range apiJSON(t, srv, http.MethodGet, "/api/v1/modules", "", tok).([]any) {
		want = append(want, m.(map[string]any)["id"].(string))
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("prompts %v\nwant the modules %v", names, want)
	}
	if wantPages := (len(want) + 6) / 7; pages != wantPages {
		t.Errorf("%d pages, want %d", pages, wantPages)
	}

	// The arguments: the declared variables, required and described, then locale.
	var title *mcp.Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Name == "aux.title-gen" {
			title = p
		}
	}
	if title == nil || len(title.Arguments) != 2 {
		t.Fatalf("aux.title-gen prompt: %+v", title)
	}
	if a := title.Arguments[0]; a.Name != "conversation" || !a.Required || a.Description != "the conversation so far" {
		t.Errorf("argument 0: %+v, want conversation, required, described", a)
	}
	if a := title.Arguments[1]; a.Name != mcpserver.LocaleArgument || a.Required || a.Description == "" {
		t.Errorf("argument 1: %+v, want locale, optional, described", a)
	}

	// Get renders as POST /api/v1/render does.
	for _, locale := range []string{"", "zh-CN"} {
		args := map[string]string{"conversation": "A: hi <b>\nB: hello & bye"}
		body := `{"module":"aux.title-gen","variables":{"conversation":"A: hi <b>\nB: hello & bye"}}`
		if locale != "" {
			args["locale"] = locale
			body = `{"module":"aux.title-gen","locale":"` + locale + `","variables":{"conversation":"A: hi <b>\nB: hello & bye"}}`
		}
		got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "aux.title-gen", Arguments: args})
		if err != nil {
			t.Fatalf("get %s: %v", locale, err)
		}
		wantText := apiJSON(t, srv, http.MethodPost, "/api/v1/render", body, tok).(map[string]any)["text"]
		if len(got.Messages) != 1 || got.Messages[0].Role != "user" || got.Messages[0].Content.(*mcp.TextContent).Text != wantText {
			t.Errorf("get %q: %+v\nwant one user message %q", locale, got.Messages, wantText)
		}
	}
	// A missing required argument is an error naming it.
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "aux.title-gen"}); err == nil || !strings.Contains(err.Error(), "missing_variable") || !strings.Contains(err.Error(), "{{conversation}}") {
		t.Errorf("get without conversation: %v, want missing_variable naming {{conversation}}", err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "aux.title-gen", Arguments: map[string]string{"conversation": "x", "locale": "not a locale!"}}); err == nil || !strings.Contains(err.Error(), "locale") {
		t.Errorf("get with a bad locale: %v, want an error naming locale", err)
	}
}

func TestMCPToolsOverHTTP(t *testing.T) {
	t.Parallel()
	srv, tok, token := startMCP(t, 0)
	writer := token("mcp-writer", domain.ScopeRead, domain.ScopeWrite)
	cs := mcpConnect(t, srv, tok, nil)
	ctx := context.Background()
	call := func(cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}
	request := `{"locale":"en-US","message":"Please translate this note into German","model":"gpt-4o","now":"2026-11-29T12:00:00Z"}`
	var reqArgs map[string]any
	if err := json.Unmarshal([]byte(request), &reqArgs); err != nil {
		t.Fatal(err)
	}

	// assemble: the API's answer, composition report included.
	res, err := call(cs, "assemble", reqArgs)
	got := structured(t, "assemble", res, err)
	want := apiJSON(t, srv, http.MethodPost, "/api/v1/assemble", request, tok)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("assemble:\n%v\nwant the API's\n%v", got, want)
	}
	// The session's last composition report is a resource.
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ReportURI})
	if err != nil {
		t.Fatal(err)
	}
	var report any
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &report); err != nil || !reflect.DeepEqual(report, want.(map[string]any)["report"]) {
		t.Errorf("report resource %s (%v), want the assemble's report", rr.Contents[0].Text, err)
	}
	// Another session has its own (none yet).
	other := mcpConnect(t, srv, tok, nil)
	if rr, err := other.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ReportURI}); err != nil || strings.TrimSpace(rr.Contents[0].Text) != "[]" {
		t.Errorf("another session's report: %v %v, want []", rr, err)
	}
	// A request the API refuses is refused alike, naming the field.
	if res, err := call(cs, "assemble", map[string]any{"message": "hi", "knowledgeBases": []any{map[string]any{"id": "k", "name": "K", "type": "nope", "docCount": 1}}}); err != nil || !res.IsError || !strings.Contains(toolText(res), "knowledgeBases") {
		t.Errorf("assemble of a bad request: %v %v, want a tool error naming knowledgeBases", toolText(res), err)
	}

	// render.
	renderBody := `{"module":"aux.title-gen","locale":"en-US","variables":{"conversation":"A: hello"}}`
	res, err = call(cs, "render", map[string]any{"module": "aux.title-gen", "locale": "en-us", "variables": map[string]any{"conversation": "A: hello"}})
	if got, want := structured(t, "render", res, err), apiJSON(t, srv, http.MethodPost, "/api/v1/render", renderBody, tok); !reflect.DeepEqual(got, want) {
		t.Errorf("render %v, want %v", got, want)
	}
	if res, err := call(cs, "render", map[string]any{"module": "aux.title-gen"}); err != nil || !res.IsError || !strings.Contains(toolText(res), "{{conversation}}") {
		t.Errorf("render without the variable: %q %v, want a tool error naming {{conversation}}", toolText(res), err)
	}

	// list_modules: the API's filters and paging.
	res, err = call(cs, "list_modules", map[string]any{"layer": "task", "limit": 2})
	page := structured(t, "list_modules", res, err).(map[string]any)
	apiPage := serveAPI(srv.Handler(), http.MethodGet, "/api/v1/modules?layer=task&limit=2", "", tok)
	var apiModules any
	_ = json.Unmarshal(apiPage.Body.Bytes(), &apiModules)
	if !reflect.DeepEqual(page["modules"], apiModules) || page["nextCursor"] != apiPage.Header().Get("X-Next-Cursor") || page["nextCursor"] == "" {
		t.Errorf("list_modules %v, want the API's %v with cursor %q", page, apiModules, apiPage.Header().Get("X-Next-Cursor"))
	}
	res, err = call(cs, "list_modules", map[string]any{"layer": "task", "limit": 2, "cursor": page["nextCursor"]})
	next := structured(t, "list_modules page 2", res, err).(map[string]any)
	if want := apiJSON(t, srv, http.MethodGet, "/api/v1/modules?layer=task&limit=2&cursor="+page["nextCursor"].(string), "", tok); !reflect.DeepEqual(next["modules"], want) {
		t.Errorf("list_modules page 2 %v, want %v", next["modules"], want)
	}
	if res, err := call(cs, "list_modules", map[string]any{"status": "shiny"}); err != nil || !res.IsError || !strings.Contains(toolText(res), "status") {
		t.Errorf("list_modules with an unknown status: %q %v", toolText(res), err)
	}

	// get_module.
	res, err = call(cs, "get_module", map[string]any{"id": "task.translate", "locale": "zh-CN"})
	if got, want := structured(t, "get_module", res, err), apiJSON(t, srv, http.MethodGet, "/api/v1/modules/task.translate?locale=zh-CN", "", tok); !reflect.DeepEqual(got, want) {
		t.Errorf("get_module %v, want %v", got, want)
	}
	if res, err := call(cs, "get_module", map[string]any{"id": "task.nope"}); err != nil || !res.IsError || !strings.Contains(toolText(res), "not_found") {
		t.Errorf("get_module of an unknown id: %q %v", toolText(res), err)
	}

	// explain: the report's entries of the module, and its triggers.
	res, err = call(cs, "explain", map[string]any{"module": "task.translate", "request": reqArgs})
	ex := structured(t, "explain", res, err).(map[string]any)
	entries, _ := ex["entries"].([]any)
	if ex["entered"] != true || len(entries) == 0 || !strings.HasPrefix(entries[0].(map[string]any)["reason"].(string), "intent:") {
		t.Errorf("explain task.translate: %v, want entered by an intent", ex)
	}
	res, err = call(cs, "explain", map[string]any{"module": "task.doc-minutes", "request": reqArgs})
	ex = structured(t, "explain", res, err).(map[string]any)
	entries, _ = ex["entries"].([]any)
	if ex["entered"] != false || ex["listed"] != true || len(entries) != 1 || entries[0].(map[string]any)["kind"] != "skill-listed" ||
		len(ex["triggers"].([]any)) == 0 || ex["layer"] != "task" {
		t.Errorf("explain task.doc-minutes: %v, want not entered but listed among the skills, with its triggers", ex)
	}

	// save_draft: hidden from and refused to a token without write.
	tools := map[string]bool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = true
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s lacks a schema: in %v out %v", tool.Name, tool.InputSchema, tool.OutputSchema)
		}
	}
	if !reflect.DeepEqual(tools, map[string]bool{"assemble": true, "render": true, "list_modules": true, "get_module": true, "explain": true}) {
		t.Errorf("tools of an assemble,read token: %v", tools)
	}
	edited := builtinText(t, "aux.title-gen", "en-US") + "\nKeep it short.\n"
	if _, err := call(cs, "save_draft", map[string]any{"module": "aux.title-gen", "locale": "en-US", "text": edited}); err == nil || !strings.Contains(err.Error(), `"write"`) {
		t.Errorf("save_draft with a read token: %v, want an error naming the write scope", err)
	}
	ws := mcpConnect(t, srv, writer, nil)
	res, err = call(ws, "save_draft", map[string]any{"module": "aux.title-gen", "locale": "en-US", "text": edited, "note": "from MCP"})
	saved := structured(t, "save_draft", res, err).(map[string]any)
	if saved["stored"] != true || saved["status"] != mcpserver.StatusDraft || saved["revision"] != 1.0 {
		t.Errorf("save_draft: %v, want stored draft revision 1", saved)
	}
	ovr := apiJSON(t, srv, http.MethodGet, "/api/v1/overrides/aux.title-gen?locale=en-US", "", writer).(map[string]any)
	if ovr["text"] != edited || ovr["status"] != "draft" {
		t.Errorf("the override after save_draft: %v", ovr)
	}
	revs := apiJSON(t, srv, http.MethodGet, "/api/v1/overrides/aux.title-gen/revisions?locale=en-US", "", writer)
	if r := revs.(map[string]any)["revisions"].([]any)[0].(map[string]any); r["author"] != "token:mcp-writer" || r["note"] != "from MCP" {
		t.Errorf("revision: %v, want by token:mcp-writer with the note", r)
	}
	// Nothing serves until published: render still gives the builtin.
	res, err = call(cs, "render", map[string]any{"module": "aux.title-gen", "locale": "en-US", "variables": map[string]any{"conversation": "x"}})
	if r := structured(t, "render", res, err).(map[string]any); r["source"] != "builtin" {
		t.Errorf("render after save_draft: %v, want the builtin", r)
	}
	// An existing override needs its base revision; a stale one is refused.
	for _, c := range []struct {
		base int
		want string
	}{{0, "baseRevision"}, {7, "baseRevision"}} {
		res, err := call(ws, "save_draft", map[string]any{"module": "aux.title-gen", "locale": "en-US", "text": edited + "More.\n", "baseRevision": c.base})
		if err != nil || !res.IsError || !strings.Contains(toolText(res), c.want) {
			t.Errorf("save_draft on base %d: %q %v, want a tool error naming %s", c.base, toolText(res), err, c.want)
		}
	}
}

// A publish reaches a session's notification stream (GET /mcp), which
// stays open past the server's write timeout.
func TestMCPNotifiesAPublish(t *testing.T) {
	t.Parallel()
	const writeTimeout = 500 * time.Millisecond
	srv, tok, token := startMCP(t, 0, func(c *Config) { c.WriteTimeout = writeTimeout })
	writer := token("mcp-publisher", domain.ScopeRead, domain.ScopeWrite)
	listChanged := make(chan struct{}, 16)
	updated := make(chan string, 16)
	cs := mcpConnect(t, srv, tok, &mcp.ClientOptions{
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { listChanged <- struct{}{} },
		ResourceUpdatedHandler:   func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	ctx := context.Background()
	uri := mcpserver.ModuleURI("aux.title-gen", "en-US")
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	builtin := builtinText(t, "aux.title-gen", "en-US")
	if err != nil || rr.Contents[0].Text != builtin {
		t.Fatalf("module resource: %v %v, want the builtin file", rr, err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}

	time.Sleep(3 * writeTimeout)
	edited := strings.Replace(builtin, "You are the title generator", "You are the careful title generator", 1)
	if rec := serveAPI(srv.Handler(), http.MethodPut, "/api/v1/overrides/aux.title-gen?locale=en-US", edited, writer); rec.Code != http.StatusOK {
		t.Fatalf("PUT: %d %s", rec.Code, rec.Body.String())
	}
	select {
	case <-listChanged:
		t.Fatal("list_changed after a draft, which serves nothing")
	case <-time.After(300 * time.Millisecond):
	}
	req := authorize(httptest.NewRequest(http.MethodPost, "/api/v1/overrides/aux.title-gen/publish?locale=en-US", nil), writer)
	req.Header.Set("If-Match", `"1"`)
	rec := httptest.NewRecorder()
	validated(srv.Handler()).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("publish: %d %s", rec.Code, rec.Body.String())
	}
	select {
	case <-listChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/prompts/list_changed within 10 s of a publish")
	}
	select {
	case got := <-updated:
		if got != uri && got != mcpserver.ModuleURI("aux.title-gen", "") {
			t.Errorf("resource updated %q, want %q", got, uri)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/updated within 10 s of a publish")
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "aux.title-gen", Arguments: map[string]string{"conversation": "x", "locale": "en-US"}})
	if err != nil || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "careful title generator") {
		t.Errorf("get after the publish: %v %v, want the published text", got, err)
	}
	if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil || rr.Contents[0].Text != edited {
		t.Errorf("module resource after the publish: %v %v, want the override's file", rr, err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ModuleURI("task.nope", "")}); err == nil {
		t.Error("an unknown module's resource was read")
	}
}

// builtinText is the builtin module file of id in locale.
func builtinText(t *testing.T, id, locale string) string {
	t.Helper()
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := lib.Module(id, locale)
	if !ok {
		t.Fatalf("no builtin %s in %s", id, locale)
	}
	return m.Text
}

// save_draft goes through the one write path: when the database refuses
// the revision, the tool fails, nothing is stored and the builtin still
// serves; once it accepts, the same call stores the draft.
func TestMCPSaveDraftWhenTheDatabaseFails(t *testing.T) {
	t.Parallel()
	dbURL := storetestDatabase(t)
	st, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	srv := newServerOn(t, st)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	writer := newToken(t, st, "mcp-faulty", domain.ScopeAssemble, domain.ScopeRead, domain.ScopeWrite)
	cs := mcpConnect(t, srv, writer, nil)
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), `CREATE FUNCTION refuse_revision() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'injected fault'; END $$;
		CREATE TRIGGER refuse_revision BEFORE INSERT ON override_revisions FOR EACH ROW EXECUTE FUNCTION refuse_revision();`); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"module": "aux.title-gen", "locale": "en-US", "text": builtinText(t, "aux.title-gen", "en-US") + "\nShorter.\n"}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "save_draft", Arguments: args})
	if err != nil || !res.IsError {
		t.Fatalf("save_draft while the database refuses: %v %v, want a tool error", toolText(res), err)
	}
	if ovr := apiJSON(t, srv, http.MethodGet, "/api/v1/overrides/aux.title-gen?locale=en-US", "", writer).(map[string]any); ovr["status"] != "builtin" || ovr["revision"] != 0.0 {
		t.Errorf("the override after a refused save: %v, want none (the builtin)", ovr)
	}
	if srv.served.Current().HasDraft("aux.title-gen", "en-US") {
		t.Error("the served state has a draft the database refused")
	}
	if _, err := conn.Exec(t.Context(), `DROP TRIGGER refuse_revision ON override_revisions`); err != nil {
		t.Fatal(err)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "save_draft", Arguments: args})
	if saved := structured(t, "save_draft", res, err).(map[string]any); saved["stored"] != true || saved["revision"] != 1.0 {
		t.Errorf("save_draft once the database accepts: %v, want stored revision 1", saved)
	}
}

// A token of the staging channel is served the pending drafts by render,
// prompts/get and assemble over MCP, as by the API; a production token
// the published text.
func TestMCPStagingChannel(t *testing.T) {
	t.Parallel()
	srv, tok, token := startMCP(t, 0)
	staging := token("mcp-staging", domain.ScopeAssemble, domain.ScopeRead, domain.ChannelStaging)
	writer := token("mcp-stager", domain.ScopeRead, domain.ScopeWrite)
	edited := strings.Replace(builtinText(t, "aux.title-gen", "en-US"), "You are the title generator", "You are the staged title generator", 1)
	if rec := serveAPI(srv.Handler(), http.MethodPut, "/api/v1/overrides/aux.title-gen?locale=en-US", edited, writer); rec.Code != http.StatusOK {
		t.Fatalf("PUT: %d %s", rec.Code, rec.Body.String())
	}
	ctx := context.Background()
	for _, c := range []struct {
		name, token string
		staged      bool
	}{{"production", tok, false}, {"staging", staging, true}} {
		cs := mcpConnect(t, srv, c.token, nil)
		got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "aux.title-gen", Arguments: map[string]string{"conversation": "x", "locale": "en-US"}})
		if err != nil || strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "staged title generator") != c.staged {
			t.Errorf("%s prompts/get: %v %v, want the draft %v", c.name, got, err, c.staged)
		}
		body := `{"module":"aux.title-gen","locale":"en-US","variables":{"conversation":"x"}}`
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "render", Arguments: map[string]any{"module": "aux.title-gen", "locale": "en-US", "variables": map[string]any{"conversation": "x"}}})
		if got, want := structured(t, c.name+" render", res, err), apiJSON(t, srv, http.MethodPost, "/api/v1/render", body, c.token); !reflect.DeepEqual(got, want) {
			t.Errorf("%s render %v, want the API's %v", c.name, got, want)
		}
	}
}

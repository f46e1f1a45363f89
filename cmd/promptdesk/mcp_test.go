package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// TestMCPOverStdio runs `promptdesk mcp` as a local assistant does (the
// SDK's CommandTransport starts the built binary) beside a `serve` on the
// same database: its prompts are the modules, get renders them and names
// a missing argument, assemble answers what serve's API answers, a read
// token cannot save a draft, and a publish made through serve reaches
// the stdio client as notifications/prompts/list_changed.
func TestMCPOverStdio(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	bin := buildBinary(t)
	newToken := func(scopes, name string) string {
		out, err := cliRun(t, "token", "add", "--scope", scopes, "--database-url", dbURL, name)
		m := tokenLine.FindStringSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("token add: %v\n%s", err, out)
		}
		return m[1]
	}
	reader, writer := newToken("assemble,read", "stdio-reader"), newToken("read,write", "stdio-writer")
	serve := startServe(t, bin, dbURL, "serve")
	serve.waitReady(t)

	// Without a token the command refuses to start, naming the variable.
	cmd := exec.Command(bin, "mcp", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "PROMPTDESK_TOKEN=")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "PROMPTDESK_TOKEN") {
		t.Errorf("mcp without a token: %v\n%s", err, out)
	}

	listChanged := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, &mcp.ClientOptions{
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { listChanged <- struct{}{} },
	})
	cmd = exec.Command(bin, "mcp", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "PROMPTDESK_DATA_DIR="+t.TempDir(), "PROMPTDESK_TOKEN="+reader)
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to promptdesk mcp: %v", err)
	}
	defer cs.Close()

	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if !reflect.DeepEqual(names, lib.IDs()) {
		t.Errorf("prompts %v\nwant the builtin modules %v", names, lib.IDs())
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "aux.title-gen"}); err == nil || !strings.Contains(err.Error(), "{{conversation}}") {
		t.Errorf("get without its argument: %v, want an error naming {{conversation}}", err)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "aux.title-gen", Arguments: map[string]string{"conversation": "A: hello"}})
	if err != nil || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "<conversation>\nA: hello\n</conversation>") {
		t.Errorf("get: %v %v", got, err)
	}

	// assemble answers what serve's API answers.
	request := `{"locale":"en-US","message":"Please translate this note into German","now":"2026-11-29T12:00:00Z"}`
	var args map[string]any
	_ = json.Unmarshal([]byte(request), &args)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "assemble", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("assemble: %v %v", res, err)
	}
	var viaMCP, viaAPI any
	data, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(data, &viaMCP)
	req, _ := http.NewRequest(http.MethodPost, serve.url+"/api/v1/assemble", strings.NewReader(request))
	req.Header.Set("Authorization", "Bearer "+reader)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_ = json.Unmarshal(body, &viaAPI)
	if !reflect.DeepEqual(viaMCP, viaAPI) {
		t.Errorf("assemble over stdio:\n%v\nwant serve's API answer\n%v", viaMCP, viaAPI)
	}

	// A read token may not save a draft.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "save_draft", Arguments: map[string]any{"module": "aux.title-gen", "locale": "en-US", "text": "x"}}); err == nil || !strings.Contains(err.Error(), `"write"`) {
		t.Errorf("save_draft with a read token: %v, want an error naming the write scope", err)
	}

	// A publish through serve reaches the stdio client.
	mod, _ := lib.Module("aux.title-gen", "en-US")
	edited := strings.Replace(mod.Text, "You are the title generator", "You are the stdio title generator", 1)
	for _, step := range []struct{ method, path, body, ifMatch string }{
		{http.MethodPut, "/api/v1/overrides/aux.title-gen?locale=en-US", edited, ""},
		{http.MethodPost, "/api/v1/overrides/aux.title-gen/publish?locale=en-US", "", `"1"`},
	} {
		req, _ := http.NewRequest(step.method, serve.url+step.path, strings.NewReader(step.body))
		req.Header.Set("Authorization", "Bearer "+writer)
		if step.body != "" {
			req.Header.Set("Content-Type", "text/plain; charset=utf-8")
		}
		if step.ifMatch != "" {
			req.Header.Set("If-Match", step.ifMatch)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d %s", step.method, step.path, resp.StatusCode, body)
		}
	}
	select {
	case <-listChanged:
	case <-time.After(15 * time.Second):
		t.Fatal("no notifications/prompts/list_changed within 15 s of serve's publish")
	}
	got, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "aux.title-gen", Arguments: map[string]string{"conversation": "A: hello", "locale": "en-US"}})
	if err != nil || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "stdio title generator") {
		t.Errorf("get after the publish: %v %v, want the published text", got, err)
	}
}

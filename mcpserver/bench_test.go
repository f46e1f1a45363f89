package mcpserver_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library/librarytest"
	"github.com/promptdesk/promptdesk/mcpserver"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// BenchmarkMCP measures the MCP server on the generated library of
// 10,000 ids (librarytest.Large) over the SDK's in-memory transports,
// with a real token store: building the server (a prompt registered per
// module), listing every prompt page by page (100 a page), and getting
// one prompt. Figures in BENCHMARKS.md:
//
//	go test ./mcpserver -run '^$' -bench '^BenchmarkMCP$' -benchtime 10x
func BenchmarkMCP(b *testing.B) {
	ctx := context.Background()
	snap, err := librarytest.Library(librarytest.Large)
	if err != nil {
		b.Fatal(err)
	}
	st, _ := storetest.Open(b)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	served, err := state.Load(ctx, st, snap, log)
	if err != nil {
		b.Fatal(err)
	}
	tokens, err := state.OpenTokens(ctx, st, log, nil)
	if err != nil {
		b.Fatal(err)
	}
	_, secret, err := tokens.Create(domain.WithActor(ctx, "bench"), "bench-mcp", []string{domain.ScopeAssemble, domain.ScopeRead})
	if err != nil {
		b.Fatal(err)
	}
	asm := assembler.New(assembler.Config{CountTokens: true})
	cfg := mcpserver.Config{Served: served, Assembler: asm, Assembly: &state.Assembly{Served: served, Assembler: asm}, Tokens: tokens, Logger: log}
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := mcpserver.New(cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
	srv, err := mcpserver.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	st1, ct := mcp.NewInMemoryTransports()
	go func() { _ = srv.ServeStdio(ctx, st1, secret) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.Run("list-all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, err := range cs.Prompts(ctx, nil) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != len(served.Current().IDs()) {
				b.Fatalf("%d prompts, want %d", n, len(served.Current().IDs()))
			}
		}
	})
	b.Run("list-page", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if res, err := cs.ListPrompts(ctx, nil); err != nil || len(res.Prompts) != mcpserver.DefaultPageSize {
				b.Fatalf("%v %v", res, err)
			}
		}
	})
	id := served.Current().IDs()[len(served.Current().IDs())/2]
	m, _, _ := served.Current().Primary(asm, id)
	args := map[string]string{}
	for _, v := range m.Variables {
		args[v.Name] = "value of " + v.Name
	}
	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: id, Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package assembler_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
)

// Saving an override that would create an include cycle is refused; the
// check follows the override chain and reports the path.
func TestCheckIncludes(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(
		mod{id: "base.a", body: "A {{base.b}}"},
		mod{id: "base.b", body: "B"},
		mod{id: "base.c", body: "C"},
	)...)
	asm := assembler.New(assembler.Config{})
	parse := func(id, body string) *library.Module {
		t.Helper()
		text := "---\nid: " + id + "\nlayer: base\nversion: 1\ntitle: T\ndescription: D\n---\n" + body + "\n"
		m, err := library.Parse("override", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var e *assembler.Error
	err := asm.CheckIncludes(snap, nil, parse("base.b", "B now includes {{base.a}}"), "en-US")
	if !errors.As(err, &e) || e.Code != assembler.CodeIncludeCycle || strings.Join(e.Path, " → ") != "base.b → base.a → base.b" {
		t.Fatalf("got %v, want include_cycle base.b → base.a → base.b", err)
	}
	err = asm.CheckIncludes(snap, nil, parse("base.c", "C {{base.c}}"), "en-US")
	if !errors.As(err, &e) || e.Code != assembler.CodeIncludeCycle || strings.Join(e.Path, " → ") != "base.c → base.c" {
		t.Fatalf("got %v, want include_cycle base.c → base.c", err)
	}
	if err := asm.CheckIncludes(snap, nil, parse("base.c", "C {{base.a}} and {{base.b}}"), "en-US"); err != nil {
		t.Fatalf("a diamond is not a cycle: %v", err)
	}
}

// Includes that repeat each other multiply text; a rendering stops at
// MaxOutputBytes with limit_exceeded instead of running for minutes.
func TestIncludeFanOutIsBounded(t *testing.T) {
	t.Parallel()
	var mods []mod
	for i := range 10 {
		body := strings.Repeat("x", 1000)
		if i < 9 {
			body = strings.Repeat(fmt.Sprintf("{{aux.f%02d}}", i+1), 6)
		}
		mods = append(mods, mod{id: fmt.Sprintf("aux.f%02d", i), body: body})
	}
	snap := newLib(t, withCore(mods...)...)
	_, err := assembler.New(assembler.Config{}).Render(snap, nil, &assembler.RenderRequest{Module: "aux.f00"}, fixedNow)
	var e *assembler.Error
	if !errors.As(err, &e) || e.Code != assembler.CodeLimitExceeded {
		t.Fatalf("got %v, want limit_exceeded", err)
	}
}

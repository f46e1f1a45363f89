package client_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// A runtime importing the client pulls in no web framework, database
// driver or template engine, and of promptdesk only what assembles (the
// assembler, the library and the domain records they share).
func TestImportsNothingOfTheServer(t *testing.T) {
	const module = "github.com/promptdesk/promptdesk/"
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"assembler") {
		t.Fatalf("go list -deps did not list the assembler: %q", deps)
	}
	allowed := []string{module + "assembler", module + "library", module + "domain", module + "client"}
	for _, path := range deps {
		for _, f := range []string{"github.com/labstack/", "github.com/jackc/", "github.com/a-h/templ"} {
			if strings.HasPrefix(path, f) {
				t.Errorf("the client imports %s", path)
			}
		}
		if strings.HasPrefix(path, module) && !slices.ContainsFunc(allowed, func(a string) bool { return path == a || strings.HasPrefix(path, a+"/") }) {
			t.Errorf("the client imports the server's %s", path)
		}
	}
}

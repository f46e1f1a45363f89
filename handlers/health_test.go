package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
)

type pingOK struct{}

func (pingOK) Ping(context.Context) error { return nil }

// brokenFolderOverlay serves a library folder (the builtin library) with
// files broken as named: a YAML error in a module that never loaded
// (line 7, field triggers), an empty module (line 1, no field), and the
// modules given in extra.
func brokenFolderOverlay(t *testing.T, extra map[string]string) (string, *handlers.Overlay) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, library.BuiltinFS()); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"modules/en-US/task-yaml.md":  "---\nid: task.yaml\nlayer: task\nversion: 1\ntitle: T\ndescription: D\ntriggers: [unclosed\n---\nBody.\n",
		"modules/en-US/task-empty.md": "",
	}
	for rel, text := range extra {
		files[rel] = text
	}
	for rel, text := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := reload.New(dir, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	o := handlers.NewOverlay(lib, &slowSource{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := o.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	return dir, o
}

// /readyz lists each broken file of the library folder with every key
// the docs name, field included: "" when the error names no field.
func TestReadyListsBrokenFilesWithField(t *testing.T) {
	dir, o := brokenFolderOverlay(t, nil)
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/readyz", nil), rec)
	if err := (&handlers.Health{DB: pingOK{}, Overlay: o}).Ready(c); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("Ready: %v, %d", err, rec.Code)
	}
	var body struct {
		Library struct {
			Broken []map[string]any `json:"broken"`
		} `json:"library"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"path": filepath.ToSlash(filepath.Join(dir, "modules/en-US/task-empty.md")), "line": 1.0, "field": "", "serving": false},
		{"path": filepath.ToSlash(filepath.Join(dir, "modules/en-US/task-yaml.md")), "line": 7.0, "field": "triggers", "serving": false},
	}
	if len(body.Library.Broken) != len(want) {
		t.Fatalf("broken: %v, want %d entries", body.Library.Broken, len(want))
	}
	for i, w := range want {
		got := body.Library.Broken[i]
		if len(got) != 5 || got["error"] == nil {
			t.Errorf("entry %d has keys %v, want path, line, field, error, serving", i, got)
		}
		for k, v := range w {
			if got[k] != v {
				t.Errorf("entry %d: %s = %#v, want %#v", i, k, got[k], v)
			}
		}
	}
}

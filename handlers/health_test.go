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
	"slices"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/components"
)

type pingOK struct{}

func (pingOK) Ping(context.Context) error { return nil }

func (pingOK) WriteFailure() (*domain.ResourceError, time.Time, bool) { return nil, time.Time{}, false }

// brokenFolderOverlay serves a library folder (the builtin library) with
// files broken as named: a YAML error in a module that never loaded
// (line 7, field triggers) and an empty module (line 1, no field).
func brokenFolderOverlay(t *testing.T) (string, *state.Served) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, library.BuiltinFS()); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"modules/en-US/task-yaml.md":  "---\nid: task.yaml\nlayer: task\nversion: 1\ntitle: T\ndescription: D\ntriggers: [unclosed\n---\nBody.\n",
		"modules/en-US/task-empty.md": "",
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
	o, err := state.Open(t.Context(), lib, noOverrides{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return dir, o
}

// noOverrides is a state.Source with no operator state.
type noOverrides struct{}

func (noOverrides) ReadOperatorState(context.Context) (domain.OperatorState, error) {
	return domain.OperatorState{}, nil
}

// /readyz lists each broken file of the library folder with every key
// the docs name, field included: "" when the error names no field.
func TestReadyListsBrokenFilesWithField(t *testing.T) {
	dir, o := brokenFolderOverlay(t)
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/readyz", nil), rec)
	if err := (&handlers.Health{DB: pingOK{}, Served: o}).Ready(c); err != nil || rec.Code != http.StatusOK {
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
		{"path": filepath.ToSlash(filepath.Join(dir, "modules/en-US/task-empty.md")), "line": 1.0, "field": "", "serving": false, "instead": ""},
		{"path": filepath.ToSlash(filepath.Join(dir, "modules/en-US/task-yaml.md")), "line": 7.0, "field": "triggers", "serving": false, "instead": ""},
	}
	if len(body.Library.Broken) != len(want) {
		t.Fatalf("broken: %v, want %d entries", body.Library.Broken, len(want))
	}
	for i, w := range want {
		got := body.Library.Broken[i]
		if len(got) != 6 || got["error"] == nil {
			t.Errorf("entry %d has keys %v, want path, line, field, error, serving, instead", i, got)
		}
		for k, v := range w {
			if got[k] != v {
				t.Errorf("entry %d: %s = %#v, want %#v", i, k, got[k], v)
			}
		}
	}
}

// The banner gets the folder once and each broken file's path relative
// to it, with line, field and whether it serves.
func TestLibraryBannerPathsRelativeToTheFolder(t *testing.T) {
	dir, o := brokenFolderOverlay(t)
	var folder string
	var files []components.BrokenFile
	h := handlers.LibraryBanner(o)(func(c echo.Context) error {
		folder, files = components.LibraryBroken(c.Request().Context())
		return nil
	})
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/", nil), httptest.NewRecorder())
	if err := h(c); err != nil {
		t.Fatal(err)
	}
	want := []components.BrokenFile{
		{Path: "modules/en-US/task-empty.md", Line: 1, Message: "the file is empty: a module starts with a frontmatter block between --- lines"},
		{Path: "modules/en-US/task-yaml.md", Line: 7, Field: "triggers", Message: `frontmatter is not valid YAML: the list opened with "[" on this line is never closed with "]"`},
	}
	if folder != dir || !slices.Equal(files, want) {
		t.Errorf("folder %q, files %+v\nwant %q, %+v", folder, files, dir, want)
	}
}

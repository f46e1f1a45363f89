package assembler

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/library"
)

//go:embed examples/*.json
var examplesFS embed.FS

// Example is one of the app's own example scenarios: a name, a one-line
// description and an assemble request (API JSON). The console seeds them
// as saved scenarios on first start.
type Example struct {
	ID          string          `json:"-"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Request     json.RawMessage `json:"request"`
}

// Examples returns the embedded example scenarios, ordered by id (the
// file name without .json). Each request is checked with DecodeRequest.
func Examples() ([]Example, error) {
	files, err := fs.ReadDir(examplesFS, "examples")
	if err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(files))
	for _, f := range files {
		data, err := examplesFS.ReadFile(path.Join("examples", f.Name()))
		if err != nil {
			return nil, err
		}
		var ex Example
		if err := json.Unmarshal(data, &ex); err != nil {
			return nil, fmt.Errorf("example %s: %w", f.Name(), err)
		}
		if _, err := DecodeRequest(ex.Request); err != nil {
			return nil, fmt.Errorf("example %s: %w", f.Name(), err)
		}
		ex.ID = strings.TrimSuffix(f.Name(), ".json")
		out = append(out, ex)
	}
	return out, nil
}

// Warm assembles each example once with snap and no operator state, so
// that the first real request does not wait for the tokenizer's
// vocabulary to load or for the caches to fill. An example the library
// cannot assemble (a folder without some builtin module) is skipped: its
// error is the request's to report, not the warm-up's.
func (a *Assembler) Warm(snap *library.Snapshot) {
	examples, err := Examples()
	if err != nil {
		return
	}
	for _, ex := range examples {
		if req, err := DecodeRequest(ex.Request); err == nil {
			_, _ = a.Assemble(snap, nil, req, time.Unix(0, 0).UTC())
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/text/language"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/web"
)

// importFormat is the only --from value for now: a folder in the library
// layout, as export writes it. The other importers of S1 (Agent Skills,
// MaiBot, WeKnora, Jinja template sets) come with issue 6.
const importFormat = "promptdesk"

// cliActor is who the CLI's changes are recorded as (audit log, revisions).
const cliActor = "cli"

// moduleFile is one candidate file of an import.
type moduleFile struct {
	path   string // as shown in the report: DIR/modules/<locale>/<file>
	folder string // the locale folder's name; "" for a file directly in modules/
	size   int64
}

// importModules saves every DIR/modules/<locale>/*.md as the override of
// its id in that locale (S1, S2, issue 4 item 7). Each file is checked
// like an edit in the console (it parses, its id matches the file name,
// it keeps the builtin's layer, its placeholders are known, its includes
// make no cycle) and ends as exactly one of imported, skipped or failed,
// printed with its path (and line, for a failure). It returns an error,
// so the exit status is 1, when any file failed.
//
// Imports arrive as drafts (issue 4 item 7): an imported text is a new
// revision (action import) that is not served until an operator publishes
// it (module page, or POST /api/v1/overrides/{id}/publish); what was
// served before keeps serving. A file identical to the override's head
// (its draft, if any) is skipped.
func (a *app) importModules(ctx context.Context) error {
	if from := a.cli.Import.From; from != importFormat {
		return fmt.Errorf("--from %q: unknown format; only %q is supported for now (module files in DIR/modules/<locale>/<layer>-<name>.md, as export writes them); the other formats come with issue 6",
			from, importFormat)
	}
	dir := a.cli.Import.Dir
	files, err := listModuleFiles(dir)
	if err != nil {
		return err
	}
	snap, asm, err := a.parts(false)
	if err != nil {
		return err
	}
	log := a.logger()
	st, closeStore, err := a.openStore(ctx, log)
	if err != nil {
		return err
	}
	defer closeStore()
	ctx = store.WithActor(ctx, cliActor)

	im := &importer{st: st, snap: snap, asm: asm, fallback: a.cli.FallbackLocale}
	// The state includes the overrides saved so far, so that include
	// cycles among the imported files are found too.
	reload := func() (err error) {
		im.state, err = web.LoadState(ctx, st, snap, log)
		return err
	}
	if err := reload(); err != nil {
		return err
	}
	var imported, skipped, failed int
	for _, f := range files {
		res, err := im.file(ctx, f)
		if err != nil {
			fmt.Fprintf(a.stdout, "imported %d, skipped %d, failed %d before stopping at %s\n", imported, skipped, failed, f.path)
			return err
		}
		fmt.Fprintf(a.stdout, "%-8s %s\n", res.outcome, res.detail)
		switch res.outcome {
		case outcomeImported:
			imported++
			if err := reload(); err != nil {
				return err
			}
		case outcomeSkipped:
			skipped++
		default:
			failed++
		}
	}
	fmt.Fprintf(a.stdout, "imported %d, skipped %d, failed %d of %d files from %s\n", imported, skipped, failed, len(files), dir)
	if failed > 0 {
		return fmt.Errorf("import: %d of %d files failed", failed, len(files))
	}
	return nil
}

// listModuleFiles lists DIR/modules/<locale>/*.md in name order, and any
// .md file directly in DIR/modules (it will fail: it has no locale).
// Other files are not module files and are left alone, as the library
// loader does.
func listModuleFiles(dir string) ([]moduleFile, error) {
	root := filepath.Join(dir, "modules")
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("%s: no modules folder: expected module files in %s: %w",
			dir, filepath.Join(root, "<locale>", "<layer>-<name>.md"), err)
	}
	var files []moduleFile
	add := func(folder string, e os.DirEntry) error {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		files = append(files, moduleFile{path: filepath.Join(root, folder, e.Name()), folder: folder, size: info.Size()})
		return nil
	}
	for _, e := range entries {
		if !e.IsDir() {
			if err := add("", e); err != nil {
				return nil, err
			}
			continue
		}
		inner, err := os.ReadDir(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range inner {
			if err := add(e.Name(), f); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

// The outcomes of one file.
const (
	outcomeImported = "imported"
	outcomeSkipped  = "skipped"
	outcomeFailed   = "failed"
)

// importResult is the report line of one file: its outcome and the path
// with what happened (for a failure: path:line: field: reason).
type importResult struct {
	outcome, detail string
}

// importer checks and saves files against one library snapshot.
type importer struct {
	st       *store.Store
	snap     *library.Snapshot
	asm      *assembler.Assembler
	state    *assembler.State
	fallback string
}

// file checks and saves one file. A problem with the file is a failed
// result; the error is for the database failing, which stops the import.
func (im *importer) file(ctx context.Context, f moduleFile) (importResult, error) {
	fail := func(line int, field, msg string) (importResult, error) {
		return importResult{outcomeFailed, (&library.FileError{File: f.path, Line: line, Field: field, Msg: msg}).Error()}, nil
	}
	if f.folder == "" {
		return fail(0, "", "not in a locale folder: module files go in modules/<locale>/")
	}
	tag, err := language.Parse(f.folder)
	if err != nil {
		return fail(0, "", fmt.Sprintf("folder %q is not a BCP 47 locale tag", f.folder))
	}
	locale := tag.String()
	if f.size > library.MaxModuleBytes {
		return fail(0, "", fmt.Sprintf("module is %d bytes; the limit is %d bytes (256 KiB)", f.size, library.MaxModuleBytes))
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return fail(0, "", err.Error())
	}

	m, err := library.Parse(f.path, data)
	if err != nil {
		return importResult{outcomeFailed, err.Error()}, nil
	}
	if want, _ := library.IDFromFileName(filepath.Base(f.path)); m.ID != want {
		return fail(m.FieldLine("id"), "id", fmt.Sprintf("id %q does not match the file name %s (expected id %q)", m.ID, filepath.Base(f.path), want))
	}
	if b, ok := im.snap.Any(m.ID); ok && m.Layer != b.Layer {
		return fail(m.FieldLine("layer"), "layer", fmt.Sprintf("an override may not change the layer; it must stay %q (S2)", b.Layer))
	}
	if err := im.snap.CheckPlaceholders(m); err != nil {
		return importResult{outcomeFailed, err.Error()}, nil
	}
	if err := im.asm.CheckIncludes(im.snap, im.state, m, locale); err != nil {
		return fail(includeLine(m, err), "body", err.Error())
	}

	base, hasBuiltin := im.builtinBase(m.ID, locale)
	if hasBuiltin && m.Text == base.Text {
		return importResult{outcomeSkipped, fmt.Sprintf("%s: identical to the builtin %s text (version %d); nothing stored", f.path, base.Locale, base.Version)}, nil
	}
	head, err := im.st.GetOverride(ctx, m.ID, locale)
	baseRevision := head.Revision
	switch {
	case errors.Is(err, library.ErrNotFound):
		baseRevision = 0
	case err != nil:
		return importResult{}, err
	case head.Text == m.Text:
		return importResult{outcomeSkipped, fmt.Sprintf("%s: identical to the override of %s (%s) at revision %d; nothing stored", f.path, m.ID, head.Locale, head.Revision)}, nil
	}

	o := store.Override{
		ModuleID: m.ID,
		Locale:   locale,
		Text:     m.Text,
		Title:    m.Title,
		Version:  m.Version,
		Author:   cliActor,
		Action:   store.ActionImport,
	}
	if o.Fields, err = json.Marshal(m.Frontmatter); err != nil {
		return importResult{}, err
	}
	if hasBuiltin {
		o.BasedOnVersion, o.BaseSnapshot, o.BaseHash = base.Version, base.Text, store.TextHash(base.Text)
	}
	saved, err := im.st.SaveOverride(ctx, o, baseRevision)
	switch {
	case errors.Is(err, library.ErrConflict) || errors.Is(err, library.ErrNotFound):
		return fail(0, "", fmt.Sprintf("the override changed while importing (%v); run the import again", err))
	case errors.Is(err, library.ErrInvalid):
		return fail(0, "", err.Error())
	case err != nil:
		return importResult{}, err
	}
	return importResult{outcomeImported, fmt.Sprintf("%s: %s (%s) saved as draft revision %d (not served until published)", f.path, saved.ModuleID, saved.Locale, saved.Revision)}, nil
}

// builtinBase is the builtin an override of id in locale is based on: the
// locale's, else the fallback locale's, else any locale's (as the
// console's editor does). ok is false for a user module.
func (im *importer) builtinBase(id, locale string) (*library.Module, bool) {
	if m, ok := im.snap.Module(id, locale); ok {
		return m, true
	}
	if m, ok := im.snap.Module(id, im.fallback); ok {
		return m, true
	}
	return im.snap.Any(id)
}

// includeLine is the line of the placeholder that starts an include
// cycle, or the body's first line.
func includeLine(m *library.Module, err error) int {
	var ae *assembler.Error
	if errors.As(err, &ae) && len(ae.Path) > 1 {
		for _, p := range m.Placeholders {
			if p.Name == ae.Path[1] {
				return m.BodyLine + p.Line - 1
			}
		}
	}
	return m.BodyLine
}

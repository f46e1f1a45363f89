package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/importer"
	"github.com/promptdesk/promptdesk/library/lint"
	"github.com/promptdesk/promptdesk/state"
)

// importFormat is the --from value of a folder in the library layout, as
// export writes it; the other formats are converted by library/importer.
const importFormat = "promptdesk"

// cliActor is who the CLI's changes are recorded as (audit log, revisions).
const cliActor = "cli"

// moduleFile is one candidate file of an import.
type moduleFile struct {
	path   string // as shown in the report: DIR/modules/<locale>/<file>
	folder string // the locale folder's name; "" for a file directly in modules/
	size   int64
}

// importModules runs `import --from FORMAT SRC` (docs/importers.md). The
// promptdesk format is a folder in the library layout: every
// SRC/modules/<locale>/*.md is saved as the override of its id in that
// locale. Each file is checked like an edit in the
// console (it parses, its id matches the file name, it keeps the
// builtin's layer, its placeholders are known, its includes make no
// cycle) and ends as exactly one of imported, skipped or failed, printed
// with its path (and line, for a failure). The other formats are converted
// by library/importer and go either to module files (--out DIR) or through
// the same checks into the database (--into db); the report lists every
// source file or entry as imported, not imported (with the reason and
// line), used (a manifest) or skipped (not part of the format), with the
// findings: rules of the source's own format that an item breaks. The
// error, and so exit status 1, says that something did not come in: a
// file failed, or a source item was not imported; exit status 2 says that
// everything came in but there are findings.
//
// Imports into the database arrive as drafts: an imported text is a new
// revision (action import) that is not served until an operator publishes
// it (module page, or POST /api/v1/overrides/{id}/publish); what was
// served before keeps serving. A file identical to the override's head
// (its draft, if any) is skipped.
func (a *app) importModules(ctx context.Context) error {
	c := a.cli.Import
	if c.Into != "" && c.Into != intoDB {
		return fmt.Errorf("--into %q: the only target is %q (drafts in Postgres); write files with --out DIR", c.Into, intoDB)
	}
	if c.From == importFormat {
		switch {
		case c.Out != "":
			return fmt.Errorf("--out: a %s folder is in the library layout already; import it --into %s (the default)", importFormat, intoDB)
		case c.Layer != "" || c.Locale != "" || c.Hidden || c.MaiBot != "":
			return fmt.Errorf("--layer, --locale, --hidden and --maibot-locale apply to the converted formats (%s), not to %s", formatNames(), importFormat)
		}
		return a.importLibrary(ctx)
	}
	if !slices.Contains(importer.Formats, importer.Format(c.From)) {
		return fmt.Errorf("--from %q: unknown format (known: %s, %s)", c.From, importFormat, formatNames())
	}
	switch {
	case c.Out != "" && c.Into != "":
		return errors.New("--out and --into: choose one, module files in a folder or drafts in Postgres")
	case c.Out == "" && c.Into == "":
		return fmt.Errorf("say where the modules go: --out DIR (module files in the library layout) or --into %s (drafts in Postgres)", intoDB)
	case c.WithBuiltin && c.Out == "":
		return errors.New("--with-builtin goes with --out DIR (it writes the builtin library into that folder)")
	case c.Force && c.Out == "":
		return errors.New("--force applies to --out only")
	}
	res, err := importer.Import(importer.Format(c.From), os.DirFS(c.Src), importer.Options{Layer: library.Layer(c.Layer), Locale: c.Locale, Hidden: c.Hidden, MaiBotLocale: c.MaiBot, FallbackLocale: a.cli.FallbackLocale})
	if err != nil {
		return fmt.Errorf("%s: %w", c.Src, err)
	}
	if c.Out != "" {
		err = a.importToFolder(res)
	} else {
		err = a.importToDB(ctx, res)
	}
	if err != nil {
		return err
	}
	if n := res.Counts()[importer.StatusNotImported]; n > 0 {
		return fmt.Errorf("import: %d of %d source items not imported", n, len(res.Outcomes))
	}
	if n := res.Findings(); n > 0 {
		return &exitError{importExitFindings, fmt.Errorf("import: everything came in, but the source breaks %d rule(s) of its own format (the finding: lines)", n)}
	}
	return nil
}

// importExitFindings is the exit status of an import whose items all
// came in but whose source breaks rules of its own format (findings).
const importExitFindings = 2

// intoDB is the --into value that saves modules as drafts in Postgres.
const intoDB = "db"

func formatNames() string {
	names := make([]string, len(importer.Formats))
	for i, f := range importer.Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// importToFolder writes the converted modules under --out (refusing to
// overwrite without --force), prints the report and checks that the
// folder loads as a library.
func (a *app) importToFolder(res *importer.Result) error {
	c := a.cli.Import
	res.Report(a.stdout, c.Src)
	if err := res.WriteDir(c.Out, c.Force); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %d module files to %s\n", len(res.Modules), filepath.Join(c.Out, "modules"))
	if c.WithBuiltin {
		n, shadowed, err := res.WriteBuiltin(c.Out)
		if err != nil {
			return fmt.Errorf("--with-builtin: %w", err)
		}
		fmt.Fprintf(a.stdout, "wrote %d builtin library files to %s (files there already kept)\n", n, c.Out)
		if len(shadowed) > 0 {
			fmt.Fprintf(a.stdout, "builtin modules left out because an imported module has their id: %s\n", strings.Join(shadowed, ", "))
		}
	}
	if len(res.Modules) == 0 && !c.WithBuiltin {
		return nil
	}
	if _, err := library.LoadDir(c.Out); err != nil {
		return fmt.Errorf("%s does not load as a library after the import:\n%w", c.Out, err)
	}
	return nil
}

// importToDB saves every converted module as a draft override (or user
// module) like the promptdesk format's files, then prints the report. A
// module refused by the checks turns its source item into not imported.
func (a *app) importToDB(ctx context.Context, res *importer.Result) error {
	im, closeStore, err := a.newImporter(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	ctx = domain.WithActor(ctx, cliActor)
	byPath := map[string]importer.Module{}
	for _, m := range res.Modules {
		byPath[m.Path] = m
	}
	type pending struct {
		outcome int
		module  importer.Module
	}
	var saves []pending
	for k, o := range res.Outcomes {
		if o.Status != importer.StatusImported {
			continue
		}
		for _, p := range o.Modules {
			saves = append(saves, pending{k, byPath[p]})
		}
	}
	// A module goes in before the modules that include it, so that the
	// include names a stored module when the includer is checked.
	depth := includeDepths(res.Modules)
	slices.SortStableFunc(saves, func(a, b pending) int { return depth[a.module.ID] - depth[b.module.ID] })
	for _, sv := range saves {
		o, m := &res.Outcomes[sv.outcome], sv.module
		r, err := im.save(ctx, m.Path, m.Locale, []byte(m.Text))
		if err != nil {
			res.Report(a.stdout, a.cli.Import.Src)
			return err
		}
		if r.outcome == outcomeFailed {
			o.Status = importer.StatusNotImported
			o.Reasons = append(o.Reasons, importer.Note{Msg: "refused by the database import: " + r.detail})
			continue
		}
		o.Notes = append(o.Notes, importer.Note{Msg: r.detail})
	}
	res.Report(a.stdout, a.cli.Import.Src)
	return nil
}

// includeDepths gives each imported module id its depth among the
// imported modules' includes: 0 when it includes none of them, else one
// more than the deepest it includes. A cycle counts once.
func includeDepths(modules []importer.Module) map[string]int {
	includes := map[string][]string{}
	for _, m := range modules {
		if parsed, err := library.Parse(m.Path, []byte(m.Text)); err == nil {
			for _, p := range parsed.Placeholders {
				includes[m.ID] = append(includes[m.ID], p.Name)
			}
		}
	}
	depth := map[string]int{}
	var visit func(id string, seen map[string]bool) int
	visit = func(id string, seen map[string]bool) int {
		if d, ok := depth[id]; ok {
			return d
		}
		if seen[id] {
			return 0
		}
		seen[id] = true
		d := 0
		for _, inc := range includes[id] {
			if _, imported := includes[inc]; imported || slices.ContainsFunc(modules, func(m importer.Module) bool { return m.ID == inc }) {
				d = max(d, visit(inc, seen)+1)
			}
		}
		depth[id] = d
		return d
	}
	for _, m := range modules {
		visit(m.ID, map[string]bool{})
	}
	return depth
}

// importLibrary imports a folder in the library layout (--from promptdesk).
func (a *app) importLibrary(ctx context.Context) error {
	dir := a.cli.Import.Src
	files, err := listModuleFiles(dir)
	if err != nil {
		return err
	}
	im, closeStore, err := a.newImporter(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	ctx = domain.WithActor(ctx, cliActor)
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

// newImporter loads the library, opens the store and the write path of
// overrides over them.
func (a *app) newImporter(ctx context.Context) (*dbImporter, func(), error) {
	snap, asm, err := a.parts(false)
	if err != nil {
		return nil, nil, err
	}
	log := a.logger()
	st, closeStore, err := a.openStore(ctx, log)
	if err != nil {
		return nil, nil, err
	}
	served, err := state.Load(ctx, st, snap, log)
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	im := &dbImporter{overrides: &state.Overrides{Store: st, Served: served, Assembler: asm, Log: log, Checklist: lint.Lint}}
	return im, closeStore, nil
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

// dbImporter saves module texts through the write path every other
// entry point uses, as drafts recorded with action import. Each save
// refreshes the state it checks against, so include cycles among the
// imported modules are found too.
type dbImporter struct {
	overrides *state.Overrides
}

// file checks and saves one file. A problem with the file is a failed
// result; the error is for the database failing, which stops the import.
func (im *dbImporter) file(ctx context.Context, f moduleFile) (importResult, error) {
	fail := func(msg string) (importResult, error) {
		return importResult{outcomeFailed, (&library.FileError{File: f.path, Msg: msg}).Error()}, nil
	}
	if f.folder == "" {
		return fail("not in a locale folder: module files go in modules/<locale>/")
	}
	locale, err := library.CanonicalLocale(f.folder)
	if err != nil {
		return fail("folder " + library.LocaleProblem(f.folder))
	}
	if f.size > library.MaxModuleBytes {
		return fail(library.TooLarge(int(f.size)))
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return fail(err.Error())
	}
	return im.save(ctx, f.path, locale, data)
}

// save checks one module text like an edit in the console and saves it as
// a draft revision of the override of its id in locale, on top of its
// head (an import replaces what is there; an edit keeps its base). path
// names the text in the result and must end in the module's file name.
func (im *dbImporter) save(ctx context.Context, path, locale string, data []byte) (importResult, error) {
	fail := func(line int, field, msg string) (importResult, error) {
		return importResult{outcomeFailed, (&library.FileError{File: path, Line: line, Field: field, Msg: msg}).Error()}, nil
	}
	// The id comes from the text: parse it first to know which override
	// this is, and that it matches the file name.
	m, err := library.Parse(path, data)
	if err != nil {
		return importResult{outcomeFailed, err.Error()}, nil
	}
	if want, _ := library.IDFromFileName(filepath.Base(path)); m.ID != want {
		return fail(m.FieldLine("id"), "id", fmt.Sprintf("id %q does not match the file name %s (expected id %q)", m.ID, filepath.Base(path), want))
	}
	head := 0
	if h, ok := im.overrides.Served.Current().Head(m.ID, locale); ok {
		head = h.Revision
	}
	out, err := im.overrides.Save(ctx, state.Edit{ID: m.ID, Locale: locale, Text: string(data), Revision: head,
		Action: domain.ActionImport})
	if err != nil {
		return importResult{}, err
	}
	switch out.Kind {
	case state.OutcomeInvalid:
		e := out.Errors[0]
		return fail(e.Line, e.Field, strings.TrimPrefix(e.Msg, e.Field+": "))
	case state.OutcomeEqualsBuiltin:
		return importResult{outcomeSkipped, fmt.Sprintf("%s: identical to the builtin %s text (version %d); nothing stored", path, out.Builtin.Locale, out.Builtin.Version)}, nil
	case state.OutcomeUnchanged:
		return importResult{outcomeSkipped, fmt.Sprintf("%s: identical to the override of %s (%s) at revision %d; nothing stored", path, m.ID, out.Head.Locale, out.Head.Revision)}, nil
	case state.OutcomeConflict:
		return fail(0, "", fmt.Sprintf("the override changed while importing (%s); run the import again", out.Reason))
	}
	saved := out.Saved
	return importResult{outcomeImported, fmt.Sprintf("%s: %s (%s) saved as draft revision %d (not served until published)", path, saved.ModuleID, saved.Locale, saved.Revision)}, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

// export writes every override as a module file in the library layout,
// DIR/modules/<locale>/<layer>-<name>.md, byte for byte as stored. These
// are the overrides ListOverrides returns, the ones served; once drafts
// exist, only published texts belong here. Nothing is written when a file
// exists already, unless --force.
func (a *app) export(ctx context.Context) error {
	out := a.cli.Export.Out
	log := a.logger()
	st, closeStore, err := a.openStore(ctx, log)
	if err != nil {
		return err
	}
	defer closeStore()
	list, err := st.ListOverrides(ctx)
	if err != nil {
		return err
	}

	// Every path is known and checked before the first write, so a refusal
	// leaves the folder as it was.
	paths := make([]string, len(list))
	var existing []string
	for i, o := range list {
		p, err := exportPath(out, o)
		if err != nil {
			return err
		}
		paths[i] = p
		if _, err := os.Lstat(p); err == nil {
			existing = append(existing, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if len(existing) > 0 && !a.cli.Export.Force {
		return fmt.Errorf("%d file(s) exist already, nothing written (use --force to overwrite):\n  %s",
			len(existing), strings.Join(existing, "\n  "))
	}

	for i, o := range list {
		if err := os.MkdirAll(filepath.Dir(paths[i]), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(paths[i], []byte(o.Text), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "wrote %s (%s, %s, revision %d)\n", paths[i], o.ModuleID, o.Locale, o.Revision)
	}
	// Drafts are not served, so they are not exported; say which exist.
	drafts, err := st.ListDrafts(ctx)
	if err != nil {
		return err
	}
	for _, d := range drafts {
		if d.PublishedRevision > 0 {
			fmt.Fprintf(a.stdout, "draft    %s (%s) revision %d is not published: the file holds published revision %d\n", d.ModuleID, d.Locale, d.Revision, d.PublishedRevision)
		} else {
			fmt.Fprintf(a.stdout, "draft    %s (%s) revision %d was never published: not exported\n", d.ModuleID, d.Locale, d.Revision)
		}
	}
	fmt.Fprintf(a.stdout, "exported %d overrides to %s\n", len(list), out)
	return nil
}

// exportPath is the file of o under out. Ids and locales were checked when
// saved; a value that would leave the locale folder is refused anyway.
func exportPath(out string, o domain.Override) (string, error) {
	name := library.FileName(o.ModuleID)
	if !library.ValidName(o.ModuleID) || o.Locale == "" || o.Locale == "." || o.Locale == ".." ||
		strings.ContainsAny(o.Locale, `/\`) {
		return "", fmt.Errorf("override %s (%s) has no safe file name: %w", o.ModuleID, o.Locale, library.ErrInvalid)
	}
	return filepath.Join(out, "modules", o.Locale, name), nil
}

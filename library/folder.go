package library

import (
	"errors"
	"fmt"
	"io/fs"
)

// A library folder may hold symbolic links: a locale folder, a module or
// a label file that is a link is read through it, by the loader, lint and
// the reloader alike. These helpers keep them in step.

// IsDir reports whether e, the entry name of fsys, is a folder, following
// a symbolic link (a link to a folder is one; a dangling link is not).
func IsDir(fsys fs.FS, name string, e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.IsDir()
	}
	st, err := fs.Stat(fsys, name)
	return err == nil && st.IsDir()
}

// ReadProblem says why the file name of fsys could not be read (err, from
// reading or stat-ing it through any links), without the path, which the
// *FileError carrying it names: a symbolic link whose target does not
// exist says so and names the target.
func ReadProblem(fsys fs.FS, name string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		if target, lerr := fs.ReadLink(fsys, name); lerr == nil {
			return fmt.Sprintf("broken symbolic link: its target %s does not exist", target)
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return "cannot read the file: " + err.Error()
}

// DanglingLink reports whether name of fsys is a symbolic link whose
// target does not exist, and then why, as ReadProblem says it: a locale,
// modules or labels folder that is such a link is a broken entry, not a
// folder that was deleted.
func DanglingLink(fsys fs.FS, name string) (string, bool) {
	if _, err := fs.ReadLink(fsys, name); err != nil {
		return "", false
	}
	_, err := fs.Stat(fsys, name)
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	return ReadProblem(fsys, name, err), true
}

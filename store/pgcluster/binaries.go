package pgcluster

import (
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// ErrNoBinaries is returned by Start when initdb and pg_ctl are neither on
// PATH nor in a standard Debian or Homebrew location.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found: " +
	"install the PostgreSQL server package (Debian/Ubuntu: apt-get install postgresql; " +
	"macOS: brew install postgresql) or set DATABASE_URL to an existing server")

// searchGlobs are where server packages install initdb and pg_ctl off PATH.
var searchGlobs = []string{
	"/usr/lib/postgresql/*/bin",
	"/opt/homebrew/opt/postgresql*/bin",
	"/usr/local/opt/postgresql*/bin",
}

var majorVersion = regexp.MustCompile(`\d+`)

// findBinaries returns the paths of pg_ctl and initdb: from PATH when both
// are there, else from the highest-versioned folder matching globs.
func findBinaries(globs []string) (pgCtl, initdb string, err error) {
	pgCtl, errCtl := exec.LookPath("pg_ctl")
	initdb, errInit := exec.LookPath("initdb")
	if errCtl == nil && errInit == nil {
		return pgCtl, initdb, nil
	}
	type candidate struct {
		dir     string
		version int
	}
	var found []candidate
	for _, g := range globs {
		dirs, _ := filepath.Glob(g) // the patterns are constant and valid
		for _, d := range dirs {
			if !isExecutable(filepath.Join(d, "pg_ctl")) || !isExecutable(filepath.Join(d, "initdb")) {
				continue
			}
			// The version is the first number in the folder above bin:
			// ".../postgresql/16/bin", ".../postgresql@16/bin"; none counts as 0.
			v, _ := strconv.Atoi(majorVersion.FindString(filepath.Base(filepath.Dir(d))))
			found = append(found, candidate{d, v})
		}
	}
	if len(found) == 0 {
		return "", "", ErrNoBinaries
	}
	best := slices.MaxFunc(found, func(a, b candidate) int { return a.version - b.version })
	return filepath.Join(best.dir, "pg_ctl"), filepath.Join(best.dir, "initdb"), nil
}

func isExecutable(path string) bool {
	_, err := exec.LookPath(path) // with a slash in path, LookPath only checks the file
	return err == nil
}

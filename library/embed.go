package library

import (
	"embed"
	"io/fs"
)

// builtinFS holds the builtin library: modules/<locale>/*.md and
// labels/<locale>.yaml.
//
//go:embed modules labels
var builtinFS embed.FS

// BuiltinFS returns the files of the builtin library (read-only) in the
// folder layout LoadDir reads (modules/<locale>/*.md, labels/<locale>.yaml),
// for tools that read the files themselves (lint) and for writing it out
// as the start of a library folder.
func BuiltinFS() fs.FS { return builtinFS }

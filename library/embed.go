package library

import (
	"embed"
	"io/fs"
)

// builtinFS holds the builtin library (S8): modules/<locale>/*.md and
// labels/<locale>.yaml.
//
//go:embed modules labels
var builtinFS embed.FS

// BuiltinFS returns the embedded builtin library's files (read-only), in
// the layout Load reads, for tools that look at the files themselves such
// as the lint.
func BuiltinFS() fs.FS { return builtinFS }

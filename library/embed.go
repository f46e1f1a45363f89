package library

import "embed"

// builtinFS holds the builtin library (S8): modules/<locale>/*.md and
// labels/<locale>.yaml.
//
//go:embed modules labels
var builtinFS embed.FS

package library

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// Upstream names where an imported module's text came from: the external
// catalogue (Source, a name such as "claude-code"), the text's own name
// there ("Tool Description: Bash") and the catalogue's version of it
// ("2.1.240"), each as written. It is the frontmatter key `upstream`
// ({source, name, version}; source required, the others optional, each one
// line). It is a record for people: the loader and the assembler do not
// read it.
type Upstream struct {
	Source  string `json:"source"`
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// String is "source · name · version", the parts present.
func (u *Upstream) String() string {
	if u == nil {
		return ""
	}
	parts := []string{u.Source}
	for _, s := range []string{u.Name, u.Version} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}

// UpstreamFields are the keys of the upstream mapping.
var UpstreamFields = []FieldDoc{
	{Name: "source", Description: "the external catalogue the text came from, a name such as claude-code", Required: true},
	{Name: "name", Description: "the text's name in that catalogue"},
	{Name: "version", Description: "the catalogue's version of the text, as written there"},
}

// upstreamField reads the upstream mapping; errs has each bad key's
// problem, and the value is nil when there is any.
func upstreamField(file string, n ast.Node) (*Upstream, FileErrors) {
	kvs, err := asMapping(file, "upstream", n)
	if err != nil {
		return nil, fileErrors(file, err)
	}
	var u Upstream
	var errs FileErrors
	seen := map[string]bool{} // the YAML parser refuses a key given twice
	for _, kv := range kvs {
		k := kv.Key.String()
		field := "upstream." + k
		bad := func(msg string) {
			errs = append(errs, &FileError{File: file, Line: frontLine(kv.Key), Field: field, Msg: msg})
		}
		seen[k] = true
		var dst *string
		switch k {
		case "source":
			dst = &u.Source
		case "name":
			dst = &u.Name
		case "version":
			dst = &u.Version
		default:
			bad("unknown field (allowed: " + fieldNames(UpstreamFields) + ")")
			continue
		}
		read := stringField
		if k == "source" {
			read = nameField
		}
		s, err := read(file, field, kv.Value)
		if err != nil {
			errs = append(errs, fileErrors(file, err)...)
			continue
		}
		switch {
		case k == "source" && NameProblem(s) != "":
			bad(fmt.Sprintf("%q: %s", s, NameProblem(s)))
		case strings.TrimSpace(s) == "":
			bad("must not be empty")
		case strings.ContainsAny(s, "\n"):
			bad("is one line")
		default:
			*dst = s
		}
	}
	if !seen["source"] && len(errs) == 0 {
		errs = append(errs, &FileError{File: file, Line: frontLine(n), Field: "upstream.source", Msg: "missing required field source"})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return &u, nil
}

// fieldNames joins the names of docs with commas, for "allowed: …".
func fieldNames(docs []FieldDoc) string {
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

package importer

import (
	"errors"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// yamlField is one key of a YAML mapping with its 1-based line in the
// source file.
type yamlField struct {
	key   string
	line  int
	value ast.Node
}

// parseYAML parses one YAML document whose first line is line first of
// the source file. The error is a Note with the source line.
func parseYAML(text string, first int) (ast.Node, *Note) {
	f, err := parser.ParseBytes([]byte(text), 0)
	if err != nil {
		n := Note{Line: first, Msg: "not valid YAML: " + err.Error()}
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil {
			n = Note{Line: first - 1 + ye.GetToken().Position.Line, Msg: "not valid YAML: " + ye.GetMessage()}
		}
		return nil, &n
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, &Note{Line: first, Msg: "expected one YAML mapping"}
	}
	return f.Docs[0].Body, nil
}

// unwrapYAML drops tags, anchors and comments around a value node.
func unwrapYAML(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		case *ast.CommentNode, *ast.CommentGroupNode:
			return nil
		default:
			return n
		}
	}
}

// yamlLine is the source line of n, whose document starts at line first.
func yamlLine(n ast.Node, first int) int {
	if n == nil || n.GetToken() == nil {
		return first
	}
	return first - 1 + n.GetToken().Position.Line
}

// yamlMapping returns the fields of a mapping node, or ok false.
func yamlMapping(n ast.Node, first int) (fields []yamlField, ok bool) {
	var kvs []*ast.MappingValueNode
	switch v := unwrapYAML(n).(type) {
	case *ast.MappingNode:
		kvs = v.Values
	case *ast.MappingValueNode:
		kvs = []*ast.MappingValueNode{v}
	default:
		return nil, false
	}
	for _, kv := range kvs {
		fields = append(fields, yamlField{key: kv.Key.String(), line: yamlLine(kv.Key, first), value: kv.Value})
	}
	return fields, true
}

// yamlString returns the text of a scalar node (strings as written,
// numbers and booleans as their source text); ok is false for null,
// lists and mappings.
func yamlString(n ast.Node) (string, bool) {
	switch v := unwrapYAML(n).(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return v.GetToken().Value, true
	}
	return "", false
}

// yamlList returns the items of a sequence node, or ok false.
func yamlList(n ast.Node) (items []ast.Node, ok bool) {
	seq, ok := unwrapYAML(n).(*ast.SequenceNode)
	if !ok {
		return nil, false
	}
	return seq.Values, true
}

// yamlText is a node's source text on one line, for notes.
func yamlText(n ast.Node) string {
	switch unwrapYAML(n).(type) {
	case *ast.StringNode, *ast.LiteralNode:
		s, _ := yamlString(n)
		s, _ = oneLine(s)
		return `"` + s + `"`
	}
	if n == nil {
		return "null"
	}
	s, _ := oneLine(n.String())
	return strings.TrimSpace(s)
}

// yamlNull reports whether n is null: no value, `null` or `~`.
func yamlNull(n ast.Node) bool {
	if n == nil {
		return true
	}
	_, ok := unwrapYAML(n).(*ast.NullNode)
	return ok
}

package library

import (
	"strings"
	"testing"
)

func TestUpstreamKey(t *testing.T) {
	const front = "---\nid: tool.bash\nlayer: tool\nversion: 1\ntitle: Bash\ndescription: D\n"
	m, err := Parse("tool-bash.md", []byte(front+"upstream:\n  source: claude-code\n  name: 'Tool Description: Bash'\n  version: 2.1.240\n---\nB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Upstream{Source: "claude-code", Name: "Tool Description: Bash", Version: "2.1.240"}); m.Upstream == nil || *m.Upstream != want {
		t.Errorf("upstream %+v, want %+v", m.Upstream, want)
	}
	if got := m.Upstream.String(); got != "claude-code · Tool Description: Bash · 2.1.240" {
		t.Errorf("String %q", got)
	}
	// A version YAML would read as a number stays as written.
	if m, err := Parse("tool-bash.md", []byte(front+"upstream: {source: claude-code, version: 2.10}\n---\nB\n")); err != nil || m.Upstream.Version != "2.10" || m.Upstream.Name != "" {
		t.Errorf("version 2.10: %+v %v", m.Upstream, err)
	}
	if m, _ := Parse("tool-bash.md", []byte(front+"---\nB\n")); m.Upstream != nil || m.Upstream.String() != "" {
		t.Errorf("no upstream key: %+v", m.Upstream)
	}
	for _, c := range []struct{ yaml, field, msg string }{
		{"upstream: claude-code", "upstream", "must be a mapping"},
		{"upstream: {name: x}", "upstream.source", "missing required field source"},
		{"upstream: {source: Claude Code}", "upstream.source", `"Claude Code": begins with 'C'`},
		{"upstream: {source: claude-code, url: x}", "upstream.url", "unknown field (allowed: source, name, version)"},
		{"upstream: {source: claude-code, name: ''}", "upstream.name", "must not be empty"},
		{"upstream: {source: claude-code, version: ~}", "upstream.version", "must not be empty"},
		{"upstream: {source: claude-code, name: [a]}", "upstream.name", "must be a string"},
		{"upstream:\n  source: claude-code\n  name: Bash # the tool", "upstream.name", "a # after a blank starts a YAML comment"},
		{"upstream:\n  source: a\n  source: b", "source", "field given twice"},
	} {
		_, err := Parse("tool-bash.md", []byte(front+c.yaml+"\n---\nB\n"))
		fe, ok := err.(*FileError)
		if !ok || fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%q: %v (field %q), want %s: %s", c.yaml, err, fieldOf(err), c.field, c.msg)
		}
	}
}

func fieldOf(err error) string {
	if fe, ok := err.(*FileError); ok {
		return fe.Field
	}
	return ""
}

package assembler_test

import (
	"slices"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
)

// hitReason returns the reason of the skills-hit entry for id, or "" when
// id did not enter.
func hitReason(res *assembler.Result, id string) string {
	for _, s := range res.Segments {
		if s.Layer != assembler.SegmentSkillsHit {
			continue
		}
		for _, e := range entries(res, assembler.KindPrompt) {
			if e.Module == id && slices.Contains(s.Modules, id) {
				return e.Reason
			}
		}
	}
	return ""
}

// Trigger precision: commands match the leading token exactly, keywords in
// Latin script match whole words, Han keywords match as substrings,
// matching folds case and width, and the report names the trigger that
// fired.
func TestTriggerPrecision(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(mod{
		id:    "task.tr",
		front: "priority: 10\ntriggers:\n- kind: command\n  command: /tr\n- kind: intent\n  keywords: ui, 翻译\n",
		body:  "TR",
	})...)
	tests := []struct {
		message, command string
		want             string // reason, "" when task.tr must not fire
	}{
		{"/translate this", "", ""},
		{"see http://host/tr/x", "", ""},
		{"please /tr this", "", ""},
		{"/tr hello", "", "command:/tr"},
		{"  /tr", "", "command:/tr"},
		{"hello", "/tr", "command:/tr"},
		{"hello", "/translate", ""},
		{"Build a UI", "", "intent:ui"},
		{"build it", "", ""},
		{"building guis", "", ""},
		{"ui: make it blue", "", "intent:ui"},
		{"Build a ＵＩ", "", "intent:ui"},
		{"帮我翻译", "", "intent:翻译"},
		{"帮我翻译一下这段话", "", "intent:翻译"},
	}
	for _, tt := range tests {
		t.Run(tt.message+"|"+tt.command, func(t *testing.T) {
			t.Parallel()
			res := mustAssemble(t, snap, nil, &assembler.Request{Message: tt.message, Command: tt.command})
			if got := hitReason(res, "task.tr"); got != tt.want {
				t.Errorf("task.tr reason = %q, want %q\nreport:\n%v", got, tt.want, reportLines(res))
			}
			if tt.want != "" {
				if line := entryFor(t, res, assembler.KindPrompt, "task.tr").Line; line != "prompt(task.tr v1 · "+tt.want+" · file)" {
					t.Errorf("report line = %q", line)
				}
			} else if e := entryFor(t, res, assembler.KindSkillListed, "task.tr"); e.Reason != "task-module" {
				t.Errorf("a module that did not fire is listed with reason %q", e.Reason)
			}
		})
	}
}

// An explicit command that no task module has is reported as a warning,
// so a runtime sending "/minutes" to a library without it can tell; a
// message that merely starts with a slash is not a command request.
func TestUnknownCommandIsReported(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(mod{
		id:    "task.tr",
		front: "triggers:\n- kind: command\n  command: /tr\n",
		body:  "TR",
	})...)
	warned := func(res *assembler.Result) string {
		for _, e := range entries(res, assembler.KindWarning) {
			if e.Module == "command" {
				return e.Line
			}
		}
		return ""
	}
	if got := warned(mustAssemble(t, snap, nil, &assembler.Request{Command: "/nope"})); got != "warning(command · matches-no-task-module:/nope)" {
		t.Errorf("unknown command: warning %q", got)
	}
	for _, req := range []*assembler.Request{{Command: "/tr"}, {Message: "/usr/bin is full"}, {Message: "hello"}} {
		if got := warned(mustAssemble(t, snap, nil, req)); got != "" {
			t.Errorf("%+v: warning %q", req, got)
		}
	}
}

// The highest priority wins a conflict, a tie goes to the lower id,
// every other fired module is reported as yielded to the winner.
func TestTriggerConflicts(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(
		mod{id: "task.hi", front: "priority: 80\ntriggers:\n- kind: intent\n  keywords: alpha\n", body: "HI"},
		mod{id: "task.lo", front: "priority: 10\ntriggers:\n- kind: intent\n  keywords: alpha, beta\n", body: "LO"},
		mod{id: "task.tie-b", front: "priority: 50\ntriggers:\n- kind: intent\n  keywords: alpha, gamma\n", body: "TIE B"},
		mod{id: "task.tie-a", front: "priority: 50\ntriggers:\n- kind: intent\n  keywords: alpha, gamma\n", body: "TIE A"},
	)...)
	tests := []struct {
		message    string
		winner     string
		yieldLines []string
	}{
		{"alpha", "task.hi", []string{
			"skill-yield(task.tie-a · superseded-by:task.hi)",
			"skill-yield(task.tie-b · superseded-by:task.hi)",
			"skill-yield(task.lo · superseded-by:task.hi)",
		}},
		{"gamma", "task.tie-a", []string{"skill-yield(task.tie-b · superseded-by:task.tie-a)"}},
		{"beta", "task.lo", nil},
		{"delta", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.message, func(t *testing.T) {
			t.Parallel()
			res := mustAssemble(t, snap, nil, &assembler.Request{Message: tt.message})
			var hit []string
			for _, s := range res.Segments {
				if s.Layer == assembler.SegmentSkillsHit {
					hit = s.Modules
				}
			}
			var want []string
			if tt.winner != "" {
				want = []string{tt.winner}
			}
			if !slices.Equal(hit, want) {
				t.Errorf("skills-hit modules = %v, want %v", hit, want)
			}
			var yields []string
			for _, e := range entries(res, assembler.KindSkillYield) {
				yields = append(yields, e.Line)
				if e.Reason != "superseded-by:"+tt.winner {
					t.Errorf("yield reason %q, want superseded-by:%s", e.Reason, tt.winner)
				}
			}
			if !slices.Equal(yields, tt.yieldLines) {
				t.Errorf("yields =\n%q\nwant\n%q", yields, tt.yieldLines)
			}
			// Yielded modules are not listed as available either: they fired.
			for _, e := range entries(res, assembler.KindSkillListed) {
				if e.Module == tt.winner {
					t.Errorf("the winner %s is also listed as available", tt.winner)
				}
			}
		})
	}
}

// requiresAttachments blocks intent and attachment triggers without
// an attachment but not commands; attachment triggers need an attachment
// (and their keywords when they have some); manual triggers never fire.
func TestTriggerKinds(t *testing.T) {
	t.Parallel()
	snap := newLib(t, withCore(
		mod{id: "task.att", front: "priority: 60\nrequiresAttachments: true\ntriggers:\n- kind: intent\n  keywords: report\n- kind: command\n  command: /report\n", body: "ATT"},
		mod{id: "task.csv", front: "priority: 40\ntriggers:\n- kind: attachment\n  keywords: csv\n", body: "CSV"},
		mod{id: "task.files", front: "priority: 5\ntriggers:\n- kind: attachment\n", body: "FILES"},
		mod{id: "task.man", front: "priority: 99\ntriggers:\n- kind: manual\n", body: "MANUAL"},
	)...)
	file := []assembler.Attachment{{Name: "q3.csv", Type: "text/csv"}}
	tests := []struct {
		name        string
		message     string
		command     string
		attachments []assembler.Attachment
		winner      string
		reason      string
	}{
		{"intent blocked without attachment", "write the report", "", nil, "", ""},
		{"intent with attachment", "write the report", "", file, "task.att", "intent:report"},
		{"command ignores requiresAttachments", "/report now", "", nil, "task.att", "command:/report"},
		{"command field ignores requiresAttachments", "now", "/report", nil, "task.att", "command:/report"},
		{"attachment alone", "hello", "", file, "task.files", "attachment"},
		{"attachment with keyword", "look at this csv", "", file, "task.csv", "attachment+intent:csv"},
		{"keyword without attachment", "look at this csv", "", nil, "", ""},
		{"manual never fires", "manual task.man please", "/man", file, "task.files", "attachment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := mustAssemble(t, snap, nil, &assembler.Request{Message: tt.message, Command: tt.command, Attachments: tt.attachments})
			var hit []string
			for _, s := range res.Segments {
				if s.Layer == assembler.SegmentSkillsHit {
					hit = s.Modules
				}
			}
			if tt.winner == "" {
				if len(hit) != 0 {
					t.Errorf("skills hit %v, want none", hit)
				}
				return
			}
			if !slices.Equal(hit, []string{tt.winner}) {
				t.Fatalf("skills hit %v, want [%s]\n%v", hit, tt.winner, reportLines(res))
			}
			if got := entryFor(t, res, assembler.KindPrompt, tt.winner).Reason; got != tt.reason {
				t.Errorf("reason = %q, want %q", got, tt.reason)
			}
			if e := entryFor(t, res, assembler.KindSkillListed, "task.man"); e.Reason != "task-module" {
				t.Errorf("task.man listed with reason %q", e.Reason)
			}
		})
	}
}

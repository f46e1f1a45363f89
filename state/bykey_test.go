package state_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/state"
)

// sameAsRebuild fails t unless v, the View a Served keeps after updates
// by key, is what a full read of s's database composes: the same rows,
// drafts, broken rows and drafts (with their reasons), served and draft
// overrides, profiles, ids and locales, and the same assembly of the
// profile desk with and without drafts.
func sameAsRebuild(t *testing.T, s *service, step string) {
	t.Helper()
	v := s.Served.Current()
	fresh, err := state.Load(context.Background(), s.st, s.lib, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	w := fresh.Current()
	same := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s after updates by key:\n%v\nafter a full read:\n%v", step, what, got, want)
		}
	}
	same("rows", maps.Collect(v.Rows.All()), maps.Collect(w.Rows.All()))
	same("drafts", maps.Collect(v.Drafts.All()), maps.Collect(w.Drafts.All()))
	same("broken", reasons(v.Broken), reasons(w.Broken))
	same("broken drafts", reasons(v.DraftBroken), reasons(w.DraftBroken))
	same("served overrides", served(v.State), served(w.State))
	same("overrides with drafts", served(v.WithDrafts), served(w.WithDrafts))
	same("profiles", v.State.Profiles, w.State.Profiles)
	same("ids", v.IDs(), w.IDs())
	for _, id := range w.IDs() {
		same("locales of "+id, v.Locales(id), w.Locales(id))
	}
	same("published ids", v.Published().IDs(), w.Published().IDs())
	a := assembler.New(assembler.Config{})
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, req := range []assembler.Request{{Locale: "en-US", Message: "summarize this"}, {Profile: "desk", Message: "summarize this"}} {
		for _, drafts := range []bool{false, true} {
			vs, ws := v.State, w.State
			if drafts {
				vs, ws = v.WithDrafts, w.WithDrafts
			}
			got, gerr := a.Assemble(v.Library, vs, &req, at)
			want, werr := a.Assemble(w.Library, ws, &req, at)
			if gerr != nil || werr != nil {
				same("assembly error", errText(gerr), errText(werr))
				continue
			}
			same("assembled text", got.Text, want.Text)
			same("report", reportLines(got), reportLines(want))
		}
	}
}

// reasons is each key's error text.
func reasons(m assembler.ByKey[error]) map[assembler.OverrideKey]string {
	out := map[assembler.OverrideKey]string{}
	for k, err := range m.All() {
		out[k] = err.Error()
	}
	return out
}

// served is each override of st with its revision and text.
func served(st *assembler.State) map[assembler.OverrideKey]string {
	out := map[assembler.OverrideKey]string{}
	for k, o := range st.Overrides.All() {
		out[k] = fmt.Sprintf("%s r%d\n%s", o.Locale, o.Revision, o.Module.Text)
	}
	return out
}

// get is m's value of k, the zero value when there is none.
func get[V any](m assembler.ByKey[V], k assembler.OverrideKey) V {
	v, _ := m.Get(k)
	return v
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func reportLines(r *assembler.Result) []string {
	var out []string
	for _, e := range r.Report {
		out = append(out, e.Line)
	}
	return out
}

// A write updates the View by its key alone (no full read after Open),
// and after every kind of write the View is the one a full read of the
// database composes.
func TestWritesUpdateByKeyAsARebuildWould(t *testing.T) {
	t.Parallel()
	s := newService(t)
	profiles := &state.Profiles{Store: s.st, Served: s.Served}
	ctx := s.ctx
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const sig = "---\nid: aux.signature\nlayer: aux\nversion: 1\ntitle: Signature\ndescription: The closing line\n---\nEnd with the team's name.\n"
	writes := 0
	step := func(name string, write func()) {
		t.Helper()
		write()
		writes++
		sameAsRebuild(t, s, name)
	}

	var summarize, signature, identity domain.Override
	step("a draft", func() { summarize = s.save(t, "task.summarize", s.withLine(t, "task.summarize", "Mine."), 0) })
	step("publish", func() {
		_, err := s.Publish(ctx, "task.summarize", "en-US", summarize.Revision)
		must(err)
	})
	step("a draft on top", func() {
		summarize = s.save(t, "task.summarize", s.withLine(t, "task.summarize", "Mine, again."), summarize.Revision)
	})
	step("a user module", func() { signature = s.save(t, "aux.signature", sig, 0) })
	step("a draft including the user module", func() {
		identity = s.save(t, "base.identity", s.withLine(t, "base.identity", "{{aux.signature}}"), 0)
	})
	step("publish the user module", func() {
		_, err := s.Publish(ctx, "aux.signature", "en-US", signature.Revision)
		must(err)
	})
	step("publish its includer", func() {
		_, err := s.Publish(ctx, "base.identity", "en-US", identity.Revision)
		must(err)
	})
	step("discard", func() {
		var err error
		summarize, _, err = s.Discard(ctx, "task.summarize", "en-US", summarize.Revision)
		must(err)
	})
	step("restore", func() {
		out, err := s.Restore(ctx, "task.summarize", "en-US", 2, summarize.Revision)
		if err != nil || out.Kind != state.OutcomeStored {
			t.Fatalf("restore: %v %+v", err, out)
		}
		summarize = out.Saved
	})
	step("keep mine", func() {
		var err error
		summarize, err = s.KeepMine(ctx, "task.summarize", "en-US", summarize.Revision)
		must(err)
	})
	step("take builtin", func() { must(s.TakeBuiltin(ctx, "task.summarize", "en-US", summarize.Revision)) })
	step("a zh-CN spelling of another locale", func() {
		m, _ := s.lib.Module("task.summarize", "zh-CN")
		out, err := s.Save(ctx, state.Edit{ID: "task.summarize", Locale: "ZH-cn", Text: strings.TrimRight(m.Text, "\n") + "\n\n简短。\n"})
		if err != nil || out.Kind != state.OutcomeStored {
			t.Fatalf("save: %v %+v", err, out)
		}
	})
	step("create a profile", func() {
		_, err := profiles.Create(ctx, state.ProfileDraft{ID: "desk", Name: "Desk", Locale: "en-US", PromptModules: "base.identity\naux.signature"})
		must(err)
	})
	step("create another", func() {
		_, err := profiles.Create(ctx, state.ProfileDraft{ID: "aaa", Name: "First"})
		must(err)
	})
	step("update a profile", func() {
		_, err := profiles.Update(ctx, state.ProfileDraft{ID: "desk", Name: "Desk", Locale: "en-US", PromptModules: "base.identity", SystemPrompt: "Be brief."})
		must(err)
	})
	step("delete a profile", func() { must(profiles.Delete(ctx, "aaa")) })

	if got := s.Served.Reads(); got.Full != 1 || got.Keys != int64(writes) {
		t.Errorf("reads %+v after %d writes, want only Open's full read and one read by key per write", got, writes)
	}
	if p := s.Served.Current().State.Profiles["desk"]; p == nil || p.SystemPrompt != "Be brief." {
		t.Errorf("profile desk %+v, want the update", p)
	}
}

// Removing a user module that another override includes makes the
// includer broken (not served) by the update of the removed key alone:
// a draft through the write path, a published override through another
// process's change named to Run.
func TestRemovingAnIncludedModuleBreaksTheIncluder(t *testing.T) {
	t.Parallel()
	s := newService(t)
	ctx := s.ctx
	const sig = "---\nid: aux.signature\nlayer: aux\nversion: 1\ntitle: Signature\ndescription: The closing line\n---\nEnd with the team's name.\n"
	identity := assembler.Key("base.identity", "en-US")

	// Drafts: a draft may include another draft's id.
	signature := s.save(t, "aux.signature", sig, 0)
	s.save(t, "base.identity", s.withLine(t, "base.identity", "{{aux.signature}}"), 0)
	if err := get(s.Served.Current().DraftBroken, identity); err != nil {
		t.Fatalf("the includer's draft is broken before the removal: %v", err)
	}
	if _, removed, err := s.Discard(ctx, "aux.signature", "en-US", signature.Revision); err != nil || !removed {
		t.Fatalf("discard: %v, removed %v", err, removed)
	}
	if err := get(s.Served.Current().DraftBroken, identity); err == nil || !strings.Contains(err.Error(), "unknown placeholder {{aux.signature}}") {
		t.Errorf("the includer's draft after the removal: %v, want broken by the unknown placeholder", err)
	}
	sameAsRebuild(t, s, "draft removed")

	// Published: another process deletes the included module (its store
	// does not look at the includers) and names the change.
	signature = s.save(t, "aux.signature", sig, signature.Revision+1)
	if _, err := s.Publish(ctx, "aux.signature", "en-US", signature.Revision); err != nil {
		t.Fatal(err)
	}
	head, _ := s.st.GetOverride(ctx, "base.identity", "en-US")
	if _, err := s.Publish(ctx, "base.identity", "en-US", head.Revision); err != nil {
		t.Fatal(err)
	}
	if o := get(s.Served.Current().State.Overrides, identity); o == nil {
		t.Fatal("the includer is not served")
	}
	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Served.Run(runCtx, time.Hour)
	before := s.Served.Reads()
	if err := s.st.DeleteOverride(ctx, "aux.signature", "en-US", signature.Revision); err != nil {
		t.Fatal(err)
	}
	s.Served.ChangedOverride("aux.signature", "en-US")
	deadline := time.Now().Add(5 * time.Second)
	for get(s.Served.Current().Broken, identity) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the includer is still served 5 s after the removal was named")
		}
		time.Sleep(2 * time.Millisecond)
	}
	v := s.Served.Current()
	if err := get(v.Broken, identity); !strings.Contains(err.Error(), "unknown placeholder {{aux.signature}}") {
		t.Errorf("broken because %v, want the unknown placeholder", err)
	}
	if get(v.State.Overrides, identity) != nil || v.Exists("aux.signature") {
		t.Error("the includer or the removed module is still served")
	}
	if got := s.Served.Reads(); got.Full != before.Full || got.Keys != before.Keys+1 {
		t.Errorf("reads %+v, before %+v: want one read by key and no full read", got, before)
	}
	sameAsRebuild(t, s, "published module removed")
	changes, _, _ := s.Served.ChangesSince(context.Background(), v.ServedGeneration-1, 0)
	want := []state.ServedChange{
		{Generation: v.ServedGeneration, Subject: state.ChangeOverride, ID: "aux.signature", Locale: "en-US", Action: state.ActionRemoved},
		{Generation: v.ServedGeneration, Subject: state.ChangeOverride, ID: "base.identity", Locale: "en-US", Action: state.ActionRemoved},
	}
	if !slices.Equal(changes, want) {
		t.Errorf("change feed %v, want %v", changes, want)
	}
}

// A text that no longer parses is kept broken by an update by key, like
// by a full read, and a later good revision serves again.
func TestUpdateByKeyKeepsABrokenRowBroken(t *testing.T) {
	t.Parallel()
	s := newService(t)
	// Written behind the write path's checks, as an old version might have.
	fields, _ := json.Marshal(map[string]string{"id": "base.caution"})
	bad, err := s.st.SaveOverride(s.ctx, domain.Override{ModuleID: "base.caution", Locale: "en-US", Text: "not a module", Fields: fields, Publish: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Served.Run(runCtx, time.Hour)
	key := assembler.Key("base.caution", "en-US")
	s.Served.ChangedOverride("base.caution", "en-us")
	deadline := time.Now().Add(5 * time.Second)
	for get(s.Served.Current().Broken, key) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the broken row is not listed")
		}
		time.Sleep(2 * time.Millisecond)
	}
	sameAsRebuild(t, s, "broken row")
	good := s.save(t, "base.caution", s.withLine(t, "base.caution", "Fixed."), bad.Revision)
	if _, err := s.Publish(s.ctx, "base.caution", "en-US", good.Revision); err != nil {
		t.Fatal(err)
	}
	if v := s.Served.Current(); get(v.Broken, key) != nil || get(v.State.Overrides, key) == nil {
		t.Errorf("after the fix: broken %v, served %v", get(v.Broken, key), get(v.State.Overrides, key) != nil)
	}
	sameAsRebuild(t, s, "fixed")
	if got := s.Served.Reads(); got.Full != 1 {
		t.Errorf("reads %+v, want no full read after Open's", got)
	}
}

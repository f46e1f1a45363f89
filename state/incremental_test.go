package state_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// Random sequences of drafts, publishes, discards, deletes and profile
// changes, written to a real database, each followed by an update by key
// of one Served and a full read of another: after every step both Views
// read the same through every exported read, and both feeds list the same
// changes. The writes go to the store directly, so that they may leave
// what the write path refuses: user modules that include each other,
// include ids that were deleted or never stored, texts that do not parse,
// and locales spelled two ways.
func TestUpdateByKeyMatchesAFullCompose(t *testing.T) {
	t.Parallel()
	ctx := domain.WithActor(context.Background(), "tester")
	st, err := store.Open(ctx, storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	lib, err := library.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	inc, err := state.Load(ctx, st, lib, discard())
	if err != nil {
		t.Fatal(err)
	}
	full, err := state.Load(ctx, st, lib, discard())
	if err != nil {
		t.Fatal(err)
	}
	since := map[*state.Served]int64{inc: inc.Current().ServedGeneration, full: full.Current().ServedGeneration}
	a := assembler.New(assembler.Config{})
	w := &walker{t: t, ctx: ctx, st: st, lib: lib, rng: rand.New(rand.NewPCG(22, 5000))}
	for step := range 400 {
		what, key, profile := w.write()
		if profile != "" {
			if err := inc.UpdateProfile(ctx, profile); err != nil {
				t.Fatal(err)
			}
		} else if err := inc.UpdateOverride(ctx, key.ID, key.Locale); err != nil {
			t.Fatal(err)
		}
		if err := full.FullRebuild(ctx); err != nil {
			t.Fatal(err)
		}
		sameView(t, a, fmt.Sprintf("step %d, %s", step, what), inc.Current(), full.Current(), w.ids())
		sameFeed(t, fmt.Sprintf("step %d, %s", step, what), inc, full, since)
		if t.Failed() {
			t.FailNow()
		}
	}
	if n := len(feed(t, inc, since[inc])); n < 50 {
		t.Errorf("the walk made %d changes to the feed: it should make many", n)
	}
	if r := inc.Reads(); r.Full != 1 {
		t.Errorf("reads %+v: every update but Open's should read by key", r)
	}
	v := inc.Current()
	if v.Rows.Len() == 0 || v.Broken.Len() == 0 || v.Drafts.Len() == 0 || v.DraftBroken.Len() == 0 || v.State.Overrides.Len() == 0 {
		t.Errorf("the walk ended with %d rows, %d broken, %d drafts, %d broken drafts, %d served: it should reach every kind",
			v.Rows.Len(), v.Broken.Len(), v.Drafts.Len(), v.DraftBroken.Len(), v.State.Overrides.Len())
	}
}

// walker makes random writes to a small set of keys.
type walker struct {
	t   *testing.T
	ctx context.Context
	st  *store.Store
	lib *library.Snapshot
	rng *rand.Rand
	n   int
}

var (
	walkBuiltins = []string{"base.identity", "task.summarize"}
	walkUsers    = []string{"aux.u0", "aux.u1", "aux.u2", "aux.u3", "aux.u4"}
	// Two spellings of German: the store keeps the first saved.
	walkLocales = []string{"en-US", "en-US", "de-DE", "DE-de", "ja-JP"}
)

func (w *walker) ids() []string {
	return append(append(slices.Clone(walkBuiltins), walkUsers...), "aux.never", "task.nope")
}

// text is a new text of id: a user module or the builtin's with a line,
// including up to two user modules (stored or not), now and then one that
// does not parse.
func (w *walker) text(id string) string {
	w.n++
	body := fmt.Sprintf("Edit %d.", w.n)
	for range w.rng.IntN(3) {
		body += fmt.Sprintf(" {{%s}}", walkUsers[w.rng.IntN(len(walkUsers))])
	}
	if w.rng.IntN(8) == 0 {
		body += " {{aux.never}}"
	}
	if w.rng.IntN(10) == 0 {
		return "---\nid: " + id + "\nlayer: [\n---\n" + body + "\n"
	}
	if b, ok := w.lib.Module(id, "en-US"); ok {
		return strings.TrimRight(b.Text, "\n") + "\n\n" + body + "\n"
	}
	return fmt.Sprintf("---\nid: %s\nlayer: aux\nversion: 1\ntitle: User %d\ndescription: A user module\n---\n%s\n", id, w.n, body)
}

// write makes one random write and says what it did, and the key (or the
// profile id) it changed. Writes the store refuses (a conflict, nothing to
// publish) change nothing, and the key is updated all the same.
func (w *walker) write() (what string, key assembler.OverrideKey, profile string) {
	ids := append(slices.Clone(walkBuiltins), walkUsers...)
	id, locale := ids[w.rng.IntN(len(ids))], walkLocales[w.rng.IntN(len(walkLocales))]
	key = assembler.Key(id, locale)
	head, err := w.st.GetOverride(w.ctx, id, locale)
	exists := err == nil
	if err != nil && !errors.Is(err, library.ErrNotFound) {
		w.t.Fatal(err)
	}
	refused := func(err error) {
		if err != nil && !errors.Is(err, library.ErrConflict) && !errors.Is(err, library.ErrNotFound) && !errors.Is(err, library.ErrInvalid) {
			w.t.Fatal(err)
		}
	}
	save := func(publish bool) {
		o := domain.Override{ModuleID: id, Locale: locale, Text: w.text(id), Title: "T", Version: 1, Publish: publish}
		if b, ok := w.lib.Module(id, "en-US"); ok {
			o.Version, o.BasedOnVersion, o.BaseSnapshot, o.BaseHash = b.Version, b.Version, b.Text, domain.TextHash(b.Text)
			if w.rng.IntN(4) == 0 {
				o.BasedOnVersion-- // drifted
			}
		}
		_, err := w.st.SaveOverride(w.ctx, o, head.Revision)
		refused(err)
	}
	switch op := w.rng.IntN(10); {
	case op < 3:
		save(false)
		return "draft " + id + " " + locale, key, ""
	case op < 5:
		save(true)
		return "save and publish " + id + " " + locale, key, ""
	case op < 7 && exists:
		_, err := w.st.Publish(w.ctx, id, locale, head.Revision)
		refused(err)
		return "publish " + id + " " + locale, key, ""
	case op < 8 && exists:
		_, _, err := w.st.Discard(w.ctx, id, locale, head.Revision)
		refused(err)
		return "discard " + id + " " + locale, key, ""
	case op < 9 && exists:
		refused(w.st.DeleteOverride(w.ctx, id, locale, head.Revision))
		return "delete " + id + " " + locale, key, ""
	case op == 9:
		p := domain.Profile{ID: []string{"desk", "ops"}[w.rng.IntN(2)], Name: "P", Locale: "en-US", PromptModules: []string{"base.identity", walkUsers[w.rng.IntN(len(walkUsers))]}}
		_, err := w.st.GetProfile(w.ctx, p.ID)
		switch {
		case errors.Is(err, library.ErrNotFound):
			_, err = w.st.CreateProfile(w.ctx, p)
		case err == nil && w.rng.IntN(2) == 0:
			err = w.st.DeleteProfile(w.ctx, p.ID)
		case err == nil:
			_, err = w.st.UpdateProfile(w.ctx, p)
		}
		refused(err)
		return "profile " + p.ID, assembler.OverrideKey{}, p.ID
	}
	save(false)
	return "draft " + id + " " + locale, key, ""
}

// sameView fails t unless v (updated by key) and w (composed in full) read
// the same through every exported read of a View and of its Published
// View, for the ids of both and extra (ids never stored among them).
func sameView(t *testing.T, a *assembler.Assembler, step string, v, w *state.View, extra []string) {
	t.Helper()
	same := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s by key:\n%v\nin full:\n%v", step, what, got, want)
		}
	}
	same("library", v.Library == w.Library, true)
	same("rows", maps.Collect(v.Rows.All()), maps.Collect(w.Rows.All()))
	same("drafts", maps.Collect(v.Drafts.All()), maps.Collect(w.Drafts.All()))
	same("broken", reasons(v.Broken), reasons(w.Broken))
	same("broken drafts", reasons(v.DraftBroken), reasons(w.DraftBroken))
	same("served", served(v.State), served(w.State))
	same("with drafts", served(v.WithDrafts), served(w.WithDrafts))
	same("with drafts is State", v.WithDrafts == v.State, w.WithDrafts == w.State)
	same("profiles", v.State.Profiles, w.State.Profiles)
	same("draft profiles", v.WithDrafts.Profiles, w.WithDrafts.Profiles)
	same("stored profiles", v.Profiles(), w.Profiles())
	sameReads(t, a, step, v, w, extra)
	sameReads(t, a, step+" (published)", v.Published(), w.Published(), extra)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, req := range []assembler.Request{{Locale: "en-US", Message: "summarize this"}, {Locale: "de-DE", Profile: "desk", Message: "summarize this"}} {
		for _, drafts := range []bool{false, true} {
			vs, ws := v.State, w.State
			if drafts {
				vs, ws = v.WithDrafts, w.WithDrafts
			}
			got, gerr := a.Assemble(v.Library, vs, &req, at)
			want, werr := a.Assemble(w.Library, ws, &req, at)
			same(fmt.Sprintf("assembly error (%s, drafts %v)", req.Locale, drafts), errText(gerr), errText(werr))
			if gerr == nil && werr == nil {
				same("assembled text", got.Text, want.Text)
				same("report", reportLines(got), reportLines(want))
			}
		}
	}
}

// sameReads compares the reads by id and locale, and the listing.
func sameReads(t *testing.T, a *assembler.Assembler, step string, v, w *state.View, extra []string) {
	t.Helper()
	same := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s by key:\n%v\nin full:\n%v", step, what, got, want)
		}
	}
	same("ids", v.IDs(), w.IDs())
	ids := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(w.IDs()), extra...))))
	for _, id := range ids {
		same("exists "+id, v.Exists(id), w.Exists(id))
		same("locales of "+id, v.Locales(id), w.Locales(id))
		same("status of "+id, v.ModuleStatus(id), w.ModuleStatus(id))
		same("modules of "+id, texts(v.Modules(id)), texts(w.Modules(id)))
		gm, gfrom, gok := v.Primary(a, id)
		wm, wfrom, wok := w.Primary(a, id)
		same("primary of "+id, []any{texts([]*library.Module{gm}), gfrom, gok}, []any{texts([]*library.Module{wm}), wfrom, wok})
		for _, loc := range append(slices.Clone(w.Locales(id)), "de-de", "ja-JP", "fr-FR") {
			gh, gok := v.Head(id, loc)
			wh, wok := w.Head(id, loc)
			same("head of "+id+" "+loc, []any{gh, gok}, []any{wh, wok})
			same("has draft "+id+" "+loc, v.HasDraft(id, loc), w.HasDraft(id, loc))
			same("drift "+id+" "+loc, v.Drift(id, loc), w.Drift(id, loc))
			same("status "+id+" "+loc, v.LocaleStatus(id, loc), w.LocaleStatus(id, loc))
		}
	}
	gl, wl := v.Listing(a), w.Listing(a)
	same("listed locales", gl.Locales, wl.Locales)
	same("listed modules", listed(gl), listed(wl))
	for _, f := range []state.ModuleFilter{{Q: "user"}, {Status: string(state.StatusDraft), Locale: "de-DE"}, {Layer: "aux"}} {
		var got, want []string
		for _, e := range gl.Modules {
			if v.MatchesListed(f, e) {
				got = append(got, e.ID)
			}
		}
		for _, e := range wl.Modules {
			if w.MatchesListed(f, e) {
				want = append(want, e.ID)
			}
		}
		same(fmt.Sprintf("listed matching %+v", f), got, want)
	}
}

func texts(ms []*library.Module) []string {
	var out []string
	for _, m := range ms {
		if m == nil {
			out = append(out, "")
			continue
		}
		out = append(out, m.Locale+"\n"+m.Text)
	}
	return out
}

func listed(l *state.Listing) []string {
	var out []string
	for _, e := range l.Modules {
		out = append(out, fmt.Sprintf("%s %s %v %v %s", e.ID, e.Status, e.Locales, e.Drafts, texts([]*library.Module{e.Module})))
	}
	return out
}

// sameFeed fails t unless both Serveds' feeds list the same changes since
// they opened (since, their first generations, which count from
// different times).
func sameFeed(t *testing.T, step string, inc, full *state.Served, since map[*state.Served]int64) {
	t.Helper()
	if got, want := feed(t, inc, since[inc]), feed(t, full, since[full]); !slices.Equal(got, want) {
		t.Errorf("%s: the feed by key lists\n%s\nin full\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// feed is every change s lists after the generation since, without the
// generations.
func feed(t *testing.T, s *state.Served, since int64) []string {
	t.Helper()
	cs, _, reset := s.ChangesSince(context.Background(), since, 0)
	if reset {
		t.Fatalf("the feed was reset")
	}
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s %s %s %s %d", c.Subject, c.ID, c.Locale, c.Action, c.Revision))
	}
	return out
}

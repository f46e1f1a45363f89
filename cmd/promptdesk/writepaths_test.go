package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
	"github.com/promptdesk/promptdesk/web"
)

// The four ways an override text is written — the console editor, PUT
// /api/v1/overrides, the drift review's rebase and `import --into db` —
// must give the same outcome for the same rule, because they all go
// through one write path. Each entry point gets its own database and
// server over a library folder whose builtins moved on to a new version
// after the overrides were made (the drifted case).

// The outcomes, as each entry point shows them.
const (
	wpStored    = "stored"
	wpEquals    = "equals-builtin"
	wpUnchanged = "unchanged"
	wpConflict  = "conflict"
	wpInvalid   = "invalid"
)

// wpRule is one rule of the write path: the module it is tried on, the
// text sent (from the module's builtin text now), and what must follow.
type wpRule struct {
	name string
	id   string
	// seeded: the module has a published override, made from the builtin
	// before the version bump (so it is drifted), at revision 1.
	seeded bool
	text   func(builtin string) string
	// stale sends the text based on revision 0 while revision 1 exists.
	stale bool
	// head sends the head's text instead of text (with stale: a save
	// sent again).
	head bool
	want string
	// wantBase is the builtin version the stored override is based on;
	// wantDrifted whether /drift lists it afterwards.
	wantBase    func(old, now int) int
	wantDrifted bool
}

// wpEdit adds a line to a module text's body.
func wpEdit(text string) string {
	return strings.TrimRight(text, "\n") + "\n\nAn operator's extra line.\n"
}

func wpRules() []wpRule {
	nowBase := func(_, now int) int { return now }
	oldBase := func(old, _ int) int { return old }
	return []wpRule{
		{name: "new override", id: "task.summarize", text: wpEdit, want: wpStored, wantBase: nowBase},
		{name: "edit of a drifted override", id: "task.doc-minutes", seeded: true, text: wpEdit, want: wpStored, wantBase: oldBase, wantDrifted: true},
		{name: "equals builtin", id: "task.translate", seeded: true, text: func(b string) string { return b }, want: wpEquals},
		{name: "builtin text and a trailing newline", id: "task.code-review", seeded: true, text: func(b string) string { return b + "\n\n" }, want: wpEquals},
		{name: "stale revision", id: "task.data-analysis", seeded: true, stale: true, text: wpEdit, want: wpConflict},
		{name: "text equal to the head on a stale revision", id: "aux.session-compact", seeded: true, stale: true, head: true, want: wpUnchanged},
		{name: "id change", id: "aux.polish", seeded: true, text: func(b string) string {
			return strings.Replace(wpEdit(b), "id: aux.polish", "id: aux.polish-two", 1)
		}, want: wpInvalid},
		{name: "invalid text", id: "aux.title-gen", seeded: true, text: func(b string) string {
			return strings.Replace(wpEdit(b), "version:", "version: 007\nold-version:", 1)
		}, want: wpInvalid},
	}
}

// wpBumped are the modules whose builtin moves to a new version after the
// overrides are made.
var wpBumped = []string{"task.doc-minutes", "task.translate", "task.code-review", "task.data-analysis", "aux.polish", "aux.title-gen"}

// wpEntry is one entry point: it writes text as the override of id in
// en-US (based on revision base) and says which outcome it gave.
type wpEntry struct {
	name string
	// rebase works on an existing drifted override only, and moves its
	// base to the builtin now by design: the one entry point that does.
	rebase bool
	write  func(t *testing.T, env *wpEnv, id, text string, base int) string
}

// wpEnv is one entry point's database, library folder and server.
type wpEnv struct {
	dir, dbURL string
	st         *store.Store
	base       string
	client     *http.Client
	csrf       string
	token      string
	old, now   map[string]*library.Module
}

func TestOneWritePathForEveryEntryPoint(t *testing.T) {
	entries := []wpEntry{
		{name: "console", write: wpConsole},
		{name: "api", write: wpAPI},
		{name: "rebase", rebase: true, write: wpRebase},
		{name: "import", write: wpImport},
	}
	for _, entry := range entries {
		t.Run(entry.name, func(t *testing.T) {
			env := newWPEnv(t)
			for _, r := range wpRules() {
				if entry.rebase && !r.seeded {
					continue // a rebase needs an override to rebase
				}
				if entry.name == "import" && r.stale {
					continue // an import is always based on the head it finds
				}
				if entry.rebase && r.head {
					continue // a rebase starts from the revision its review showed
				}
				t.Run(r.name, func(t *testing.T) {
					base := 0
					if r.seeded && !r.stale {
						base = 1
					}
					var text string
					if r.head {
						h, err := env.st.GetOverride(context.Background(), r.id, "en-US")
						if err != nil {
							t.Fatal(err)
						}
						text = h.Text
					} else {
						text = r.text(env.now[r.id].Text)
					}
					got := entry.write(t, env, r.id, text, base)
					if got != r.want {
						t.Fatalf("%s: outcome %q, want %q", r.name, got, r.want)
					}
					head, err := env.st.GetOverride(context.Background(), r.id, "en-US")
					switch {
					case r.want != wpStored:
						wantRev := 0
						if r.seeded {
							wantRev = 1
						}
						if head.Revision != wantRev {
							t.Errorf("nothing may be stored: head at revision %d (%v), want %d", head.Revision, err, wantRev)
						}
						return
					case err != nil:
						t.Fatal(err)
					}
					wantBase, wantDrifted := r.wantBase(env.old[r.id].Version, env.now[r.id].Version), r.wantDrifted
					if entry.rebase {
						wantBase, wantDrifted = env.now[r.id].Version, false
					}
					if head.BasedOnVersion != wantBase {
						t.Errorf("stored override based on v%d, want v%d", head.BasedOnVersion, wantBase)
					}
					if !head.Draft {
						t.Fatalf("not a draft: every write, a rebase included, makes a draft that serves once published")
					}
					// Published with the console's form (the action its
					// confirmation posts), which serves it at once.
					if status, body := env.post(t, "/modules/"+r.id+"/override/en-US/publish", url.Values{"revision": {strconv.Itoa(head.Revision)}}); status != http.StatusSeeOther {
						t.Fatalf("publish: %d\n%.500s", status, body)
					}
					if listed := env.driftListed(t, r.id); listed != wantDrifted {
						t.Errorf("/drift lists %s: %v, want %v", r.id, listed, wantDrifted)
					}
				})
			}
		})
	}
}

// newWPEnv makes a library folder, a database with the seeded overrides
// made from that folder, then bumps the builtins and starts a server on
// the bumped folder, logged in as an editor and with a write token.
func newWPEnv(t *testing.T) *wpEnv {
	t.Helper()
	ctx := context.Background()
	env := &wpEnv{dir: t.TempDir(), dbURL: storetest.NewDatabase(t)}
	if err := os.CopyFS(env.dir, library.BuiltinFS()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", env.dbURL)
	t.Setenv("PROMPTDESK_LIBRARY_DIR", env.dir)
	env.st = openStore(t, env.dbURL)
	old := mustLoadDir(t, env.dir)
	env.old, env.now = map[string]*library.Module{}, map[string]*library.Module{}
	for _, r := range wpRules() {
		m, _ := old.Module(r.id, "en-US")
		env.old[r.id] = m
		if !r.seeded {
			continue
		}
		o := domain.Override{ModuleID: r.id, Locale: "en-US", Text: wpEdit(strings.Replace(m.Text, "\n---\n", "\n---\nSeeded.\n", 1)),
			Title: m.Title, Version: m.Version, BasedOnVersion: m.Version, BaseSnapshot: m.Text, BaseHash: domain.TextHash(m.Text), Publish: true}
		if _, err := env.st.SaveOverride(ctx, o, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range wpBumped {
		bumpBuiltin(t, env.dir, id)
	}
	now := mustLoadDir(t, env.dir)
	for _, r := range wpRules() {
		env.now[r.id], _ = now.Module(r.id, "en-US")
	}
	srv, err := web.New(ctx, web.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store: env.st, Library: reload.Fixed(now), Assembler: assembler.New(assembler.Config{}), Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	env.base = srv.URL()
	jar, _ := cookiejar.New(nil)
	env.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	env.csrf = setupEditor(t, env.client, env.base, env.dbURL)
	_, secret, err := env.st.CreateToken(ctx, "write-paths", []string{domain.ScopeWrite, domain.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	env.token = secret
	return env
}

func mustLoadDir(t *testing.T, dir string) *library.Snapshot {
	t.Helper()
	snap, err := library.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

var versionLine = regexp.MustCompile(`(?m)^version: (\d+)$`)

// bumpBuiltin raises id's version in every locale of dir and changes its
// wording, as a library release would.
func bumpBuiltin(t *testing.T, dir, id string) {
	t.Helper()
	layer, name, _ := strings.Cut(id, ".")
	files, _ := filepath.Glob(filepath.Join(dir, "modules", "*", layer+"-"+name+".md"))
	if len(files) == 0 {
		t.Fatalf("no builtin files of %s", id)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := versionLine.ReplaceAllStringFunc(string(data), func(l string) string {
			n, _ := strconv.Atoi(strings.TrimPrefix(l, "version: "))
			return fmt.Sprintf("version: %d", n+1)
		})
		writeFile(t, f, strings.TrimRight(text, "\n")+"\n\nA sentence the new release adds.\n")
	}
}

// driftListed reports whether the drift list links id's en-US review.
func (env *wpEnv) driftListed(t *testing.T, id string) bool {
	t.Helper()
	resp, err := env.client.Get(env.base + "/drift")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/drift: %d", resp.StatusCode)
	}
	return strings.Contains(string(body), `href="/drift/`+id+`/en-US"`)
}

// post sends a console form with the session's CSRF token.
func (env *wpEnv) post(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	form.Set("_csrf", env.csrf)
	resp, err := env.client.PostForm(env.base+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// pageOutcome reads a console answer: a redirect stores, 409 conflicts,
// 422 is invalid, 200 with the equals-builtin or the nothing-to-save
// notice stores nothing.
func pageOutcome(t *testing.T, status int, body string) string {
	t.Helper()
	switch {
	case status == http.StatusSeeOther:
		return wpStored
	case status == http.StatusConflict:
		return wpConflict
	case status == http.StatusUnprocessableEntity:
		return wpInvalid
	case status == http.StatusOK && strings.Contains(body, "equals the builtin"):
		return wpEquals
	case status == http.StatusOK && strings.Contains(body, "Nothing changed, nothing was saved: your text is revision"):
		return wpUnchanged
	}
	t.Fatalf("unexpected answer %d:\n%.1500s", status, body)
	return ""
}

func wpConsole(t *testing.T, env *wpEnv, id, text string, base int) string {
	status, body := env.post(t, "/modules/"+id+"/override/en-US", url.Values{"text": {text}, "revision": {strconv.Itoa(base)}})
	return pageOutcome(t, status, body)
}

func wpRebase(t *testing.T, env *wpEnv, id, text string, base int) string {
	status, body := env.post(t, "/drift/"+id+"/en-US", url.Values{"action": {"rebase"}, "text": {text},
		"base": {strconv.Itoa(base)}, "builtin": {domain.TextHash(env.now[id].Text)}})
	return pageOutcome(t, status, body)
}

func wpAPI(t *testing.T, env *wpEnv, id, text string, base int) string {
	req, _ := http.NewRequest(http.MethodPut, env.base+"/api/v1/overrides/"+id+"?locale=en-US", strings.NewReader(text))
	req.Header.Set("Authorization", "Bearer "+env.token)
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("If-Match", strconv.Itoa(base))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var saved struct {
		Stored  bool   `json:"stored"`
		Message string `json:"message"`
	}
	body, _ := io.ReadAll(resp.Body)
	switch resp.StatusCode {
	case http.StatusOK:
		if err := json.Unmarshal(body, &saved); err != nil {
			t.Fatal(err)
		}
		switch {
		case saved.Stored:
			return wpStored
		case strings.Contains(saved.Message, "equals the builtin"):
			return wpEquals
		case strings.Contains(saved.Message, "nothing changed: the text is revision"):
			return wpUnchanged
		}
		t.Fatalf("unexpected answer: %s", body)
	case http.StatusPreconditionFailed:
		// The API says a stale If-Match the HTTP way.
		return wpConflict
	case http.StatusUnprocessableEntity:
		return wpInvalid
	}
	t.Fatalf("unexpected answer %d:\n%s", resp.StatusCode, body)
	return ""
}

func wpImport(t *testing.T, env *wpEnv, id, text string, _ int) string {
	src := t.TempDir()
	layer, name, _ := strings.Cut(id, ".")
	writeFile(t, filepath.Join(src, "modules", "en-US", layer+"-"+name+".md"), text)
	out, err := cliRun(t, "import", "--from", "promptdesk", src)
	switch {
	case strings.HasPrefix(out, "imported "):
		return wpStored
	case strings.HasPrefix(out, "skipped ") && strings.Contains(out, "identical to the builtin"):
		return wpEquals
	case strings.HasPrefix(out, "failed ") && strings.Contains(out, "changed while importing"):
		return wpConflict
	case strings.HasPrefix(out, "failed "):
		return wpInvalid
	}
	t.Fatalf("unexpected import report (%v):\n%s", err, out)
	return ""
}

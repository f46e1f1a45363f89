package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/reload"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// The fixtures of library/reload/testdata: a valid task.reload-notes
// (en-US, zh-CN; command /fieldnotes) and task.reload-broken, whose
// frontmatter has `triggers: [unclosed` on line 7.
const (
	notesEN  = "modules/en-US/task-reload-notes.md"
	notesZH  = "modules/zh-CN/task-reload-notes.md"
	brokenEN = "modules/en-US/task-reload-broken.md"
)

// libraryFolder writes the builtin library and the reload fixtures into
// a temporary folder.
func libraryFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, library.BuiltinFS()); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "library", "reload", "testdata"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startFolder starts a server on a fresh database serving the library
// folder dir (watched), logged in as the test admin.
func startFolder(t *testing.T, dir string) (*Server, *store.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lib, err := reload.New(dir, log)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(ctx, Config{Addr: "127.0.0.1:0", Logger: log, Store: st, Library: lib,
		Assembler: assembler.New(assembler.Config{}), Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	newUser(t, st, testUser, domain.RoleAdmin)
	clients.Store(srv.Handler(), login(t, srv.Handler(), testUser))
	return srv, st
}

// readyz is the JSON of GET /readyz.
type readyz struct {
	Status  string `json:"status"`
	Library struct {
		Source     string `json:"source"`
		Generation int    `json:"generation"`
		Broken     []struct {
			Path    string `json:"path"`
			Line    int    `json:"line"`
			Field   string `json:"field"`
			Error   string `json:"error"`
			Serving bool   `json:"serving"`
			Instead string `json:"instead"`
		} `json:"broken"`
	} `json:"library"`
}

func getReadyz(t *testing.T, h http.Handler) readyz {
	t.Helper()
	rec := serve(h, http.MethodGet, "/readyz")
	var r readyz
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &r) != nil {
		t.Fatalf("/readyz: %d %s", rec.Code, rec.Body.String())
	}
	return r
}

// A broken labels/en-US.yaml that never loaded is not served, but the
// embedded en-US labels serve in its place: /readyz says so in instead.
func TestLibraryFolderReadinessNamesTheEmbeddedLabels(t *testing.T) {
	t.Parallel()
	dir := libraryFolder(t)
	writeFile(t, dir, "labels/en-US.yaml", "list.separator: [open\n")
	srv, _ := startFolder(t, dir)
	r := getReadyz(t, srv.Handler())
	for _, b := range r.Library.Broken {
		if b.Path == slashJoin(dir, "labels/en-US.yaml") {
			if b.Serving || b.Instead != "the embedded en-US labels" {
				t.Errorf("labels/en-US.yaml: serving %t, instead %q; want false, the embedded en-US labels", b.Serving, b.Instead)
			}
			return
		}
	}
	t.Errorf("/readyz does not list labels/en-US.yaml: %+v", r.Library.Broken)
}

func slashJoin(dir, rel string) string { return filepath.ToSlash(filepath.Join(dir, rel)) }

// A broken file does not take the library down, at start, in the console
// and /readyz: a folder with a valid module and a broken one serves the
// valid one; the broken one (and one whose name carries HTML, and one whose
// field does) is listed with path and line on a banner on every console
// page, as text, and in /readyz, which stays 200.
func TestLibraryFolderBannerAndReadiness(t *testing.T) {
	t.Parallel()
	dir := libraryFolder(t)
	evilName := `modules/en-US/task-<img src=x onerror=alert(1)>.md`
	writeFile(t, dir, evilName, readFile(t, dir, notesEN))
	evilField := "modules/en-US/task-reload-evil.md"
	writeFile(t, dir, evilField, strings.Replace(readFile(t, dir, notesEN), "priority: 40\n", "priority: 40\n<script>alert(2)</script>: 1\n", 1))
	srv, _ := startFolder(t, dir)
	h := srv.Handler()

	r := getReadyz(t, h)
	if r.Status != "ready" || r.Library.Source != dir || r.Library.Generation != 1 || len(r.Library.Broken) != 3 {
		t.Fatalf("/readyz: %+v", r)
	}
	// Sorted by path: "task-<" comes before "task-e".
	if b := r.Library.Broken[0]; b.Path != slashJoin(dir, evilName) || b.Line != 0 || b.Field != "" || !strings.HasPrefix(b.Error, `invalid file name "task-<img src=x onerror=alert(1)>.md"`) || b.Serving {
		t.Errorf("/readyz broken[0] = %+v", b)
	}
	if b := r.Library.Broken[2]; b.Path != slashJoin(dir, evilField) || b.Line != 8 || b.Field != "<script>alert(2)</script>" || b.Serving {
		t.Errorf("/readyz broken[2] = %+v", b)
	}
	b := r.Library.Broken[1]
	if b.Path != slashJoin(dir, brokenEN) || b.Line != 7 || b.Field != "triggers" || !strings.Contains(b.Error, "not valid YAML") || b.Serving {
		t.Errorf("/readyz broken[1] = %+v, want %s line 7, field triggers, not valid YAML, not serving", b, brokenEN)
	}

	for _, page := range []string{"/", "/drift", "/preview", "/modules/task.reload-notes"} {
		rec := serve(h, http.MethodGet, page)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d", page, rec.Code)
		}
		body := rec.Body.String()
		if strings.Contains(body, "<img src=x") || strings.Contains(body, "<script>alert") {
			t.Errorf("%s: a file name or message reaches the page as HTML", page)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		banner := doc.Find(`[data-testid="library-banner"]`)
		if got := strings.TrimSpace(banner.Find("strong").Text()); got != "Library folder "+dir+": 3 files broken and not served: none has a good version yet" {
			t.Errorf("%s: banner headline %q", page, got)
		}
		items := banner.Find(`[data-testid="library-broken"]`)
		if items.Length() != 3 {
			t.Fatalf("%s: %d banner entries, want 3", page, items.Length())
		}
		// Paths relative to the folder the headline names; line, field,
		// message, then whether it serves.
		first := strings.Join(strings.Fields(items.Eq(1).Text()), " ")
		if want := brokenEN + `:7: field triggers: frontmatter is not valid YAML: the list opened with "[" on this line is never closed with "]" (not served: no good version yet)`; first != want {
			t.Errorf("%s: banner entry %q\nwant %q", page, first, want)
		}
		name := strings.Join(strings.Fields(items.Eq(0).Text()), " ")
		if !strings.HasPrefix(name, evilName+`: invalid file name "task-<img src=x onerror=alert(1)>.md"`) || !strings.HasSuffix(name, "(not served: no good version yet)") {
			t.Errorf("%s: banner entry %q", page, name)
		}
		field := strings.Join(strings.Fields(items.Eq(2).Text()), " ")
		if !strings.HasPrefix(field, evilField+":8: field <script>alert(2)</script>: unknown field") || !strings.HasSuffix(field, "(not served: no good version yet)") {
			t.Errorf("%s: banner entry %q", page, field)
		}
	}
	if body := serve(h, http.MethodGet, "/modules/task.reload-notes").Body.String(); !strings.Contains(body, "Field notes") {
		t.Error("the valid module of the folder is not served")
	}
	if rec := serveAPI(h, http.MethodGet, "/login", "", ""); strings.Contains(rec.Body.String(), "library-banner") {
		t.Error("the login page shows the banner to someone not logged in")
	}
}

// A broken file does not take the library down, through the server: while
// runtimes assemble over the API from several goroutines, the valid module
// file is truncated to 0 bytes and written back 200 ms later. Every
// response has the module; the console and /readyz list the truncated file
// meanwhile; the rewrite is a new generation in the composition report; a
// version raised in every locale makes a published override drifted. Run
// with -race.
func TestLibraryFolderReloadsWhileServing(t *testing.T) {
	t.Parallel()
	dir := libraryFolder(t)
	srv, st := startFolder(t, dir)
	h := srv.Handler()
	token := newToken(t, st, "runtime", domain.ScopeAssemble)
	good := readFile(t, dir, notesEN)
	body := strings.TrimSpace(good[strings.LastIndex(good, "---\n")+4:])

	type result struct {
		Generation int `json:"generation"`
		Text       string
		Report     []struct{ Kind, Module, Source, Line string }
	}
	assemble := func() (result, int) {
		rec := serveAPI(h, http.MethodPost, "/api/v1/assemble", `{"locale":"en-US","command":"/fieldnotes"}`, token)
		var res result
		if rec.Code == http.StatusOK {
			_ = json.Unmarshal(rec.Body.Bytes(), &res)
		}
		return res, rec.Code
	}
	first, code := assemble()
	if code != http.StatusOK || first.Generation != 1 || first.Report[0].Line != "library("+dir+" · generation:1)" {
		t.Fatalf("first assemble: %d, generation %d, report starts %+v", code, first.Generation, first.Report[:1])
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var runs, bad atomic.Int64
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, code := assemble()
				runs.Add(1)
				if code != http.StatusOK || !strings.Contains(res.Text, body) {
					if bad.Add(1) <= 3 {
						t.Errorf("assemble during the reload: %d, module body present: %t", code, strings.Contains(res.Text, body))
					}
				}
			}
		})
	}

	if err := os.Truncate(filepath.Join(dir, notesEN), 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	eventually(t, 10*time.Second, "the truncated file listed", func() bool {
		return len(getReadyz(t, h).Library.Broken) == 2
	})
	page := serve(h, http.MethodGet, "/").Body.String()
	if !strings.Contains(page, `data-path="`+notesEN+`"`) || !strings.Contains(page, "Library folder "+dir+": 2 files broken: 1 keeps serving its last good version, 1 is not served (no good version yet)") {
		t.Error("the console banner does not list the truncated file, serving, next to the fixture that never loaded")
	}
	if r := getReadyz(t, h); r.Library.Generation != 1 || r.Library.Broken[1].Path != slashJoin(dir, notesEN) || !r.Library.Broken[1].Serving || r.Library.Broken[1].Line != 1 {
		t.Errorf("/readyz while truncated: %+v", r.Library)
	}
	writeFile(t, dir, notesEN, good)
	eventually(t, 10*time.Second, "the rewrite in the composition report", func() bool {
		res, code := assemble()
		return code == http.StatusOK && res.Generation == 2
	})
	time.Sleep(20 * time.Millisecond)
	close(stop)
	wg.Wait()
	if bad.Load() > 0 || runs.Load() < 5 {
		t.Fatalf("%d assemblies, %d without the module", runs.Load(), bad.Load())
	}
	res, _ := assemble()
	if res.Report[0].Line != "library("+dir+" · generation:2)" {
		t.Errorf("report starts %q", res.Report[0].Line)
	}
	if r := getReadyz(t, h); len(r.Library.Broken) != 1 || r.Library.Generation != 2 {
		t.Errorf("/readyz after the rewrite: %+v", r.Library)
	}

	// Drift is judged against the reloaded library.
	m, _ := srv.served.Current().Library.Module("task.reload-notes", "en-US")
	text := strings.Replace(m.Text, "title: Field notes", "title: Field notes (ops)", 1)
	if _, err := st.SaveOverride(t.Context(), domain.Override{ModuleID: m.ID, Locale: "en-US", Text: text, Title: "Field notes (ops)", Version: 1,
		BasedOnVersion: 1, BaseSnapshot: m.Text, Author: "test", Publish: true}, 0); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the override served", func() bool {
		return has(srv.served.Current().State.Overrides, assembler.Key(m.ID, "en-US"))
	})
	if strings.Contains(serve(h, http.MethodGet, "/drift").Body.String(), "task.reload-notes") {
		t.Fatal("drift listed before the folder's version moved")
	}
	for _, rel := range []string{notesEN, notesZH} {
		writeFile(t, dir, rel, strings.Replace(readFile(t, dir, rel), "version: 1", "version: 2", 1))
	}
	eventually(t, 10*time.Second, "the override drifted", func() bool {
		return strings.Contains(serve(h, http.MethodGet, "/drift").Body.String(), "task.reload-notes")
	})
	res, _ = assemble()
	if lines := strings.Join(reportLinesOf(res.Report), "\n"); !strings.Contains(lines, "prompt(task.reload-notes v1 · command:/fieldnotes · override-drifted r1)") {
		t.Errorf("the drifted override is not reported as such:\n%s", lines)
	}
}

func reportLinesOf(report []struct{ Kind, Module, Source, Line string }) []string {
	out := make([]string, len(report))
	for i, e := range report {
		out[i] = e.Line
	}
	return out
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	// Written aside and renamed over: the watcher never sees it half
	// written, however slow the machine.
	tmp := filepath.Join(filepath.Dir(p), ".writing")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkLibraryFolderReload measures, through a started server, the
// time from writing a module file of the watched folder to the first
// POST /api/v1/assemble whose result has the new generation (debounce,
// reload and the overlay's rebuild included), over b.N writes; it
// reports p50, p99 and max in ms. Run with
// go test ./web -run '^$' -bench LibraryFolderReload -benchtime 100x
func BenchmarkLibraryFolderReload(b *testing.B) {
	dir := b.TempDir()
	if err := os.CopyFS(dir, library.BuiltinFS()); err != nil {
		b.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "library", "reload", "testdata"))); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lib, err := reload.New(dir, log)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(ctx, Config{Addr: "127.0.0.1:0", Logger: log, Store: st, Library: lib, Assembler: assembler.New(assembler.Config{}), Now: time.Now})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer srv.Close(ctx)
	_, token, err := st.CreateToken(domain.WithActor(ctx, "bench"), "bench", []string{domain.ScopeAssemble})
	if err != nil {
		b.Fatal(err)
	}
	generation := func() int {
		rec := serveAPI(srv.Handler(), http.MethodPost, "/api/v1/assemble", `{"locale":"en-US","command":"/fieldnotes"}`, token)
		var res struct {
			Generation int `json:"generation"`
		}
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &res) != nil {
			b.Fatalf("assemble: %d %s", rec.Code, rec.Body.String())
		}
		return res.Generation
	}
	data, err := os.ReadFile(filepath.Join(dir, notesEN))
	if err != nil {
		b.Fatal(err)
	}
	good := string(data)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		g := generation()
		text := strings.Replace(good, "title: Field notes", "title: Field notes "+strings.Repeat("I", i%7+1), 1)
		t0 := time.Now()
		if err := os.WriteFile(filepath.Join(dir, notesEN), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		for generation() == g {
			if time.Since(t0) > 10*time.Second {
				b.Fatal("no new generation within 10 s")
			}
			time.Sleep(time.Millisecond)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	msOf := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(msOf(lat[(len(lat)+1)/2-1]), "p50-ms") // nearest rank
	b.ReportMetric(msOf(lat[(len(lat)*99+99)/100-1]), "p99-ms")
	b.ReportMetric(msOf(lat[len(lat)-1]), "max-ms")
}

// An override that includes a module the library folder then drops stops
// serving (the builtin serves instead) and is listed as not served, rather
// than failing every assembly.
func TestLibraryFolderDropsAModuleAnOverrideIncludes(t *testing.T) {
	t.Parallel()
	dir := libraryFolder(t)
	const sig = "modules/en-US/aux-sig.md"
	writeFile(t, dir, sig, "---\nid: aux.sig\nlayer: aux\nversion: 1\ntitle: Signature\ndescription: The closing line\n---\nEnd with the team's name.\n")
	srv, st := startFolder(t, dir)
	m, _ := srv.served.Current().Library.Module("base.behavior", "en-US")
	text := strings.TrimRight(m.Text, "\n") + "\n\n{{aux.sig}}\n"
	if _, err := st.SaveOverride(t.Context(), domain.Override{ModuleID: m.ID, Locale: "en-US", Text: text, Version: m.Version,
		BasedOnVersion: m.Version, BaseSnapshot: m.Text, Author: "test", Publish: true}, 0); err != nil {
		t.Fatal(err)
	}
	key := assembler.Key(m.ID, "en-US")
	eventually(t, 5*time.Second, "the override served", func() bool { return has(srv.served.Current().State.Overrides, key) })
	if err := os.Remove(filepath.Join(dir, sig)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the override listed as not served", func() bool { return has(srv.served.Current().Broken, key) })
	v := srv.served.Current()
	if err, _ := v.Broken.Get(key); !strings.Contains(err.Error(), "unknown placeholder {{aux.sig}}") {
		t.Errorf("broken because %v, want the unknown placeholder named", err)
	}
	res, err := srv.cfg.Assembler.Assemble(v.Library, v.State, &assembler.Request{Locale: "en-US"}, time.Now())
	if err != nil {
		t.Fatalf("assembly fails after the library dropped aux.sig: %v", err)
	}
	if e := reportEntry(res.Report, "base.behavior"); e.Source != assembler.SourceFile {
		t.Errorf("base.behavior served from %q, want the library file", e.Source)
	}
}

// reportEntry is the prompt entry of id in report.
func reportEntry(report []assembler.ReportEntry, id string) assembler.ReportEntry {
	for _, e := range report {
		if e.Kind == assembler.KindPrompt && e.Module == id {
			return e
		}
	}
	return assembler.ReportEntry{}
}

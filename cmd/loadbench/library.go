package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/librarytest"
)

// libraryOptions are the flags of `loadbench library`.
type libraryOptions struct {
	binary            string
	size, runs        int
	requests, workers int
}

// libraryBench measures `promptdesk serve --library DIR` on the generated
// library of --size ids beside the builtin library written the same way:
//
//	go run ./cmd/loadbench library [--size 10000] [--runs 3] [--requests 1000]
//
// Both folders are written by librarytest.Write. Each run starts a fresh
// serve process on each folder in turn (alternating, on one private
// Postgres data folder, created before the first run), and reports the
// time from exec to the first /readyz answering "ready", then sends
// --requests mixed requests (--workers at a time: assemble of every
// example request, the library page in several pages and filters as a
// logged-in viewer, GET /api/v1/modules with a token, a render) and reads
// the server's resident memory (VmRSS and its peak VmHWM from
// /proc/<pid>/status). It prints every run and the medians.
func libraryBench(args []string) error {
	var o libraryOptions
	fs := flag.NewFlagSet("library", flag.ContinueOnError)
	fs.StringVar(&o.binary, "binary", "", "promptdesk binary; default: go build ./cmd/promptdesk")
	fs.IntVar(&o.size, "size", librarytest.Large, "module ids of the generated library")
	fs.IntVar(&o.runs, "runs", 3, "runs per library, alternating the two")
	fs.IntVar(&o.requests, "requests", 1000, "mixed requests per run, before resident memory is read")
	fs.IntVar(&o.workers, "workers", 4, "requests in flight")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tmp, binary, err := prepare(o.binary)
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}

	builtin, err := library.Builtin()
	if err != nil {
		return err
	}
	libs := []benchLibrary{
		{name: fmt.Sprintf("builtin (%d ids)", len(builtin.IDs())), size: len(builtin.IDs())},
		{name: fmt.Sprintf("generated (%d ids)", o.size), size: o.size},
	}
	for i := range libs {
		libs[i].dir = filepath.Join(tmp, fmt.Sprintf("lib%d", libs[i].size))
		start := time.Now()
		if err := librarytest.Write(libs[i].dir, libs[i].size); err != nil {
			return err
		}
		files := 0
		_ = filepath.WalkDir(libs[i].dir, func(_ string, d os.DirEntry, _ error) error {
			if d != nil && !d.IsDir() {
				files++
			}
			return nil
		})
		fmt.Printf("%s: %d files written in %.0f ms\n", libs[i].name, files, ms(time.Since(start)))
	}

	dataDir := filepath.Join(tmp, "d")
	token, err := createToken(binary, dataDir, "assemble,read")
	if err != nil {
		return err
	}
	examples, err := assembler.Examples()
	if err != nil {
		return err
	}
	user := &viewer{binary: binary, dataDir: dataDir}

	fmt.Printf("\n%-22s %3s %9s %9s %8s %8s %10s %10s %10s\n", "library", "run", "ready ms", "CPU ms", "RSS MB", "peak MB", "asm ms", "page ms", "list ms")
	for run := 1; run <= o.runs; run++ {
		// Alternate which side goes first, so that neither always
		// follows the other on a machine whose pace drifts.
		order := []int{0, 1}
		if run%2 == 0 {
			order = []int{1, 0}
		}
		for _, i := range order {
			r, err := serveOnce(binary, dataDir, libs[i].dir, token, user, examples, o)
			if err != nil {
				return fmt.Errorf("%s, run %d: %w", libs[i].name, run, err)
			}
			libs[i].runs = append(libs[i].runs, r)
			r.print(libs[i].name, fmt.Sprint(run))
		}
	}
	fmt.Println()
	for _, l := range libs {
		medianRun(l.runs).print(l.name, "med")
	}
	big, small := medianRun(libs[1].runs), medianRun(libs[0].runs)
	fmt.Printf("\ngenerated / builtin: ready %.2f×, RSS %.2f×\n", ratio(big.ready, small.ready), float64(big.rss)/float64(small.rss))
	return nil
}

// prepare makes the temporary folder (which the private cluster's
// postgres user must be able to enter) and builds the binary unless one
// is given.
func prepare(binary string) (tmp, bin string, err error) {
	tmp, err = os.MkdirTemp("", "lb")
	if err != nil {
		return "", "", err
	}
	// The private cluster runs as the postgres OS user, which must enter
	// the folder.
	if err := os.Chmod(tmp, 0o711); err != nil {
		return tmp, "", err
	}
	if binary != "" {
		return tmp, binary, nil
	}
	bin = filepath.Join(tmp, "promptdesk")
	build := exec.Command("go", "build", "-o", bin, "./cmd/promptdesk")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return tmp, "", fmt.Errorf("go build ./cmd/promptdesk (run from the project root, or pass --binary): %w", err)
	}
	return tmp, bin, nil
}

// benchLibrary is one side of the library comparison.
type benchLibrary struct {
	name string
	size int
	dir  string
	runs []libraryRun
}

// libraryRun is one serve process's figures.
type libraryRun struct {
	// From exec to ready: wall time, and the server's CPU time (user +
	// system), which a busy machine stretches less.
	ready, readyCPU time.Duration
	rss, peak       int64
	// Median latency of each kind of request.
	assemble, page, list time.Duration
}

func (r libraryRun) print(name, run string) {
	fmt.Printf("%-22s %3s %9.0f %9.0f %8.1f %8.1f %10.1f %10.1f %10.1f\n", name, run, ms(r.ready), ms(r.readyCPU), mb(r.rss), mb(r.peak),
		ms(r.assemble), ms(r.page), ms(r.list))
}

// medianRun takes each figure's median over the runs.
func medianRun(rs []libraryRun) libraryRun {
	pick := func(f func(libraryRun) int64) int64 { return medianOf(rs, f) }
	return libraryRun{
		ready:    time.Duration(pick(func(r libraryRun) int64 { return int64(r.ready) })),
		readyCPU: time.Duration(pick(func(r libraryRun) int64 { return int64(r.readyCPU) })),
		rss:      pick(func(r libraryRun) int64 { return r.rss }),
		peak:     pick(func(r libraryRun) int64 { return r.peak }),
		assemble: time.Duration(pick(func(r libraryRun) int64 { return int64(r.assemble) })),
		page:     time.Duration(pick(func(r libraryRun) int64 { return int64(r.page) })),
		list:     time.Duration(pick(func(r libraryRun) int64 { return int64(r.list) })),
	}
}

// serveOnce starts serve on the library folder dir, times it to ready,
// sends the mixed requests, reads its memory and stops it.
func serveOnce(binary, dataDir, dir, token string, user *viewer, examples []assembler.Example, o libraryOptions) (libraryRun, error) {
	var r libraryRun
	addr, err := freeAddr()
	if err != nil {
		return r, err
	}
	base := "http://" + addr
	started := time.Now()
	p, err := startProcess(binary, "serve", "--addr", addr, "--data-dir", dataDir, "--library", dir, "--log-level", "warn")
	if err != nil {
		return r, err
	}
	defer p.stop()
	if err := waitReady(base, 2*time.Minute); err != nil {
		return r, fmt.Errorf("%w\n%s", err, p.output())
	}
	r.ready, r.readyCPU = time.Since(started), p.cpu()
	client, err := user.login(base)
	if err != nil {
		return r, err
	}
	reqs := mixedRequests(base, token, examples)
	lat := make([][]time.Duration, len(reqs))
	var mu sync.Mutex
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range o.workers {
		wg.Go(func() {
			for {
				n := int(next.Add(1)) - 1
				if n >= o.requests || failed.Load() != nil {
					return
				}
				k := n % len(reqs)
				start := time.Now()
				if err := reqs[k].do(client); err != nil {
					failed.CompareAndSwap(nil, fmt.Errorf("%s: %w", reqs[k].name, err))
					return
				}
				d := time.Since(start)
				mu.Lock()
				lat[k] = append(lat[k], d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return r, err
	}
	r.rss, r.peak = p.memory()
	var asm, page, list []time.Duration
	for k, q := range reqs {
		switch q.kind {
		case "assemble":
			asm = append(asm, lat[k]...)
		case "page":
			page = append(page, lat[k]...)
		case "list":
			list = append(list, lat[k]...)
		}
	}
	same := func(d time.Duration) time.Duration { return d }
	r.assemble, r.page, r.list = medianOf(asm, same), medianOf(page, same), medianOf(list, same)
	return r, nil
}

// benchRequest is one request of the mix; kind groups the latencies.
type benchRequest struct {
	name, kind string
	do         func(*http.Client) error
}

// mixedRequests are the requests sent in turn: each example request
// assembled, the library page (first page, a later page, a search, a
// filter), the module list of the API and a render.
func mixedRequests(base, token string, examples []assembler.Example) []benchRequest {
	api := func(method, path string, body []byte) func(*http.Client) error {
		return func(c *http.Client) error {
			req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
			if err != nil {
				return err
			}
			req.Header.Set("Authorization", "Bearer "+token)
			if body != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			return expectOK(c.Do(req))
		}
	}
	var out []benchRequest
	for _, ex := range examples {
		out = append(out, benchRequest{"assemble " + ex.ID, "assemble", api(http.MethodPost, "/api/v1/assemble", ex.Request)})
	}
	for _, q := range []string{"/", "/?page=7", "/?q=minutes", "/?layer=task&locale=zh-CN"} {
		out = append(out, benchRequest{"page " + q, "page", func(c *http.Client) error { return expectOK(c.Get(base + q)) }})
	}
	out = append(out,
		benchRequest{"GET /api/v1/modules", "list", api(http.MethodGet, "/api/v1/modules", nil)},
		benchRequest{"render aux.title-gen", "render", api(http.MethodPost, "/api/v1/render",
			[]byte(`{"module": "aux.title-gen", "locale": "zh-CN", "variables": {"conversation": "user: please summarise the meeting notes"}}`))},
	)
	return out
}

// expectOK reads and closes the answer; anything but 200 is an error.
func expectOK(resp *http.Response, err error) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %.300s", resp.StatusCode, body)
	}
	return nil
}

// waitReady polls /readyz until it answers "ready".
func waitReady(base string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			var body struct {
				Status string `json:"status"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK && body.Status == "ready" {
				return nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("not ready after %s", limit)
}

// viewer is the console user of the runs: set up through a one-time
// link on the first server, logged in with its password on the others.
type viewer struct {
	binary, dataDir string
	set             bool
}

const (
	viewerName     = "loadbench"
	viewerPassword = "loadbench password"
)

var (
	setupLinkLine = regexp.MustCompile(`(?m)^https?://[^/\s]+(/setup/\S+)$`)
	csrfMetaTag   = regexp.MustCompile(`<meta name="csrf-token" content="([^"]*)"`)
)

// login returns a client holding a session of the viewer on base.
func (v *viewer) login(base string) (*http.Client, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Jar: jar, Timeout: time.Minute}
	page := "/login"
	form := url.Values{"name": {viewerName}, "password": {viewerPassword}}
	if !v.set {
		cmd := exec.Command(v.binary, "user", "add", "--data-dir", v.dataDir, "--log-level", "warn", "--role", "viewer", viewerName)
		out, err := cmd.CombinedOutput()
		m := setupLinkLine.FindSubmatch(out)
		if err != nil || m == nil {
			return nil, fmt.Errorf("promptdesk user add: %v\n%s", err, out)
		}
		page = string(m[1])
		form = url.Values{"password": {viewerPassword}, "password2": {viewerPassword}}
	}
	resp, err := client.Get(base + page)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tok := csrfMetaTag.FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || tok == nil {
		return nil, fmt.Errorf("GET %s: status %d", page, resp.StatusCode)
	}
	form.Set("_csrf", string(tok[1]))
	// The answer is a redirect to the library page: followed, it is
	// the first page of the session.
	if err := expectOK(client.PostForm(base+page, form)); err != nil {
		return nil, fmt.Errorf("POST %s: %w", page, err)
	}
	v.set = true
	return client, nil
}

// memory is the process's resident memory and its peak, in bytes.
func (p *process) memory() (rss, peak int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	field := func(name string) int64 {
		for line := range strings.SplitSeq(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				var kb int64
				fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
				return kb << 10
			}
		}
		return 0
	}
	return field("VmRSS"), field("VmHWM")
}

// Command loadbench measures POST /api/v1/assemble of the real server
// beside an I/O floor, in one run:
//
//	go run ./cmd/loadbench [--request FILE] [--duration 5s] [--rounds 3]
//	go run ./cmd/loadbench library [--size 10000] [--runs 3] [--requests 1000]
//
// The second form measures serve --library at a large library (time to
// ready, resident memory after mixed requests; see libraryBench).
//
// It builds cmd/promptdesk (or takes --binary), creates an API token and
// starts `promptdesk serve` on a free local port, with a private Postgres
// cluster in a temporary folder unless DATABASE_URL is set, exactly as an
// operator would. The floor is a second process: an Echo server whose
// handler reads the same body, decodes it into the same request type
// (assembler.DecodeRequest) and writes the bytes the real server answered
// for it. The request is the rag-shaped example (minutes-zh: 42
// documents, 45 FAQ entries, 12 skills) unless --request names another
// assemble request or scenario file.
//
// It prints the time to the first assemble after start (and of the
// second, for the machine's pace); then, after
// --warmup requests (10,000), the resident memory of both servers; then
// for each concurrency (--concurrency 8,32) rounds alternating the two
// servers (vegeta, keep-alive, one connection per worker): requests/s,
// p50 and p99 latency, server CPU per request (user + system time of the
// server process from /proc, so Postgres and the load generator are not
// in it), and the ratio; last, p99 of each at 80 % of its own peak rate.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/promptdesk/promptdesk/assembler"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "library" {
		if err := libraryBench(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench library:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		if err := floor(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench floor:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

// floor serves the I/O floor: `loadbench floor --addr A --response FILE`.
func floor(args []string) error {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	respFile := fs.String("response", "", "file with the answer's bytes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	resp, err := os.ReadFile(*respFile)
	if err != nil {
		return err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/api/v1/assemble", func(c echo.Context) error {
		data, err := io.ReadAll(io.LimitReader(c.Request().Body, 8<<20))
		if err != nil {
			return err
		}
		if _, err := assembler.DecodeRequest(data); err != nil {
			return c.String(http.StatusBadRequest, err.Error())
		}
		h := c.Response().Header()
		h.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
		h.Set(echo.HeaderContentLength, strconv.Itoa(len(resp)))
		c.Response().WriteHeader(http.StatusOK)
		_, err = c.Response().Write(resp)
		return err
	})
	e.GET("/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	return e.Start(*addr)
}

type options struct {
	binary, request string
	duration        time.Duration
	rounds, warmup  int
	concurrency     []int
}

func run() error {
	var o options
	var conc string
	flag.StringVar(&o.binary, "binary", "", "promptdesk binary; default: go build ./cmd/promptdesk")
	flag.StringVar(&o.request, "request", "", "assemble request or scenario JSON; default: the minutes-zh example")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "length of one round on one server")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds per concurrency, alternating the servers")
	flag.IntVar(&o.warmup, "warmup", 10000, "requests to each server before the rounds; resident memory is read after them")
	flag.StringVar(&conc, "concurrency", "8,32", "concurrencies (workers = connections), comma-separated")
	flag.Parse()
	for _, f := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("--concurrency: %q is not a positive number", f)
		}
		o.concurrency = append(o.concurrency, n)
	}
	body, err := requestBody(o.request)
	if err != nil {
		return err
	}
	tmp, binary, err := prepare(o.binary)
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	o.binary = binary
	dataDir := filepath.Join(tmp, "d")
	token, err := createToken(o.binary, dataDir, "assemble")
	if err != nil {
		return err
	}

	// The real server.
	pdAddr, err := freeAddr()
	if err != nil {
		return err
	}
	started := time.Now()
	pd, err := startProcess(o.binary, "serve", "--addr", pdAddr, "--data-dir", dataDir, "--log-level", "warn")
	if err != nil {
		return err
	}
	defer pd.stop()
	pdURL := "http://" + pdAddr
	if err := waitHealthy(pdURL, 2*time.Minute); err != nil {
		return fmt.Errorf("promptdesk serve: %w\n%s", err, pd.output())
	}
	ready := time.Since(started)
	firstStart := time.Now()
	resp, status, err := post(pdURL, token, body)
	first := time.Since(firstStart)
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("first assemble: status %d, %v: %s", status, err, resp)
	}
	secondStart := time.Now()
	if _, status, err := post(pdURL, token, body); err != nil || status != http.StatusOK {
		return fmt.Errorf("second assemble: status %d, %v", status, err)
	}
	second := time.Since(secondStart)
	respFile := filepath.Join(tmp, "response.json")
	if err := os.WriteFile(respFile, resp, 0o600); err != nil {
		return err
	}

	// The floor.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	flAddr, err := freeAddr()
	if err != nil {
		return err
	}
	fl, err := startProcess(self, "floor", "--addr", flAddr, "--response", respFile)
	if err != nil {
		return err
	}
	defer fl.stop()
	flURL := "http://" + flAddr
	if err := waitHealthy(flURL, 30*time.Second); err != nil {
		return fmt.Errorf("floor: %w\n%s", err, fl.output())
	}
	if r, status, err := post(flURL, token, body); err != nil || status != http.StatusOK || !bytes.Equal(r, resp) {
		return fmt.Errorf("floor answers status %d, %v, %d bytes (want the server's %d)", status, err, len(r), len(resp))
	}

	servers := []*server{
		{name: "promptdesk", url: pdURL, proc: pd},
		{name: "floor", url: flURL, proc: fl},
	}
	fmt.Printf("request: %s, %d bytes; answer %d bytes\n", describe(o.request), len(body), len(resp))
	fmt.Printf("promptdesk serve: healthy %.0f ms after start; first assemble %.1f ms (answered %.0f ms after start), the second %.1f ms\n",
		ms(ready), ms(first), ms(ready+first), ms(second))

	for _, s := range servers {
		if o.warmup > 0 {
			if _, err := attack(s, token, body, 8, 0, o.warmup, 0); err != nil {
				return err
			}
		}
		s.rssAfterWarmup = s.proc.rss()
	}
	fmt.Printf("resident memory after %d requests: promptdesk %.1f MB, floor %.1f MB\n",
		o.warmup, mb(servers[0].rssAfterWarmup), mb(servers[1].rssAfterWarmup))

	fmt.Printf("\n%-11s %5s %10s %9s %9s %12s\n", "server", "conc", "req/s", "p50 ms", "p99 ms", "CPU µs/req")
	peak := map[string]float64{}
	for _, c := range o.concurrency {
		res := map[string][]result{}
		for range o.rounds {
			for _, s := range servers {
				r, err := attack(s, token, body, c, 0, 0, o.duration)
				if err != nil {
					return err
				}
				res[s.name] = append(res[s.name], r)
			}
		}
		med := map[string]result{}
		for _, s := range servers {
			m := median(res[s.name])
			med[s.name] = m
			peak[s.name] = max(peak[s.name], m.rps)
			fmt.Printf("%-11s %5d %10.0f %9.2f %9.2f %12.0f\n", s.name, c, m.rps, ms(m.p50), ms(m.p99), m.cpuPerReq)
		}
		p, f := med["promptdesk"], med["floor"]
		fmt.Printf("%-11s %5d %9.1f%% %8.1f× %8.1f× %11.1f×\n", "ratio", c, 100*p.rps/f.rps, ratio(p.p50, f.p50), ratio(p.p99, f.p99), p.cpuPerReq/f.cpuPerReq)
	}
	fmt.Println()
	for _, s := range servers {
		rate := 0.8 * peak[s.name]
		r, err := attack(s, token, body, slices.Max(o.concurrency), rate, 0, o.duration)
		if err != nil {
			return err
		}
		fmt.Printf("%-11s at 80%% of its peak (%.0f req/s): p50 %.2f ms, p99 %.2f ms, CPU %.0f µs/req\n", s.name, rate, ms(r.p50), ms(r.p99), r.cpuPerReq)
	}
	for _, s := range servers {
		fmt.Printf("resident memory at the end: %s %.1f MB\n", s.name, mb(s.proc.rss()))
	}
	return nil
}

// requestBody reads the request file (a scenario file's "request" is
// taken out) or returns the minutes-zh example.
func requestBody(path string) ([]byte, error) {
	if path == "" {
		examples, err := assembler.Examples()
		if err != nil {
			return nil, err
		}
		for _, ex := range examples {
			if ex.ID == "minutes-zh" {
				return ex.Request, nil
			}
		}
		return nil, errors.New("the minutes-zh example is missing")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := assembler.DecodeRequest(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

func describe(path string) string {
	if path == "" {
		return "example minutes-zh"
	}
	return path
}

// createToken creates an API token with scopes (comma-separated) through
// the CLI and returns its secret.
func createToken(binary, dataDir, scopes string) (string, error) {
	cmd := exec.Command(binary, "token", "add", "--data-dir", dataDir, "--log-level", "warn", "--scope", scopes, "loadbench")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("promptdesk token add: %w\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[1]) == "" {
		return "", fmt.Errorf("promptdesk token add printed no token:\n%s", out.String())
	}
	return strings.TrimSpace(lines[1]), nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// process is a server started by loadbench.
type process struct {
	cmd *exec.Cmd
	log *bytes.Buffer
}

func startProcess(name string, args ...string) (*process, error) {
	cmd := exec.Command(name, args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &process{cmd: cmd, log: &log}, nil
}

func (p *process) output() string { return p.log.String() }

// stop asks the server to shut down (serve then stops its Postgres
// cluster) and waits for it.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// cpu is the process's user + system time so far.
func (p *process) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: state is
	// field 3, utime 14 and stime 15.
	rest := string(data[bytes.LastIndexByte(data, ')')+2:])
	f := strings.Fields(rest)
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times: 100 on
// Linux on every architecture Go supports.
const clockTicks = 100

// rss is the process's resident memory in bytes.
func (p *process) rss() int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func waitHealthy(url string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		r, err := http.Get(url + "/healthz")
		if err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("not healthy after %s", limit)
}

func post(url, token string, body []byte) ([]byte, int, error) {
	req, err := http.NewRequest(http.MethodPost, url+"/api/v1/assemble", bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer r.Body.Close()
	data, err := io.ReadAll(r.Body)
	return data, r.StatusCode, err
}

// server is one side of the comparison.
type server struct {
	name, url      string
	proc           *process
	rssAfterWarmup int64
}

// result is one attack's figures.
type result struct {
	rps       float64
	p50, p99  time.Duration
	cpuPerReq float64 // µs of server CPU per request
}

// attack sends requests with conc workers for dur (or count requests when
// count > 0), as fast as answered (rate 0) or at rate per second; every
// answer must be 200.
func attack(s *server, token string, body []byte, conc int, rate float64, count int, dur time.Duration) (result, error) {
	target := vegeta.Target{Method: http.MethodPost, URL: s.url + "/api/v1/assemble", Body: body,
		Header: http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}}
	opts := []func(*vegeta.Attacker){vegeta.Workers(uint64(conc)), vegeta.Connections(conc), vegeta.KeepAlive(true), vegeta.Timeout(30 * time.Second)}
	r := vegeta.Rate{Freq: int(rate), Per: time.Second}
	if rate == 0 {
		opts = append(opts, vegeta.MaxWorkers(uint64(conc)))
		r = vegeta.Rate{}
	}
	atk := vegeta.NewAttacker(opts...)
	var targeter vegeta.Targeter = vegeta.NewStaticTargeter(target)
	if count > 0 {
		dur = 0
		targeter = countTargeter(targeter, count)
	}
	cpu0 := s.proc.cpu()
	var m vegeta.Metrics
	for res := range atk.Attack(targeter, r, dur, s.name) {
		if res.Error == vegeta.ErrNoTargets.Error() {
			continue // the count was reached
		}
		m.Add(res)
	}
	m.Close()
	cpu := s.proc.cpu() - cpu0
	if m.Success < 1 {
		return result{}, fmt.Errorf("%s: %d of %d requests failed: %v %v", s.name, m.Requests-uint64(float64(m.Requests)*m.Success), m.Requests, m.StatusCodes, m.Errors)
	}
	return result{rps: m.Throughput, p50: m.Latencies.P50, p99: m.Latencies.P99,
		cpuPerReq: float64(cpu.Microseconds()) / float64(m.Requests)}, nil
}

// countTargeter ends the attack after n targets; workers call it
// concurrently.
func countTargeter(t vegeta.Targeter, n int) vegeta.Targeter {
	var taken atomic.Int64
	return func(tgt *vegeta.Target) error {
		if taken.Add(1) > int64(n) {
			return vegeta.ErrNoTargets
		}
		return t(tgt)
	}
}

// medianOf is the median of f over rs (the upper one of an even
// count; zero for none).
func medianOf[R any, T cmp.Ordered](rs []R, f func(R) T) T {
	v := make([]T, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	if len(v) == 0 {
		var zero T
		return zero
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// median takes each figure's median over the rounds.
func median(rs []result) result {
	pick := func(f func(result) float64) float64 { return medianOf(rs, f) }
	return result{
		rps:       pick(func(r result) float64 { return r.rps }),
		p50:       time.Duration(pick(func(r result) float64 { return float64(r.p50) })),
		p99:       time.Duration(pick(func(r result) float64 { return float64(r.p99) })),
		cpuPerReq: pick(func(r result) float64 { return r.cpuPerReq }),
	}
}

func ms(d time.Duration) float64       { return float64(d) / float64(time.Millisecond) }
func mb(b int64) float64               { return float64(b) / (1 << 20) }
func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

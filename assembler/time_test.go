package assembler_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
)

func clockLib(t testing.TB) *library.Snapshot {
	t.Helper()
	return newLib(t, withCore(mod{id: "env.clock", body: "{{date}}|{{weekday}}|{{current_time}}"})...)
}

// timeZoneRequest is a request across midnight and a leap day: clock
// 2024-02-29T17:30:00Z, zone Asia/Shanghai, one document created
// 2024-02-29T23:30:00+08:00.
func timeZoneRequest(locale string) *assembler.Request {
	now := time.Date(2024, 2, 29, 17, 30, 0, 0, time.UTC)
	return &assembler.Request{
		Locale:   locale,
		TimeZone: "Asia/Shanghai",
		Now:      &now,
		KnowledgeBases: []assembler.KnowledgeBase{{ID: "kb", Name: "Docs", Type: assembler.KnowledgeDocument, DocCount: 1, RecentDocs: []assembler.Document{
			{KnowledgeID: "d1", Title: "Leap day", CreatedAt: time.Date(2024, 2, 29, 23, 30, 0, 0, time.FixedZone("CST", 8*3600))},
		}}},
	}
}

// Date, weekday, current time and document dates are in the
// request's zone, whatever the server's zone.
func TestTimeZones(t *testing.T) {
	t.Parallel()
	snap := clockLib(t)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		locale, clock string
	}{
		{"en-US", "2024-03-01|Friday|2024-03-01T01:30:00+08:00"},
		{"zh-CN", "2024-03-01|星期五|2024-03-01T01:30:00+08:00"},
	} {
		t.Run(tt.locale, func(t *testing.T) {
			t.Parallel()
			res, err := assembler.New(assembler.Config{TimeZone: time.UTC}).Assemble(snap, nil, timeZoneRequest(tt.locale), fixedNow)
			if err != nil {
				t.Fatal(err)
			}
			if got := segment(t, res, assembler.SegmentBase).Text; got != tt.clock {
				t.Errorf("clock = %q, want %q", got, tt.clock)
			}
			rows := parseTables(t, res.Tables.Knowledge)[0].rows
			if got := rows[0][2]; got != "2024-02-29 23:30" {
				t.Errorf("created = %q, want 2024-02-29 23:30", got)
			}
		})
	}

	// Which zone applies: request, then profile, then server.
	now := time.Date(2024, 2, 29, 17, 30, 0, 0, time.UTC)
	st := stateWith(nil,
		&domain.Profile{ID: "tokyo", TimeZone: "Asia/Tokyo", SkillDisclosure: true},
		&domain.Profile{ID: "broken", TimeZone: "Mars/Olympus", SkillDisclosure: true},
	)
	for _, tt := range []struct {
		name, zone, profile string
		server              *time.Location
		clock               string
	}{
		{"server zone", "", "", ny, "2024-02-29|Thursday|2024-02-29T12:30:00-05:00"},
		{"server default is UTC", "", "", nil, "2024-02-29|Thursday|2024-02-29T17:30:00Z"},
		{"profile zone beats server", "", "tokyo", ny, "2024-03-01|Friday|2024-03-01T02:30:00+09:00"},
		{"request zone beats profile", "Asia/Shanghai", "tokyo", ny, "2024-03-01|Friday|2024-03-01T01:30:00+08:00"},
		{"zone with a sign", "Etc/GMT+8", "", nil, "2024-02-29|Thursday|2024-02-29T09:30:00-08:00"},
		{"zone of three parts", "America/Argentina/Buenos_Aires", "", nil, "2024-02-29|Thursday|2024-02-29T14:30:00-03:00"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := assembler.New(assembler.Config{TimeZone: tt.server}).Assemble(snap, st,
				&assembler.Request{TimeZone: tt.zone, Profile: tt.profile}, now)
			if err != nil {
				t.Fatal(err)
			}
			if got := segment(t, res, assembler.SegmentBase).Text; got != tt.clock {
				t.Errorf("clock = %q, want %q", got, tt.clock)
			}
		})
	}

	// Request.Now replaces the clock argument.
	t.Run("request clock", func(t *testing.T) {
		t.Parallel()
		reqNow := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		res, err := assembler.New(assembler.Config{}).Assemble(snap, nil, &assembler.Request{Now: &reqNow}, now)
		if err != nil {
			t.Fatal(err)
		}
		if got := segment(t, res, assembler.SegmentBase).Text; got != "2030-01-02|Wednesday|2030-01-02T03:04:05Z" {
			t.Errorf("clock = %q", got)
		}
	})

	for _, tt := range []struct{ name, zone, profile, field string }{
		{"unknown request zone", "Mars/Olympus", "", "timeZone"},
		{"host zone by name", "Local", "", "timeZone"},
		{"host zone by file name", "localtime", "", "timeZone"},
		{"empty path segment", "Asia//Tokyo", "", "timeZone"},
		{"dot segment", "./UTC", "", "timeZone"},
		{"posix copy", "posix/Asia/Tokyo", "", "timeZone"},
		{"leap-second copy", "right/UTC", "", "timeZone"},
		{"zoneinfo rule file", "posixrules", "", "timeZone"},
		{"unknown profile zone", "", "broken", "profile.timeZone"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := assembleErr(t, snap, st, &assembler.Request{TimeZone: tt.zone, Profile: tt.profile})
			if e.Code != library.CodeInvalidRequest || e.Field != tt.field {
				t.Errorf("error = %+v, want invalid_request on %s", e, tt.field)
			}
		})
	}
}

// tzChildEnv names the file a child test process writes its output to.
const tzChildEnv = "PROMPTDESK_TEST_TZ_OUT"

// The output is identical whatever the host's TZ. The host zone is
// process-wide, so each zone runs in a child process of this test binary
// (no mutation of time.Local, no race).
func TestHostZoneDoesNotMatter(t *testing.T) {
	t.Parallel()
	if os.Getenv(tzChildEnv) != "" {
		t.Skip("child process")
	}
	want := timeZoneText(t)
	dir := t.TempDir()
	for _, tz := range []string{"UTC", "Pacific/Kiritimati", "America/Los_Angeles", "Asia/Shanghai"} {
		out := filepath.Join(dir, filepath.Base(tz))
		cmd := exec.Command(os.Args[0], "-test.run=^TestHostZoneChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TZ="+tz, tzChildEnv+"="+out)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child with TZ=%s: %v\n%s", tz, err, msg)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("child with TZ=%s wrote nothing: %v", tz, err)
		}
		if string(got) != want {
			t.Errorf("TZ=%s changes the output:\n got %q\nwant %q", tz, got, want)
		}
	}
}

// TestHostZoneChild runs only as the child of
// TestHostZoneDoesNotMatter: it writes timeZoneText to a file.
func TestHostZoneChild(t *testing.T) {
	out := os.Getenv(tzChildEnv)
	if out == "" {
		t.Skip("runs only as a child process of TestHostZoneDoesNotMatter")
	}
	if err := os.WriteFile(out, []byte(timeZoneText(t)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// timeZoneText is the assembly of timeZoneRequest (zh-CN, server zone UTC)
// with the clock given as a time in the host's zone.
func timeZoneText(t *testing.T) string {
	t.Helper()
	req := timeZoneRequest("zh-CN")
	local := req.Now.Local()
	req.Now = nil
	res, err := assembler.New(assembler.Config{TimeZone: time.UTC}).Assemble(clockLib(t), nil, req, local)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text
}

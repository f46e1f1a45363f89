package main

import (
	"bytes"
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/sealed"
)

// cliEnvs is every environment variable of the CLI's struct tags, walked
// by reflection (not through kong), with its flag name.
func cliEnvs() map[string]string {
	out := map[string]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if env := f.Tag.Get("env"); env != "" {
				out[env] = f.Tag.Get("name")
			}
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() != "time" {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeFor[CLI]())
	return out
}

// config prints every flag and environment variable with its value and
// where it came from; a password in DATABASE_URL never shows.
func TestConfigPrintsTheEffectiveConfiguration(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://pd:s3cret-pw@db:5432/pd?sslmode=disable")
	t.Setenv("PROMPTDESK_READ_TIMEOUT", "5s")
	t.Setenv("PROMPTDESK_URL", "https://prompts.example.com")
	key := sealed.NewKey()
	t.Setenv("PROMPTDESK_SECRET_KEY", key)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"config", "--addr", "0.0.0.0:9000", "--log-level", "debug"}, &out, &errOut); err != nil {
		t.Fatalf("config: %v\n%s", err, errOut.String())
	}
	text := out.String()
	if strings.Contains(text, "s3cret-pw") || strings.Contains(text, key) {
		t.Fatalf("the password or the secret key shows:\n%s", text)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n")[1:] {
		cols := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
		if len(cols) != 4 {
			t.Fatalf("line %q: want 4 columns", line)
		}
		rows[cols[1]] = cols
	}
	for env, flag := range cliEnvs() {
		if r := rows[env]; r == nil || !strings.HasPrefix(r[0], "--"+flag) {
			t.Errorf("%s (--%s) not printed: %v", env, flag, r)
		}
	}
	for env, want := range map[string][2]string{
		"DATABASE_URL":             {"postgres://pd:xxxxx@db:5432/pd?sslmode=disable", "env DATABASE_URL"},
		"PROMPTDESK_SECRET_KEY":    {"xxxxx", "env PROMPTDESK_SECRET_KEY"},
		"PROMPTDESK_ADDR":          {"0.0.0.0:9000", "flag"},
		"PROMPTDESK_LOG_LEVEL":     {"debug", "flag"},
		"PROMPTDESK_READ_TIMEOUT":  {"5s", "env PROMPTDESK_READ_TIMEOUT"},
		"PROMPTDESK_WRITE_TIMEOUT": {"30s", "default"},
		"PROMPTDESK_IDLE_TIMEOUT":  {"2m0s", "default"},
		"PROMPTDESK_METRICS_ADDR":  {"(empty)", "default"},
		"PROMPTDESK_SKILL_BUDGET":  {"8000", "default"},
		"PROMPTDESK_URL":           {"https://prompts.example.com", "env PROMPTDESK_URL"},
	} {
		if r := rows[env]; r == nil || r[2] != want[0] || r[3] != want[1] {
			t.Errorf("%s: %v, want value %q from %q", env, r, want[0], want[1])
		}
	}
}

// redacted masks the password of a URL, of a URL query and of a
// keyword/value connection string, and leaves the rest as it is.
func TestRedacted(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://pd:s3cret@db:5432/pd":                 "postgres://pd:xxxxx@db:5432/pd",
		"postgres://pd@db/pd?password=s3cret&sslmode=off": "postgres://pd@db/pd?password=xxxxx&sslmode=off",
		"host=db user=pd password='s3 cret' dbname=pd":    "host=db user=pd password=xxxxx dbname=pd",
		"host=db password=s3cret":                         "host=db password=xxxxx",
		"postgres://pd@db/pd":                             "postgres://pd@db/pd",
	} {
		if got := redacted(in); got != want {
			t.Errorf("redacted(%q) = %q, want %q", in, got, want)
		}
	}
}

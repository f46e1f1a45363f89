package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// cliFlags is every flag name ("--addr") of the CLI's struct tags,
// positional arguments left out.
func cliFlags() []string {
	var out []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if _, arg := f.Tag.Lookup("arg"); !arg && f.Tag.Get("name") != "" {
				out = append(out, "--"+f.Tag.Get("name"))
			}
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() != "time" {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeFor[CLI]())
	return out
}

// The configuration reference names every flag and environment variable,
// and the README links it and the operating guide.
func TestConfigurationReferenceIsComplete(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for env := range cliEnvs() {
		if !bytes.Contains(doc, []byte("`"+env+"`")) {
			t.Errorf("docs/configuration.md does not name %s", env)
		}
	}
	for _, flag := range cliFlags() {
		if !bytes.Contains(doc, []byte("`"+flag)) {
			t.Errorf("docs/configuration.md does not name %s", flag)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"(docs/configuration.md)", "(docs/operating.md)"} {
		if !bytes.Contains(readme, []byte(link)) {
			t.Errorf("README.md does not link %s", link)
		}
	}
}

// compose.yaml parses (strictly: a misspelt key fails); its promptdesk service waits for a healthy
// postgres service, reaches it with the user, password and database that
// service creates, sets only environment variables promptdesk reads (each
// one accepted: promptdesk config reports it as coming from the
// environment) and publishes the ports it listens on. The Dockerfile
// runs serve from a distroless image and sets only known variables.
// (Whether the image builds and the stack starts needs a Docker daemon;
// docs/operating.md has the commands.)
func TestComposeAndDockerfile(t *testing.T) {
	data, err := os.ReadFile("../../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Build       string            `yaml:"build"`
			Environment map[string]string `yaml:"environment"`
			DependsOn   map[string]struct {
				Condition string `yaml:"condition"`
			} `yaml:"depends_on"`
			Ports       []string `yaml:"ports"`
			Volumes     []string `yaml:"volumes"`
			Healthcheck struct {
				Test              []string `yaml:"test"`
				Interval, Timeout string
				Retries           int
			} `yaml:"healthcheck"`
			StopGracePeriod string `yaml:"stop_grace_period"`
			Restart         string `yaml:"restart"`
		} `yaml:"services"`
		Volumes map[string]any `yaml:"volumes"`
	}
	if err := yaml.UnmarshalWithOptions(data, &compose, yaml.Strict()); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	pg, okPG := compose.Services["postgres"]
	pd, okPD := compose.Services["promptdesk"]
	if !okPG || !okPD || len(compose.Services) != 2 {
		t.Fatalf("services %v, want postgres and promptdesk", compose.Services)
	}
	if pg.Image == "" || len(pg.Healthcheck.Test) == 0 {
		t.Errorf("postgres: image %q, healthcheck %v", pg.Image, pg.Healthcheck.Test)
	}
	if pd.Build != "." || pd.DependsOn["postgres"].Condition != "service_healthy" {
		t.Errorf("promptdesk: build %q, depends_on %v; want the Dockerfile here, after postgres is healthy", pd.Build, pd.DependsOn)
	}
	known := cliEnvs()
	for env := range pd.Environment {
		if _, ok := known[env]; !ok {
			t.Errorf("promptdesk sets %s, which promptdesk does not read", env)
		}
	}
	db, err := url.Parse(pd.Environment["DATABASE_URL"])
	if err != nil {
		t.Fatalf("DATABASE_URL: %v", err)
	}
	pass, _ := db.User.Password()
	if db.Hostname() != "postgres" || db.User.Username() != pg.Environment["POSTGRES_USER"] || pass != pg.Environment["POSTGRES_PASSWORD"] || strings.TrimPrefix(db.Path, "/") != pg.Environment["POSTGRES_DB"] {
		t.Errorf("DATABASE_URL %s does not match the postgres service %v", db.Redacted(), pg.Environment)
	}
	for _, env := range []string{"PROMPTDESK_ADDR", "PROMPTDESK_METRICS_ADDR"} {
		addr := pd.Environment[env]
		port := addr[strings.LastIndex(addr, ":")+1:]
		published := false
		for _, p := range pd.Ports {
			published = published || strings.HasSuffix(p, ":"+port)
		}
		if addr == "" || !published {
			t.Errorf("%s=%q: its port is not published in %v", env, addr, pd.Ports)
		}
	}

	for env, v := range pd.Environment {
		t.Setenv(env, v)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"config"}, &out, &errOut); err != nil {
		t.Fatalf("promptdesk config with compose.yaml's environment: %v\n%s", err, errOut.String())
	}
	for env := range pd.Environment {
		if !regexp.MustCompile(`(?m)\s` + env + `\s.*\senv ` + env + `$`).MatchString(out.String()) {
			t.Errorf("config does not report %s from the environment:\n%s", env, out.String())
		}
	}
	if strings.Contains(out.String(), ":"+pass+"@") {
		t.Errorf("config shows the database password:\n%s", out.String())
	}

	docker, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(docker)
	for _, want := range []string{"FROM gcr.io/distroless/", `ENTRYPOINT ["/promptdesk"]`, `CMD ["serve"]`, "CGO_ENABLED=0"} {
		if !strings.Contains(text, want) {
			t.Errorf("Dockerfile lacks %s", want)
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^ENV (\w+)=`).FindAllStringSubmatch(text, -1) {
		if _, ok := known[m[1]]; !ok {
			t.Errorf("Dockerfile sets %s, which promptdesk does not read", m[1])
		}
	}
}

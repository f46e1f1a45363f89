package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// jsonObject is a decoded JSON object of the OpenAPI document.
type jsonObject = map[string]any

// openAPIDoc returns the document as GET /api/v1/openapi.json serves it,
// decoded, without a server.
func openAPIDoc(t *testing.T) jsonObject {
	t.Helper()
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil), rec)
	if err := (&handlers.API{}).OpenAPI(c); err != nil {
		t.Fatal(err)
	}
	return decodeOpenAPI(t, rec)
}

func decodeOpenAPI(t *testing.T, rec *httptest.ResponseRecorder) jsonObject {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200: %.500s", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get(echo.HeaderContentType); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var doc jsonObject
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("the OpenAPI document is not JSON: %v", err)
	}
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi = %q, want 3.1.x", v)
	}
	return doc
}

// obj walks doc along keys, failing the test when a step is not an object.
func obj(t *testing.T, doc jsonObject, keys ...string) jsonObject {
	t.Helper()
	cur := doc
	for i, k := range keys {
		next, ok := cur[k].(jsonObject)
		if !ok {
			t.Fatalf("OpenAPI: %s is not an object", strings.Join(keys[:i+1], "."))
		}
		cur = next
	}
	return cur
}

// httpMethods are the operation keys of an OpenAPI path item.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

var echoParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// TestOpenAPIMatchesTheRouteTable serves the document through the real
// server and holds its paths to the /api/v1 routes Echo has registered,
// both ways, method by method.
func TestOpenAPIMatchesTheRouteTable(t *testing.T) {
	t.Parallel()
	srv, st := newServer(t, nil)
	doc := decodeOpenAPI(t, serveAPI(srv.Handler(), http.MethodGet, "/api/v1/openapi.json", "", newToken(t, st, "openapi", domain.ScopeAssemble)))

	registered := map[string]bool{}
	for _, r := range srv.echo.Routes() {
		if !strings.HasPrefix(r.Path, "/api/v1/") {
			continue
		}
		registered[r.Method+" "+echoParam.ReplaceAllString(r.Path, "{$1}")] = true
	}
	if len(registered) < 7 {
		t.Fatalf("only %d /api/v1 routes registered: %v", len(registered), registered)
	}
	documented := map[string]bool{}
	for path, item := range obj(t, doc, "paths") {
		for method, op := range item.(jsonObject) {
			if !slices.Contains(httpMethods, method) {
				continue
			}
			documented[strings.ToUpper(method)+" "+path] = true
			checkPathParams(t, path, method, op.(jsonObject), doc)
		}
	}
	for r := range registered {
		if !documented[r] {
			t.Errorf("route %s is registered but not in the OpenAPI paths", r)
		}
	}
	for d := range documented {
		if !registered[d] {
			t.Errorf("OpenAPI documents %s, which is not a registered route", d)
		}
	}

	// Served inside the API group's middleware: other methods are the JSON 405.
	rec := serve(srv.Handler(), http.MethodPost, "/api/v1/openapi.json")
	if rec.Code != http.StatusMethodNotAllowed || !strings.Contains(rec.Body.String(), `"method_not_allowed"`) {
		t.Errorf("POST /api/v1/openapi.json: %d %s, want the JSON 405", rec.Code, rec.Body.String())
	}
}

// checkPathParams wants each {name} of path declared as a required path
// parameter of the operation, and no other path parameter.
func checkPathParams(t *testing.T, path, method string, op, doc jsonObject) {
	t.Helper()
	want := map[string]bool{}
	for _, m := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1) {
		want[m[1]] = true
	}
	got := map[string]bool{}
	params, _ := op["parameters"].([]any)
	for _, p := range params {
		po := resolve(t, doc, p.(jsonObject))
		if po["in"] != "path" {
			continue
		}
		name, _ := po["name"].(string)
		if po["required"] != true {
			t.Errorf("%s %s: path parameter %s is not required", method, path, name)
		}
		got[name] = true
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%s %s: path parameters %v, want %v", method, path, got, want)
	}
}

// resolve follows a local $ref ("#/components/…") to its target.
func resolve(t *testing.T, doc, o jsonObject) jsonObject {
	t.Helper()
	ref, ok := o["$ref"].(string)
	if !ok {
		return o
	}
	keys, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		t.Fatalf("OpenAPI: $ref %q is not local", ref)
	}
	return obj(t, doc, strings.Split(keys, "/")...)
}

func TestOpenAPIRefsResolve(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case jsonObject:
			if _, ok := v["$ref"]; ok {
				resolve(t, doc, v)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
}

// TestOpenAPIOperations checks what each route takes and answers: the
// request and 200 schemas, and every error response being the API's error
// body ({"error":{"code","message","field"}}), with the statuses of
// handlers.API.
func TestOpenAPIOperations(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	ref := func(name string) string { return `{"$ref":"#/components/schemas/` + name + `"}` }
	for _, c := range []struct {
		method, path, body, ok string
		errors                 []string
	}{
		{"post", "/api/v1/assemble", ref("Request"), ref("Result"), []string{"400", "401", "403", "404", "413", "415", "422", "431", "503"}},
		{"post", "/api/v1/render", ref("RenderRequest"), ref("Rendered"), []string{"400", "401", "403", "404", "413", "415", "422", "431", "503"}},
		{"get", "/api/v1/modules", "", `{"type":"array","items":` + ref("APIModule") + `}`, []string{"304", "400", "401", "403", "422", "431", "503"}},
		{"get", "/api/v1/overrides", "", `{"type":"array","items":` + ref("APIOverrideEntry") + `}`, []string{"400", "401", "403", "422", "431", "503"}},
		{"get", "/api/v1/profiles", "", `{"type":"array","items":` + ref("APIProfile") + `}`, []string{"304", "400", "401", "403", "431", "503"}},
		{"get", "/api/v1/modules/{id}", "", ref("APIModuleDetail"), []string{"304", "400", "401", "403", "404", "422", "431", "503"}},
		{"get", "/api/v1/commands", "", `{"type":"array","items":` + ref("APICommand") + `}`, []string{"304", "400", "401", "403", "422", "431", "503"}},
		{"get", "/api/v1/tools", "", `{"type":"object","additionalProperties":` + ref("APITool") + `}`, []string{"304", "400", "401", "403", "422", "431", "500", "503"}},
		{"get", "/api/v1/changes", "", ref("APIChanges"), []string{"400", "401", "403", "422", "431", "503"}},
		{"get", "/api/v1/openapi.json", "", `{"type":"object","description":"This OpenAPI 3.1 document; its members are those of an OpenAPI document (the OpenAPI specification describes them).","required":["openapi","info","servers","security","paths","components"],"additionalProperties":false,"properties":{"openapi":{"type":"string","pattern":"^3\\.1\\.[0-9]+$"},"info":{"type":"object"},"servers":{"type":"array","items":{"type":"object"}},"security":{"type":"array","items":{"type":"object"}},"paths":{"type":"object"},"components":{"type":"object"}}}`, []string{"400", "401", "403", "431", "503"}},
		{"get", "/api/v1/scenarios", "", `{"type":"array","items":` + ref("APIScenario") + `}`, []string{"400", "401", "403", "431", "503"}},
		{"get", "/api/v1/scenarios/{id}", "", ref("APIScenario"), []string{"400", "401", "403", "404", "431", "503"}},
		{"put", "/api/v1/scenarios/{id}", ref("APIScenarioBody"), ref("APIScenario"), []string{"400", "401", "403", "404", "413", "415", "422", "431", "503"}},
		{"post", "/api/v1/scenarios/{id}/run", "", ref("APIScenarioRun"), []string{"400", "401", "403", "404", "415", "431", "503"}},
		{"post", "/api/v1/scenarios/{id}/accept", ref("APIAcceptBody"), ref("APIScenario"), []string{"400", "401", "403", "404", "409", "413", "415", "422", "431", "503"}},
		{"get", "/api/v1/overrides/{id}/revisions", "", ref("APIRevisions"), []string{"400", "401", "403", "404", "422", "431", "503"}},
		{"get", "/api/v1/overrides/{id}/revisions/{n}", "", ref("APIRevisionText"), []string{"400", "401", "403", "404", "422", "431", "503"}},
		{"post", "/api/v1/webhooks/{id}/redeliver", "", ref("APIRedelivered"), []string{"400", "401", "403", "404", "415", "431", "503"}},
		{"post", "/api/v1/webhooks/{id}/deliveries/{delivery}/redeliver", "", ref("APIDelivery"), []string{"400", "401", "403", "404", "409", "415", "431", "503"}},
		{"get", "/api/v1/ledger", "", ref("APILedgerList"), []string{"400", "401", "403", "422", "431", "503"}},
		{"get", "/api/v1/ledger/export", "", ref("APILedgerExport"), []string{"400", "401", "403", "422", "431", "503"}},
		{"post", "/api/v1/ledger/decisions", ref("APILedgerDecision"), ref("APILedgerEntry"), []string{"400", "401", "403", "404", "409", "413", "415", "422", "431", "503"}},
	} {
		op := obj(t, doc, "paths", c.path, c.method)
		what := strings.ToUpper(c.method) + " " + c.path
		if c.body != "" {
			body := resolve(t, doc, obj(t, op, "requestBody"))
			sameJSON(t, what+" request body", obj(t, body, "content", "application/json", "schema"), c.body)
		} else if _, ok := op["requestBody"]; ok {
			t.Errorf("%s documents a request body", what)
		}
		responses := obj(t, op, "responses")
		sameJSON(t, what+" 200", obj(t, resolve(t, doc, obj(t, responses, "200")), "content", "application/json", "schema"), c.ok)
		var statuses []string
		for status, r := range responses {
			if status == "200" {
				continue
			}
			statuses = append(statuses, status)
			if status == "304" {
				if _, ok := resolve(t, doc, r.(jsonObject))["content"]; ok {
					t.Errorf("%s: 304 documents a body", what)
				}
				continue
			}
			sameJSON(t, what+" "+status, obj(t, resolve(t, doc, r.(jsonObject)), "content", "application/json", "schema"), ref("ErrorBody"))
		}
		sort.Strings(statuses)
		if !slices.Equal(statuses, c.errors) {
			t.Errorf("%s: error statuses %v, want %v", what, statuses, c.errors)
		}
	}
	if _, ok := obj(t, doc, "components", "responses", "MethodNotAllowed", "headers")["Allow"]; !ok {
		t.Error("the 405 response does not document the Allow header")
	}

	var enum []string
	for _, c := range obj(t, doc, "components", "schemas", "Error", "properties", "code")["enum"].([]any) {
		enum = append(enum, c.(string))
	}
	for _, code := range []string{library.CodeInvalidJSON, library.CodePreconditionFailed, library.CodePreconditionRequired, library.CodeConflict, library.CodeUnsupportedMediaType, library.CodeNotFound,
		library.CodeMissingVariable, library.CodeExtraVariable, library.CodeUnknownPlaceholder, library.CodeIncludeCycle,
		library.CodeIncludeTooDeep, library.CodeInvalidRequest, library.CodeLimitExceeded, "method_not_allowed", "internal",
		library.CodeUnauthorized, library.CodeForbidden, CodeDatabaseUnavailable} {
		if !slices.Contains(enum, code) {
			t.Errorf("Error.code's enum does not list %s", code)
		}
	}
	info, _ := obj(t, doc, "info")["description"].(string)
	for _, s := range []string{"8 MiB", "50 knowledge bases", "200 skills", "10 rows", "256 KiB",
		"400", "401", "403", "404", "405", "413", "415", "422", "503", "Authorization: Bearer"} {
		if !strings.Contains(info, s) {
			t.Errorf("info.description does not state %q", s)
		}
	}
	req := obj(t, doc, "components", "schemas", "Request", "properties")
	for field, limit := range map[string]int{"knowledgeBases": assembler.MaxKnowledgeBases, "skills": assembler.MaxSkills} {
		if got := obj(t, req, field)["maxItems"]; got != float64(limit) {
			t.Errorf("Request.%s maxItems = %v, want %d", field, got, limit)
		}
	}
}

// sameJSON compares a decoded JSON value with JSON text.
func sameJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s: schema %s, want %s", what, g, want)
	}
}

// TestOpenAPISchemasMatchGoTypes holds every component schema to the Go
// type the handlers decode or encode: the property names are exactly the
// json tags, each property has the JSON type of its field (nested structs
// by $ref to their own schema), and for responses the required list is
// exactly the fields without omitempty or omitzero.
func TestOpenAPISchemasMatchGoTypes(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	type goType struct {
		typ   reflect.Type
		input bool
	}
	types := map[string]goType{
		"Request":           {reflect.TypeFor[assembler.Request](), true},
		"Attachment":        {reflect.TypeFor[assembler.Attachment](), true},
		"KnowledgeBase":     {reflect.TypeFor[assembler.KnowledgeBase](), true},
		"Document":          {reflect.TypeFor[assembler.Document](), true},
		"FAQEntry":          {reflect.TypeFor[assembler.FAQEntry](), true},
		"SelectedDocument":  {reflect.TypeFor[assembler.SelectedDocument](), true},
		"Skill":             {reflect.TypeFor[assembler.Skill](), true},
		"RenderRequest":     {reflect.TypeFor[assembler.RenderRequest](), true},
		"Result":            {reflect.TypeFor[assembler.Result](), false},
		"Segment":           {reflect.TypeFor[assembler.Segment](), false},
		"ReportEntry":       {reflect.TypeFor[assembler.ReportEntry](), false},
		"Tables":            {reflect.TypeFor[assembler.Tables](), false},
		"SkillCatalogue":    {reflect.TypeFor[assembler.SkillCatalogue](), false},
		"CutSkill":          {reflect.TypeFor[assembler.CutSkill](), false},
		"Rendered":          {reflect.TypeFor[assembler.Rendered](), false},
		"APIModule":         {reflect.TypeFor[handlers.APIModule](), false},
		"APIModuleDetail":   {reflect.TypeFor[handlers.APIModuleDetail](), false},
		"Variable":          {reflect.TypeFor[library.Variable](), false},
		"Trigger":           {reflect.TypeFor[library.Trigger](), false},
		"Upstream":          {reflect.TypeFor[library.Upstream](), false},
		"APICommand":        {reflect.TypeFor[assembler.Command](), false},
		"APITool":           {reflect.TypeFor[assembler.Tool](), false},
		"APIScenario":       {reflect.TypeFor[handlers.APIScenario](), false},
		"APIAccepted":       {reflect.TypeFor[handlers.APIAccepted](), false},
		"APIOutput":         {reflect.TypeFor[handlers.APIOutput](), false},
		"APIScenarioRun":    {reflect.TypeFor[handlers.APIScenarioRun](), false},
		"APIRunError":       {reflect.TypeFor[handlers.APIRunError](), false},
		"APIDiffLine":       {reflect.TypeFor[handlers.APIDiffLine](), false},
		"APIScenarioBody":   {reflect.TypeFor[handlers.APIScenarioBody](), true},
		"APIAcceptBody":     {reflect.TypeFor[handlers.APIAcceptBody](), true},
		"APIWebhook":        {reflect.TypeFor[handlers.APIWebhook](), false},
		"APIWebhookBody":    {reflect.TypeFor[handlers.APIWebhookBody](), true},
		"APIDelivery":       {reflect.TypeFor[handlers.APIDelivery](), false},
		"APIAttempt":        {reflect.TypeFor[handlers.APIAttempt](), false},
		"APIRedelivered":    {reflect.TypeFor[handlers.APIRedelivered](), false},
		"WebhookEvent":      {reflect.TypeFor[domain.WebhookEvent](), false},
		"WebhookDrift":      {reflect.TypeFor[domain.WebhookDrift](), false},
		"WebhookRequest":    {reflect.TypeFor[domain.WebhookRequest](), false},
		"Message":           {reflect.TypeFor[assembler.Message](), false},
		"APIRevision":       {reflect.TypeFor[handlers.APIRevision](), false},
		"APIRevisions":      {reflect.TypeFor[handlers.APIRevisions](), false},
		"APIRevisionText":   {reflect.TypeFor[handlers.APIRevisionText](), false},
		"APIPublication":    {reflect.TypeFor[handlers.APIPublication](), false},
		"APIChangeRequest":  {reflect.TypeFor[handlers.APIChangeRequest](), false},
		"ServedChange":      {reflect.TypeFor[state.ServedChange](), false},
		"APIDrift":          {reflect.TypeFor[handlers.APIDrift](), false},
		"APIOverrideEntry":  {reflect.TypeFor[handlers.APIOverrideEntry](), false},
		"APIProfile":        {reflect.TypeFor[handlers.APIProfile](), false},
		"APIChanges":        {reflect.TypeFor[handlers.APIChanges](), false},
		"APILedgerEntry":    {reflect.TypeFor[handlers.APILedgerEntry](), false},
		"APILedgerList":     {reflect.TypeFor[handlers.APILedgerList](), false},
		"APILedgerExport":   {reflect.TypeFor[handlers.APILedgerExport](), false},
		"APILedgerDecision": {reflect.TypeFor[handlers.APILedgerDecision](), true},
		"ErrorBody":         {reflect.TypeFor[apiErrorBody](), false},
		"Error":             {reflect.TypeFor[apiError](), false},
	}
	layers := make([]string, 0, len(library.Layers))
	for _, l := range library.Layers {
		layers = append(layers, string(l))
	}
	enums := map[string][]string{
		"Layer":        layers,
		"ModuleStatus": {string(state.StatusBuiltin), string(state.StatusOverridden), string(state.StatusDrifted), string(state.StatusUser)},
	}
	names := map[reflect.Type]string{}
	for name, g := range types {
		names[g.typ] = name
	}
	schemas := obj(t, doc, "components", "schemas")
	for name := range schemas {
		if _, ok := types[name]; !ok && enums[name] == nil {
			t.Errorf("schema %s matches no Go type in this test", name)
		}
	}
	for name, values := range enums {
		s := obj(t, schemas, name)
		var got []string
		for _, v := range s["enum"].([]any) {
			got = append(got, v.(string))
		}
		if s["type"] != "string" || !slices.Equal(got, values) {
			t.Errorf("schema %s: %v %v, want string %v", name, s["type"], got, values)
		}
	}

	for name, g := range types {
		s := obj(t, schemas, name)
		if s["type"] != "object" {
			t.Errorf("schema %s: type %v, want object", name, s["type"])
		}
		props := obj(t, s, "properties")
		var required []string
		declared, _ := s["required"].([]any)
		for _, r := range declared {
			if _, ok := props[r.(string)]; !ok {
				t.Errorf("schema %s requires %s, which is not a property", name, r)
			}
			required = append(required, r.(string))
		}
		if g.input && s["additionalProperties"] != false {
			t.Errorf("schema %s: the decoder rejects unknown fields; want additionalProperties false", name)
		}
		var tags, always []string
		for i := range g.typ.NumField() {
			f := g.typ.Field(i)
			tag, ok := f.Tag.Lookup("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			if !ok || f.Anonymous {
				t.Fatalf("%s.%s: the test expects a named json tag", g.typ, f.Name)
			}
			tagName, opts, _ := strings.Cut(tag, ",")
			tags = append(tags, tagName)
			if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
				always = append(always, tagName)
			}
			p, ok := props[tagName].(jsonObject)
			if !ok {
				t.Errorf("schema %s has no property %q (json tag of %s.%s)", name, tagName, g.typ, f.Name)
				continue
			}
			checkPropType(t, doc, names, name+"."+tagName, p, f.Type)
		}
		var propNames []string
		for p := range props {
			propNames = append(propNames, p)
		}
		sort.Strings(tags)
		sort.Strings(propNames)
		if !slices.Equal(tags, propNames) {
			t.Errorf("schema %s: properties %v, want the json tags of %s %v", name, propNames, g.typ, tags)
		}
		if !g.input {
			sort.Strings(always)
			sort.Strings(required)
			if !slices.Equal(always, required) {
				t.Errorf("schema %s: required %v, want the fields always encoded %v", name, required, always)
			}
		}
	}
}

// checkPropType wants the schema p to describe values of the Go type typ
// as encoding/json writes them.
func checkPropType(t *testing.T, doc jsonObject, names map[reflect.Type]string, where string, p jsonObject, typ reflect.Type) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == reflect.TypeFor[time.Time]() {
		if p["type"] != "string" || p["format"] != "date-time" {
			t.Errorf("%s: %v, want a date-time string", where, p)
		}
		return
	}
	if typ == reflect.TypeFor[json.RawMessage]() {
		// The API's raw JSON fields hold an assemble request as saved.
		if p["$ref"] != "#/components/schemas/Request" {
			t.Errorf("%s: %v, want $ref #/components/schemas/Request (json.RawMessage)", where, p)
		}
		return
	}
	if typ.Kind() == reflect.Struct {
		if want := "#/components/schemas/" + names[typ]; names[typ] == "" || p["$ref"] != want {
			t.Errorf("%s: %v, want $ref %s (%s)", where, p, want, typ)
		}
		return
	}
	want := map[reflect.Kind]string{
		reflect.String: "string", reflect.Bool: "boolean",
		reflect.Int: "integer", reflect.Int32: "integer", reflect.Int64: "integer",
		reflect.Slice: "array", reflect.Map: "object",
	}[typ.Kind()]
	if want == "" {
		t.Errorf("%s: the test does not know the JSON of %s", where, typ)
		return
	}
	if got := resolve(t, doc, p)["type"]; got != want {
		t.Errorf("%s: type %v, want %s (%s)", where, got, want, typ)
		return
	}
	switch typ.Kind() {
	case reflect.Slice:
		items, _ := p["items"].(jsonObject)
		checkPropType(t, doc, names, where+"[]", items, typ.Elem())
	case reflect.Map:
		if typ.Key().Kind() != reflect.String {
			t.Errorf("%s: map key %s", where, typ.Key())
		}
		values, _ := p["additionalProperties"].(jsonObject)
		checkPropType(t, doc, names, where+"{}", values, typ.Elem())
	}
}

// TestOpenAPISecurity: the document declares the bearer scheme, and every
// operation requires it with the scopes the server enforces (apiScopes,
// which TestEveryAPIRouteNeedsAToken holds to the route table), names
// them in its description and documents the 401 and 403.
func TestOpenAPISecurity(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	scheme := obj(t, doc, "components", "securitySchemes", "bearerToken")
	if scheme["type"] != "http" || scheme["scheme"] != "bearer" {
		t.Errorf("securitySchemes.bearerToken = %v, want http bearer", scheme)
	}
	if _, ok := obj(t, doc, "components", "responses", "Unauthorized", "headers")["WWW-Authenticate"]; !ok {
		t.Error("the 401 response does not document the WWW-Authenticate header")
	}
	ops := 0
	for path, item := range obj(t, doc, "paths") {
		for method, op := range item.(jsonObject) {
			if !slices.Contains(httpMethods, method) {
				continue
			}
			ops++
			what := strings.ToUpper(method) + " " + path
			want, ok := apiScopes[strings.ToUpper(method)+" "+regexp.MustCompile(`\{([^}]+)\}`).ReplaceAllString(path, ":$1")]
			if !ok {
				t.Errorf("%s: not in apiScopes", what)
				continue
			}
			var got []string
			reqs, _ := op.(jsonObject)["security"].([]any)
			for _, r := range reqs {
				scopes, ok := r.(jsonObject)["bearerToken"].([]any)
				if !ok || len(scopes) != 1 || len(r.(jsonObject)) != 1 {
					t.Errorf("%s: security requirement %v, want {bearerToken: [one scope]}", what, r)
					continue
				}
				got = append(got, scopes[0].(string))
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: security scopes %v, want %v (one requirement per accepted scope)", what, got, want)
			}
			desc, _ := op.(jsonObject)["description"].(string)
			for _, s := range want {
				if !strings.Contains(desc, "`"+s+"`") {
					t.Errorf("%s: description does not name the scope %s", what, s)
				}
			}
			responses := obj(t, op.(jsonObject), "responses")
			for status, name := range map[string]string{"401": "Unauthorized", "403": "Forbidden", "503": "DatabaseUnavailable"} {
				if r, ok := responses[status].(jsonObject); !ok || r["$ref"] != "#/components/responses/"+name {
					t.Errorf("%s: response %s = %v, want $ref %s", what, status, responses[status], name)
				}
			}
		}
	}
	if ops != len(apiScopes) {
		t.Errorf("%d operations documented, apiScopes has %d", ops, len(apiScopes))
	}
}

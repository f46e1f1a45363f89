package handlers

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/library"
)

// queryParams maps each operation of the OpenAPI document, keyed as Echo
// routes it ("GET /api/v1/modules/:id"), to the query parameters it
// declares: the one place the API's query parameters are listed.
var queryParams = documentedQueries(openAPIDoc)

// documentedQueries reads the query parameters of every operation of an
// OpenAPI document, following $refs to components.parameters. It panics
// on a document that does not decode: the document is embedded, so that
// is a build mistake, caught by every test.
func documentedQueries(doc []byte) map[string][]string {
	type param struct {
		Ref  string `json:"$ref"`
		Name string `json:"name"`
		In   string `json:"in"`
	}
	var d struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]param `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		panic("handlers: openapi.json: " + err.Error())
	}
	out := map[string][]string{}
	for path, item := range d.Paths {
		for method, raw := range item {
			var op struct {
				Parameters []param `json:"parameters"`
			}
			if json.Unmarshal(raw, &op) != nil {
				continue // not an operation (a path item's "parameters" or "summary")
			}
			names := []string{}
			for _, p := range op.Parameters {
				if ref, ok := strings.CutPrefix(p.Ref, "#/components/parameters/"); ok {
					p = d.Components.Parameters[ref]
				}
				if p.In == "query" {
					names = append(names, p.Name)
				}
			}
			out[strings.ToUpper(method)+" "+openAPIParam.ReplaceAllString(path, ":$1")] = names
		}
	}
	return out
}

// openAPIParam is a path parameter as the OpenAPI document writes it
// ({id}); the table is keyed by Echo's form (:id), what c.Path() gives.
var openAPIParam = regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`)

// KnownQuery is the query-parameter middleware of the API group: a
// parameter the OpenAPI document does not declare for the route is a 400
// invalid_request naming it (field: its name), so that a misspelt
// "?localle=" is not silently ignored; so is a parameter given twice
// (which one would win?) and a query string that does not parse ("%zz");
// a declared parameter with an empty value ("?limit=") is a 422
// invalid_request naming it, as the document's schemas refuse it.
func KnownQuery() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			raw := c.Request().URL.RawQuery
			if raw == "" {
				return next(c)
			}
			q, err := url.ParseQuery(raw)
			if err != nil {
				msg := "the query string does not parse: " + err.Error()
				if esc, ok := err.(url.EscapeError); ok {
					msg = fmt.Sprintf("the query string does not parse: %q is not a valid %%-escape", string(esc))
				}
				return &library.Error{Kind: library.ErrUnreadable, Code: library.CodeInvalidRequest, Msg: msg}
			}
			method := c.Request().Method
			allowed := queryParams[method+" "+c.Path()]
			var unknown, twice, empty []string
			for name, values := range q {
				switch {
				case !slices.Contains(allowed, name):
					unknown = append(unknown, name)
				case len(values) > 1:
					twice = append(twice, name)
				case values[0] == "":
					empty = append(empty, name)
				}
			}
			switch {
			case len(unknown) > 0:
				slices.Sort(unknown)
				takes := "no query parameters"
				if len(allowed) > 0 {
					takes = "only " + strings.Join(allowed, ", ")
				}
				return &library.Error{Kind: library.ErrUnreadable, Code: library.CodeInvalidRequest, Field: unknown[0],
					Msg: fmt.Sprintf("unknown query parameter %s: %s %s takes %s", quoteAll(unknown), method, c.Path(), takes)}
			case len(twice) > 0:
				slices.Sort(twice)
				return &library.Error{Kind: library.ErrUnreadable, Code: library.CodeInvalidRequest, Field: twice[0],
					Msg: fmt.Sprintf("query parameter %s is given more than once: give each once", quoteAll(twice))}
			case len(empty) > 0:
				slices.Sort(empty)
				return &library.Error{Code: library.CodeInvalidRequest, Field: empty[0],
					Msg: fmt.Sprintf("query parameter %s is empty: give it a value or leave it out", quoteAll(empty))}
			}
			return next(c)
		}
	}
}

// quoteAll quotes names and joins them with commas.
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

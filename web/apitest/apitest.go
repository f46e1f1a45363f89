// Package apitest holds the runtime API to its OpenAPI document in tests:
// Handler wraps a server so that every /api/ request a test sends, and
// the answer it gets, are validated against the document the server
// serves (GET /api/v1/openapi.json) by two validators written apart:
// pb33f's libopenapi-validator and getkin's kin-openapi (openapi3filter).
// Both must find an answered exchange valid and agree on which routes
// the document has; a request either one refuses must be refused.
// The document's object schemas are closed (additionalProperties false),
// so a route, status code or field it does not describe fails the test.
// (Query parameters the document does not declare are refused by the
// server itself, which reads its list from the document.)
package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"

	"github.com/promptdesk/promptdesk/handlers"
)

var (
	loadOnce sync.Once
	loaded   validator.Validator
	// bodiless checks HEAD answers: status and headers, no body.
	bodiless validator.Validator
	loadErr  error
	// validating serialises the validator, whose caches are filled lazily.
	validating sync.Mutex
)

// load builds the validator of the served document once per test binary.
func load() (full, head validator.Validator, err error) {
	loadOnce.Do(func() {
		doc, err := libopenapi.NewDocument(handlers.OpenAPIDocument())
		if err != nil {
			loadErr = fmt.Errorf("apitest: the OpenAPI document does not parse: %w", err)
			return
		}
		v, errs := validator.NewValidator(doc, config.WithFormatAssertions())
		if len(errs) > 0 {
			loadErr = fmt.Errorf("apitest: the OpenAPI document: %v", errs)
			return
		}
		if ok, verrs := v.ValidateDocument(); !ok {
			loadErr = fmt.Errorf("apitest: the OpenAPI document is not valid OpenAPI: %s", describe(verrs))
			return
		}
		loaded = v
		bodiless, _ = validator.NewValidator(doc, config.WithFormatAssertions(), config.WithoutResponseBodyValidation())
	})
	return loaded, bodiless, loadErr
}

// Handler returns h wrapped for a test: requests outside /api/ pass
// through; every /api/ request is served by h into a recorder, checked,
// then copied to w. The rules, each failing t with the route and the
// validator's reasons:
//   - every answer has a status code, headers and body the document gives
//     its operation (HEAD is checked as the GET of the same path, without
//     a body);
//   - a request the document refuses (an unknown field, a value outside
//     its schema or pattern, null, no token) must be refused by
//     the server: a 2xx answer to it means the server accepts more than
//     the document says;
//   - a route the document does not list may only answer the JSON error
//     shape with a 4xx.
func Handler(t testing.TB, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			h.ServeHTTP(w, r)
			return
		}
		var body []byte
		if r.Body != nil {
			var err error
			if body, err = io.ReadAll(r.Body); err != nil {
				t.Errorf("apitest: reading the request body: %v", err)
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for _, p := range Check(r, body, rec.Result()) {
			t.Errorf("%s", p)
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// Check validates one exchange: req with its body as sent, and the
// response. It returns the problems found, each naming the route; none
// when the exchange is what the document describes.
func Check(req *http.Request, body []byte, resp *http.Response) []string {
	v, head, err := load()
	if err != nil {
		return []string{err.Error()}
	}
	respBody, _ := io.ReadAll(resp.Body)
	what := fmt.Sprintf("%s %s → %d", req.Method, req.URL.RequestURI(), resp.StatusCode)

	vreq := asValidated(req, body)
	validating.Lock()
	reqOK, reqErrs := v.ValidateHttpRequestSync(vreq)
	validating.Unlock()

	kin, err := kinCheck(vreq, body, resp, respBody, req.Method == http.MethodHead)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	if unknown := !reqOK && isUnknownRoute(reqErrs); unknown != kin.unknownRoute {
		problems = append(problems, fmt.Sprintf("%s: the validators disagree on whether the document has the route (pb33f: %v, kin-openapi: %v)", what, !unknown, !kin.unknownRoute))
	}
	if !reqOK && isUnknownRoute(reqErrs) {
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			problems = append(problems, fmt.Sprintf("%s: the route is not in the OpenAPI document but answers %d", what, resp.StatusCode))
		}
		if req.Method != http.MethodHead {
			if p := errorShape(resp, respBody); p != "" {
				problems = append(problems, what+": "+p)
			}
		}
		return problems
	}
	if !reqOK && resp.StatusCode < 400 {
		problems = append(problems, fmt.Sprintf("%s: the server accepted a request the OpenAPI document refuses: %s", what, describe(reqErrs)))
	}
	if kin.request != "" && resp.StatusCode < 400 {
		problems = append(problems, fmt.Sprintf("%s: the server accepted a request the OpenAPI document refuses (kin-openapi): %s", what, kin.request))
	}
	if kin.response != "" {
		problems = append(problems, fmt.Sprintf("%s: the answer is not what the OpenAPI document describes (kin-openapi): %s\nbody: %.500s", what, kin.response, respBody))
	}

	vresp := &http.Response{StatusCode: resp.StatusCode, Header: resp.Header.Clone(), Body: io.NopCloser(bytes.NewReader(respBody)), Request: vreq}
	if req.Method == http.MethodHead {
		v = head
	}
	vreq.Body = io.NopCloser(bytes.NewReader(body))
	validating.Lock()
	respOK, respErrs := v.ValidateHttpResponse(vreq, vresp)
	validating.Unlock()
	if !respOK {
		problems = append(problems, fmt.Sprintf("%s: the answer is not what the OpenAPI document describes: %s\nbody: %.500s", what, describe(respErrs), respBody))
	}
	return problems
}

// asValidated is req as the validators see it: HEAD as GET (they match
// operations by method).
func asValidated(req *http.Request, body []byte) *http.Request {
	vreq := req.Clone(req.Context())
	if req.Method == http.MethodHead {
		vreq.Method = http.MethodGet
	}
	vreq.Body = io.NopCloser(bytes.NewReader(body))
	return vreq
}

// Refusals returns why each validator refuses the request req with body
// by the document alone: pb33f's reasons and kin-openapi's, each "" when
// that validator allows it. Tests use it to hold the document to the
// server's rules in both directions.
func Refusals(req *http.Request, body []byte) (pb33f, kin string) {
	v, _, err := load()
	if err != nil {
		return err.Error(), err.Error()
	}
	vreq := asValidated(req, body)
	validating.Lock()
	ok, errs := v.ValidateHttpRequestSync(vreq)
	validating.Unlock()
	if !ok {
		pb33f = describe(errs)
	}
	kin, err = kinRequest(asValidated(req, body), body)
	if err != nil {
		kin = err.Error()
	}
	return pb33f, kin
}

// isUnknownRoute reports whether the validator found no path or no
// operation for the request.
func isUnknownRoute(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.ValidationType == "path" || e.ValidationSubType == "missingOperation" {
			return true
		}
	}
	return false
}

// errorShape checks the JSON error body of an answer outside the
// document's operations: {"error":{"code","message","field"}}, nothing
// more; "" when it is.
func errorShape(resp *http.Response, body []byte) string {
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		return fmt.Sprintf("Content-Type %q, want application/json", ct)
	}
	var e struct {
		Error *struct {
			Code    *string `json:"code"`
			Message *string `json:"message"`
			Field   *string `json:"field"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Error == nil || e.Error.Code == nil || e.Error.Message == nil || e.Error.Field == nil {
		return fmt.Sprintf("not the JSON error shape (%v): %.300s", err, body)
	}
	return ""
}

// describe joins validation errors into one readable line each.
func describe(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  - %s: %s", e.Message, e.Reason)
		for _, s := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n      %s: %s", s.FieldPath, s.Reason)
		}
	}
	return b.String()
}

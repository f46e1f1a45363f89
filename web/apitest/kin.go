package apitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/library/strictjson"
)

// The second, independent reading of the document: getkin's kin-openapi
// (openapi3filter). Two validators written apart catch each other's blind
// spots; an exchange passes only when both find it valid.
var (
	kinOnce   sync.Once
	kinRouter routers.Router
	kinErr    error
)

// kinOptions are the checks kin-openapi runs: JSON Schema 2020-12 (the
// document is OpenAPI 3.1), formats asserted, every status code held to
// the operation's list, and the bearer scheme checked for its header.
var kinOptions = &openapi3filter.Options{
	MultiError:                        true,
	IncludeResponseStatus:             true,
	RejectWhenRequestBodyNotSpecified: true,
	AuthenticationFunc:                bearerPresent,
	SchemaValidationOptions: []openapi3.SchemaValidationOption{
		openapi3.EnableJSONSchema2020(),
		openapi3.EnableFormatValidation(),
		openapi3.WithStringFormatValidator("date-time", rfc3339{}),
	},
}

// rfc3339 is the date-time format as RFC 3339 writes it: "T" and "Z" may
// be lower case (its section 5.6 note), which kin-openapi's own pattern
// does not allow. The server's own reading is the rule.
type rfc3339 struct{}

// Validate parses s as an RFC 3339 time.
func (rfc3339) Validate(s string) error {
	_, err := strictjson.ParseTime(s)
	return err
}

// bearerPresent is the security check kin-openapi can make without the
// server's token store: an Authorization header of the bearer scheme.
func bearerPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header.Get("Authorization")
	if scheme, tok, ok := strings.Cut(h, " "); !ok || !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(tok) == "" {
		return errors.New("no bearer token")
	}
	return nil
}

// loadKin builds kin-openapi's router over the served document once.
func loadKin() (routers.Router, error) {
	kinOnce.Do(func() {
		// text/markdown is the module file as it is, like text/plain,
		// for which kin-openapi has a decoder of its own.
		openapi3filter.RegisterBodyDecoder("text/markdown", openapi3filter.RegisteredBodyDecoder("text/plain"))
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(handlers.OpenAPIDocument())
		if err != nil {
			kinErr = fmt.Errorf("apitest: kin-openapi does not load the document: %w", err)
			return
		}
		if err := doc.Validate(loader.Context, openapi3.EnableSchemaFormatValidation()); err != nil {
			kinErr = fmt.Errorf("apitest: kin-openapi finds the document invalid: %w", err)
			return
		}
		kinRouter, kinErr = gorillamux.NewRouter(doc)
	})
	return kinRouter, kinErr
}

// kinVerdict is kin-openapi's reading of one exchange.
type kinVerdict struct {
	// unknownRoute: no path or no method of the document matches.
	unknownRoute bool
	// request and response are the reasons each is invalid; "" when valid.
	request, response string
}

// kinCheck validates one exchange with kin-openapi. vreq is the request as
// the validators see it (HEAD as GET, the Content-Type the server reads
// the body as), body its body; resp's body is respBody.
func kinCheck(vreq *http.Request, body []byte, resp *http.Response, respBody []byte, head bool) (kinVerdict, error) {
	router, err := loadKin()
	if err != nil {
		return kinVerdict{}, err
	}
	r := vreq.Clone(vreq.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	route, params, err := router.FindRoute(r)
	if err != nil {
		return kinVerdict{unknownRoute: true}, nil
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: kinOptions}
	var v kinVerdict
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		v.request = kinReasons(err)
	}
	opts := *kinOptions
	opts.ExcludeResponseBody = head
	in.Options = &opts
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(respBody)),
		Options:                &opts,
	}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		v.response = kinReasons(err)
	}
	return v, nil
}

// kinRequest is kin-openapi's reasons for refusing the request; "" when
// it allows it.
func kinRequest(vreq *http.Request, body []byte) (string, error) {
	router, err := loadKin()
	if err != nil {
		return "", err
	}
	r := vreq.Clone(vreq.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	route, params, err := router.FindRoute(r)
	if err != nil {
		return "no such route: " + err.Error(), nil
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: kinOptions}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return kinReasons(err), nil
	}
	return "", nil
}

// kinReasons spells kin-openapi's error, one reason a line.
func kinReasons(err error) string {
	var me openapi3.MultiError
	if errors.As(err, &me) {
		var b strings.Builder
		for _, e := range me {
			fmt.Fprintf(&b, "\n  - %v", e)
		}
		return b.String()
	}
	return "\n  - " + err.Error()
}

package handlers

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/library"
)

// requestMedia maps an API operation ("POST /api/v1/overrides/{id}") to
// the media types its request body may be sent as, read from the API
// document so that the document is the one place the rule is written. An
// operation absent from the map takes no body.
var requestMedia = readRequestMedia(openAPIDoc)

// readRequestMedia reads the requestBody content types of every operation
// of doc. It panics on a document it cannot read: the document is
// embedded, and web's tests hold it to the route table.
func readRequestMedia(doc []byte) map[string][]string {
	type body struct {
		Ref     string                     `json:"$ref"`
		Content map[string]json.RawMessage `json:"content"`
	}
	var d struct {
		Paths map[string]map[string]struct {
			RequestBody *body `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			RequestBodies map[string]body `json:"requestBodies"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		panic(fmt.Sprintf("handlers: read the API document: %v", err))
	}
	media := map[string][]string{}
	for path, ops := range d.Paths {
		for method, op := range ops {
			b := op.RequestBody
			if b == nil {
				continue
			}
			if b.Ref != "" {
				named, ok := d.Components.RequestBodies[strings.TrimPrefix(b.Ref, "#/components/requestBodies/")]
				if !ok {
					panic(fmt.Sprintf("handlers: the API document's %s %s names request body %s, which it does not hold", method, path, b.Ref))
				}
				b = &named
			}
			var types []string
			for mt := range b.Content {
				types = append(types, mt)
			}
			slices.Sort(types)
			media[strings.ToUpper(method)+" "+path] = types
		}
	}
	return media
}

// routeParam matches an Echo route parameter (":id"), written "{id}" in
// the API document.
var routeParam = regexp.MustCompile(`:([A-Za-z]+)`)

// RequireDeclaredBody is the media-type middleware of the API: a request
// that carries a body must send it as one of the media types the API
// document declares for its operation (application/json, and for PUT
// /api/v1/overrides/{id} also text/plain or text/markdown), with no
// charset or charset=utf-8. A body without Content-Type, or under a type
// the document does not list (form-encoded, multipart, application/*+json,
// text/xml), fails with 415 unsupported_media_type naming Content-Type;
// a body sent to a POST, PUT or DELETE that takes none fails with 415
// naming body. A request without a body passes (the handler says whether
// it needed one), and so does a GET's or HEAD's body, which has no meaning.
func RequireDeclaredBody() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			noBody := r.ContentLength == 0 || r.ContentLength < 0 && len(r.TransferEncoding) == 0
			if noBody || r.Method == http.MethodGet || r.Method == http.MethodHead {
				return next(c)
			}
			op := operation(c)
			types, ok := requestMedia[op]
			if !ok {
				return &library.Error{Code: library.CodeUnsupportedMediaType, Field: "body",
					Msg: fmt.Sprintf("%s takes no request body; send none (a note goes in ?note=)", op)}
			}
			if _, err := declaredMediaType(r.Header.Get(echo.HeaderContentType), types); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// declaredMediaType returns the media type of Content-Type ct when it is
// one of types with no charset or charset=utf-8, else the 415
// library.Error naming Content-Type and the types accepted.
func declaredMediaType(ct string, types []string) (string, error) {
	mt, params, err := mime.ParseMediaType(ct)
	cs, set := params["charset"]
	if err == nil && slices.Contains(types, mt) && (!set || strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8")) {
		return mt, nil
	}
	msg := fmt.Sprintf("Content-Type %q is not accepted: send the body as %s (UTF-8)", ct, strings.Join(types, " or "))
	if ct == "" {
		msg = fmt.Sprintf("the body has no Content-Type: send it as %s (UTF-8); with curl, --json sends application/json", strings.Join(types, " or "))
	}
	return "", &library.Error{Code: library.CodeUnsupportedMediaType, Field: "Content-Type", Msg: msg}
}

// requestBodyType returns the declared media type of a request's body,
// which RequireDeclaredBody has let through.
func requestBodyType(c echo.Context) (string, error) {
	return declaredMediaType(c.Request().Header.Get(echo.HeaderContentType), requestMedia[operation(c)])
}

// operation names the API operation of c's route as the API document
// does: "PUT /api/v1/overrides/{id}".
func operation(c echo.Context) string {
	return c.Request().Method + " " + routeParam.ReplaceAllString(c.Path(), "{$1}")
}

package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/strictjson"
	"github.com/promptdesk/promptdesk/state"
)

// API serves the runtime API under /api/v1: JSON in and out,
// camelCase, UTF-8, with HTML escaping off so prompt text comes back
// byte for byte. Every handler reads the served state in memory,
// never the database. Its actions live in api_*.go, one file per resource.
//
// Errors are returned, never written: the server's error handler turns
// them into {"error":{"code","message","field"}} with these statuses:
//   - 400 invalid_json: the body is not one JSON value (syntax error,
//     truncated, empty, trailing data); the message gives line and column.
//     Well-formed JSON of the wrong shape is 422, below.
//   - 401 unauthorized: no valid API token, with WWW-Authenticate: Bearer;
//     403 forbidden: the token lacks the route's scope (RequireToken).
//   - 404 not_found: an unknown module, profile or route.
//   - 405 method_not_allowed, with an Allow header.
//   - 413 limit_exceeded: the body is larger than MaxRequestBytes (8 MiB).
//   - 415 unsupported_media_type: see RequireDeclaredBody.
//   - 422 invalid_request (unknown field, wrong type, bad locale…),
//     missing_variable, extra_variable, unknown_placeholder,
//     include_cycle, include_too_deep, and limit_exceeded for the count
//     limits (50 knowledge bases, 200 skills) and for a rendering past
//     8 MiB; field names the request field ("knowledgeBases",
//     "variables.conversation").
//   - 503 database_unavailable: the request needs the database and it
//     cannot be reached (an API token not yet known to this process).
type API struct {
	Served    *state.Served
	Assembler *assembler.Assembler
	// Assembly runs assemble and render (pins included).
	Assembly *state.Assembly
	// Closing is closed when the server shuts down: a change-feed request
	// waiting for a change answers at once instead of holding the
	// shutdown up (nil: never).
	Closing <-chan struct{}
	// Now is the clock of requests that set no "now".
	Now func() time.Time
}

// MaxRequestBytes is the request body limit of the runtime API: 8 MiB.
const MaxRequestBytes = assembler.MaxRequestBytes

// maxDrain is how much of an oversized body is read and thrown away so the
// client gets the 413 on a connection that stays usable; past it the
// server answers anyway and net/http closes the connection after the reply.
const maxDrain = 32 << 20

// errBodyTooLarge is the 413 of a body over limit bytes.
func errBodyTooLarge(limit int64) *library.Error {
	return &library.Error{
		Kind: library.ErrTooLarge,
		Code: library.CodeLimitExceeded,
		Msg:  fmt.Sprintf("the request body is larger than the limit of %s (%d bytes)", sizeName(limit), limit),
	}
}

// sizeName spells a byte count the way the API states limits ("8 MiB").
func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// LimitBody is the body-size middleware of the API group: a body larger
// than limit bytes fails with a 413 library.Error (code limit_exceeded, the
// message naming the limit) when the handler reads it, or before the
// handler runs when Content-Length already says so. The rest of an
// oversized body (up to 32 MiB) is read and discarded, so the client can
// read the JSON answer and keep its connection; a client that sent
// "Expect: 100-continue" is answered without being asked for the body.
func LimitBody(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.Body == nil || r.Body == http.NoBody {
				return next(c)
			}
			if r.ContentLength > limit {
				if !strings.EqualFold(r.Header.Get("Expect"), "100-continue") && r.ContentLength <= maxDrain {
					_, _ = io.Copy(io.Discard, r.Body)
				}
				return errBodyTooLarge(limit)
			}
			r.Body = &limitedBody{rc: r.Body, left: limit, limit: limit}
			return next(c)
		}
	}
}

// limitedBody is http.MaxBytesReader without its side effect of closing
// the connection: past the limit it drains the body and fails with the
// 413 library.Error.
type limitedBody struct {
	rc    io.ReadCloser
	left  int64
	limit int64
	err   error
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// One byte more than allowed tells "exactly at the limit" from "over it".
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.rc.Read(p)
	if int64(n) <= l.left {
		l.left -= int64(n)
		l.err = err
		return n, err
	}
	n = int(l.left)
	l.left = 0
	_, _ = io.CopyN(io.Discard, l.rc, maxDrain)
	l.err = errBodyTooLarge(l.limit)
	return n, l.err
}

func (l *limitedBody) Close() error { return l.rc.Close() }

// WriteJSON writes v as a JSON response with status: UTF-8, HTML escaping
// off (`<`, `>` and `&` stay as they are), encoded to a buffer first
// so an encoding error becomes a 500 instead of a half-written 200. The
// buffers are pooled (those up to maxPooledJSON bytes), so a large answer
// such as an assembly costs no buffer growth on each request, and the
// answer carries its Content-Length.
func WriteJSON(c echo.Context, status int, v any) error {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledJSON {
			buf.Reset()
			jsonBuffers.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode the JSON of %s: %w", c.Path(), err)
	}
	r := c.Response()
	r.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	r.Header().Set(echo.HeaderContentLength, strconv.Itoa(buf.Len()))
	r.WriteHeader(status)
	_, err := r.Write(buf.Bytes())
	return err
}

// maxPooledJSON is the largest response buffer kept for reuse: 1 MiB.
const maxPooledJSON = 1 << 20

var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readBody reads the whole request body (LimitBody bounds it). A body
// sent compressed (Content-Encoding other than identity) is a 415: the
// API reads JSON as it is. A body that stops arriving is a 400 that says
// so, without the connection's addresses.
func readBody(c echo.Context) ([]byte, error) {
	if ce := c.Request().Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return nil, &library.Error{Code: library.CodeUnsupportedMediaType, Field: "Content-Encoding",
			Msg: fmt.Sprintf("Content-Encoding %q is not accepted: send the body uncompressed", ce)}
	}
	data, err := io.ReadAll(c.Request().Body)
	var le *library.Error
	var ne net.Error
	switch {
	case errors.As(err, &le):
		return nil, le
	case errors.As(err, &ne) && ne.Timeout():
		return nil, &library.Error{Kind: library.ErrUnreadable, Code: library.CodeInvalidRequest, Msg: "the request body did not arrive within the server's read timeout; send it at once"}
	case err != nil:
		return nil, &library.Error{Kind: library.ErrUnreadable, Code: library.CodeInvalidRequest, Msg: "reading the request body failed"}
	}
	return data, nil
}

// queryLocale reads the optional ?locale= parameter: its canonical BCP 47
// form, or the fallback locale when absent. A tag that does not parse is a
// 422 invalid_request on field "locale".
func (h *API) queryLocale(c echo.Context) (string, error) {
	return localeParam(c, h.Assembler.FallbackLocale())
}

// localeParam reads the optional ?locale= parameter: its canonical BCP 47
// form (checkLocale), or absent when the parameter is missing or blank.
func localeParam(c echo.Context, absent string) (string, error) {
	s := strings.TrimSpace(c.QueryParam("locale"))
	if s == "" {
		return absent, nil
	}
	return checkLocale(s)
}

// checkLocale returns the canonical form of a BCP 47 tag ("en-us" →
// "en-US"), or a 422 invalid_request on field "locale".
func checkLocale(s string) (string, error) {
	loc, err := library.CanonicalLocale(s)
	if err != nil {
		return "", &library.Error{Code: library.CodeInvalidRequest, Field: "locale", Msg: library.LocaleProblem(s)}
	}
	return loc, nil
}

// queryBool reads an optional boolean query parameter (true/false/1/0);
// absent is false, anything else a 422 invalid_request naming it.
func queryBool(c echo.Context, name string) (bool, error) {
	s := c.QueryParam(name)
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, &library.Error{Code: library.CodeInvalidRequest, Field: name, Msg: fmt.Sprintf("%q is not true or false", s)}
	}
	return b, nil
}

// decodeBody decodes an API request body with strictjson.Decode,
// marking a body that is not JSON as unreadable (unreadable).
func decodeBody(data []byte, v any) error { return unreadable(strictjson.Decode(data, v)) }

// unreadable marks err, when it is an invalid_json error, as a request
// body the server could not read (400); the same code in a form field or
// a stored scenario request is that field's problem (422).
func unreadable(err error) error {
	var le *library.Error
	if errors.As(err, &le) && le.Code == library.CodeInvalidJSON && le.Kind == nil {
		e := *le
		e.Kind = library.ErrUnreadable
		return &e
	}
	return err
}

package handlers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// HeaderGeneration is the response header carrying the generation of
// what the runtime API serves (state.View.ServedGeneration).
const HeaderGeneration = "X-Promptdesk-Generation"

// Generation is the middleware of the API group that sends
// HeaderGeneration on every answer to an authenticated request (it runs
// after RequireToken, so a caller without a token learns nothing): the
// generation current when the request arrived, so an answer is never
// older than the number it carries (a publish or delete sends the one
// after its change instead: changedGeneration).
func Generation(served *state.Served) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Response().Header().Set(HeaderGeneration, strconv.FormatInt(served.Current().ServedGeneration, 10))
			return next(c)
		}
	}
}

// changedGeneration sends HeaderGeneration again after a write that
// changed what is served (a publish, a delete): the generation that
// includes the change, not the one the request arrived at, so a client
// that caches by generation knows its copy from before is old.
func changedGeneration(c echo.Context, served *state.Served) {
	c.Response().Header().Set(HeaderGeneration, strconv.FormatInt(served.Current().ServedGeneration, 10))
}

// WriteCachedJSON writes v as WriteJSON does, with a strong ETag: the
// quoted, unpadded base64url of the first 18 bytes of the body's
// SHA-256. A request whose If-None-Match lists that tag (or "*") gets 304
// Not Modified with the ETag and no body. Cache-Control: no-cache asks
// caches to revalidate each time.
func WriteCachedJSON(c echo.Context, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode the JSON of %s: %w", c.Path(), err)
	}
	sum := sha256.Sum256(buf.Bytes())
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	h := c.Response().Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	// Repeated header lines are one list (RFC 9110, section 5.3).
	if noneMatch(strings.Join(c.Request().Header.Values("If-None-Match"), ","), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	h.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	h.Set(echo.HeaderContentLength, strconv.Itoa(buf.Len()))
	c.Response().WriteHeader(http.StatusOK)
	_, err := c.Response().Write(buf.Bytes())
	return err
}

// noneMatch reports whether the If-None-Match header lists etag, by the
// weak comparison RFC 9110 prescribes for it (W/ is ignored), or is "*".
func noneMatch(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}

// MaxChangesWait is the longest a change-feed request may wait: 30 s.
const MaxChangesWait = 30 * time.Second

// APIChanges is GET /api/v1/changes: the current generation, the
// changes after the requested one, oldest first, and Reset when the
// server cannot list them (the generation is older than the changes it
// keeps, or newer than its own, as after a restart): then read what you
// cache again.
type APIChanges struct {
	Generation int64                `json:"generation"`
	Reset      bool                 `json:"reset"`
	Changes    []state.ServedChange `json:"changes"`
}

// Changes handles GET /api/v1/changes[?since=G][&wait=S]: 200 with
// APIChanges. Without since it answers the current generation at once,
// with no changes. With since it answers the changes after generation G;
// when there are none yet it waits up to S seconds (0 to 30, default 0)
// for one, then answers with what there is (maybe none). Errors: 422
// invalid_request for since or wait that are not whole numbers in range.
func (h *API) Changes(c echo.Context) error {
	wait, err := queryInt(c, "wait", 0, int64(MaxChangesWait/time.Second))
	if err != nil {
		return err
	}
	if c.QueryParam("since") == "" {
		return WriteJSON(c, http.StatusOK, APIChanges{Generation: h.Served.Current().ServedGeneration, Changes: []state.ServedChange{}})
	}
	since, err := queryInt(c, "since", 0, 1<<62)
	if err != nil {
		return err
	}
	d := time.Duration(wait) * time.Second
	if d > 0 {
		// The server's write timeout may be shorter than the wait.
		_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Now().Add(d + 10*time.Second))
	}
	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	if h.Closing != nil {
		go func() {
			select {
			case <-h.Closing:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	changes, gen, reset := h.Served.ChangesSince(ctx, since, d)
	c.Response().Header().Set(HeaderGeneration, strconv.FormatInt(gen, 10))
	return WriteJSON(c, http.StatusOK, APIChanges{Generation: gen, Reset: reset, Changes: changes})
}

// queryInt reads an optional whole-number query parameter in [lo, hi]
// (a leading + is taken, as the document's integer schema takes it);
// absent is lo, anything else a 422 invalid_request naming it.
func queryInt(c echo.Context, name string, lo, hi int64) (int64, error) {
	return queryIntOr(c, name, lo, hi, lo)
}

// queryIntOr is queryInt with absent meaning absent, which may lie
// outside [lo, hi] (0 for "no limit").
func queryIntOr(c echo.Context, name string, lo, hi, absent int64) (int64, error) {
	s := c.QueryParam(name)
	if s == "" {
		return absent, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, &library.Error{Code: library.CodeInvalidRequest, Field: name, Msg: fmt.Sprintf("%q is not a whole number from %d to %d", s, lo, hi)}
	}
	return n, nil
}

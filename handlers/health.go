package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/state"
)

// Pinger is what the readiness check needs from the store: whether the
// database answers, and whether its latest write failed for want of
// resources (since when, and why) with no write committed since.
type Pinger interface {
	Ping(ctx context.Context) error
	WriteFailure() (err *domain.ResourceError, since time.Time, ok bool)
}

// Health serves the liveness and readiness probes.
type Health struct {
	DB     Pinger
	Served *state.Served
}

// Live handles GET /healthz: 200 "ok" while the process serves.
func (h *Health) Live(c echo.Context) error {
	return c.String(http.StatusOK, "ok")
}

// Readiness statuses of GET /readyz.
const (
	ReadyOK       = "ready"
	ReadyDegraded = "degraded"
)

// readyPingTimeout bounds the database check of /readyz.
const readyPingTimeout = time.Second

// readyBody is the JSON of GET /readyz.
type readyBody struct {
	Status   string `json:"status"`   // ReadyOK or ReadyDegraded
	Database string `json:"database"` // "ok" or "unreachable: <cause>" (dbCause)
	// Writes is "ok", or "failing: <cause> (SQLSTATE <code>)" while the
	// database refuses writes for want of resources.
	Writes             string       `json:"writes"`
	WritesFailingSince *time.Time   `json:"writes_failing_since"`
	Library            readyLibrary `json:"library"`
	Generation         int64        `json:"generation"`
	LastNotification   *time.Time   `json:"last_notification"`
	StaleSince         *time.Time   `json:"stale_since"`
}

// readyLibrary is the library that serves: its source ("embedded" or
// the folder), generation and the folder's broken files, sorted by path.
type readyLibrary struct {
	Source     string        `json:"source"`
	Generation int           `json:"generation"`
	Broken     []readyBroken `json:"broken"`
}

// readyBroken is one broken file of the library folder; serving is true
// when its last good version keeps serving; instead, when it does not,
// names what serves in its place ("the embedded en-US labels"), else "".
type readyBroken struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Field   string `json:"field"`
	Error   string `json:"error"`
	Serving bool   `json:"serving"`
	Instead string `json:"instead"`
}

// Ready handles GET /readyz, always with JSON and status 200 while the
// process serves: {"status","database","writes","writes_failing_since",
// "library":{"source","generation","broken":[{"path","line","field",
// "error","serving","instead"}]},"generation","last_notification",
// "stale_since"}. status is "ready" when the database answers (within a
// second), the served state is current and writes succeed; "degraded"
// while the last state read from the database serves (stale_since says
// since when; "database" why), and while the database refuses writes for
// want of resources (a full disk: "writes" says why and
// writes_failing_since since when) until a write commits again. Broken library files do
// not make the server unready: their last good versions serve.
// generation is the served state's (state.View.ServedGeneration, as X-Promptdesk-Generation); the times are
// RFC 3339 or null.
func (h *Health) Ready(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), readyPingTimeout)
	err := h.DB.Ping(ctx)
	cancel()
	body := readyBody{Status: ReadyOK, Database: "ok", Writes: "ok"}
	if werr, since, failing := h.DB.WriteFailure(); failing {
		body.Status, body.Writes, body.WritesFailingSince = ReadyDegraded, "failing: "+werr.Cause+" (SQLSTATE "+werr.Code+")", &since
	}
	if err != nil {
		h.Served.Unreachable(err)
		body.Database = "unreachable: " + dbCause(err)
	}
	if since, stale := h.Served.StaleSince(); stale {
		body.Status, body.StaleSince = ReadyDegraded, &since
	} else if err != nil {
		body.Status = ReadyDegraded
	}
	if at := h.Served.LastNotification(); !at.IsZero() {
		body.LastNotification = &at
	}
	v := h.Served.Current()
	body.Generation = v.ServedGeneration
	body.Library = readyLibrary{Source: v.Library.Source, Generation: v.Library.Generation, Broken: make([]readyBroken, 0, len(v.LibraryBroken))}
	for _, b := range v.LibraryBroken {
		body.Library.Broken = append(body.Library.Broken, readyBroken{Path: b.File, Line: b.Line, Field: b.Field, Error: b.Msg, Serving: b.Serving, Instead: b.Instead})
	}
	return WriteJSON(c, http.StatusOK, body)
}

// dbCause is why the database check failed, in words that name no host,
// user or database: /readyz answers anyone, and a driver's error quotes
// the connection settings.
func dbCause(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer within " + readyPingTimeout.String()
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection lost"
	case errors.Is(err, domain.ErrUnavailable):
		return "not reachable"
	}
	return "the check failed"
}

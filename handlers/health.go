package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/promptdesk/promptdesk/state"
)

// Pinger is what the readiness check needs from the store.
type Pinger interface {
	Ping(ctx context.Context) error
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

// readyBody is the JSON of GET /readyz.
type readyBody struct {
	Status  string       `json:"status"` // "ready"
	Library readyLibrary `json:"library"`
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

// Ready handles GET /readyz: 200 when the database answers, with the JSON
// {"status":"ready","library":{"source","generation","broken":[{"path",
// "line","field","error","serving","instead"}]}} — broken library files do not make
// the server unready, the last good versions serve. Else 503 with the
// reason.
func (h *Health) Ready(c echo.Context) error {
	if err := h.DB.Ping(c.Request().Context()); err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "database unavailable").SetInternal(err)
	}
	v := h.Served.Current()
	body := readyBody{Status: "ready", Library: readyLibrary{
		Source: v.Library.Source, Generation: v.Library.Generation, Broken: make([]readyBroken, 0, len(v.LibraryBroken)),
	}}
	for _, b := range v.LibraryBroken {
		body.Library.Broken = append(body.Library.Broken, readyBroken{Path: b.File, Line: b.Line, Field: b.Field, Error: b.Msg, Serving: b.Serving, Instead: b.Instead})
	}
	return WriteJSON(c, http.StatusOK, body)
}

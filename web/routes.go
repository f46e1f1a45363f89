package web

import (
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/static"
	"github.com/promptdesk/promptdesk/store"
)

// newEcho builds the middleware stack and the route table: every route of
// the server is listed here, and only here.
func (s *Server) newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.handleError
	// The console's body limit; /api has its own (handlers.LimitBody) that
	// answers JSON and keeps the connection.
	e.Use(securityHeaders(), s.requestLogger(), s.recoverer(), middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: "8M", Skipper: isAPI}))

	health := &handlers.Health{DB: s.cfg.Store}
	lib := &handlers.Library{Overlay: s.overlay, Assembler: s.cfg.Assembler}
	mod := &handlers.Module{Overlay: s.overlay, Assembler: s.cfg.Assembler}
	ovr := &handlers.Overrides{Store: s.cfg.Store, Overlay: s.overlay, Assembler: s.cfg.Assembler, Log: s.log}
	drift := &handlers.Drift{Overlay: s.overlay}
	hist := &handlers.History{Store: s.cfg.Store, Overlay: s.overlay, Assembler: s.cfg.Assembler, Log: s.log}
	review := &handlers.DriftReview{Store: s.cfg.Store, Overlay: s.overlay, Assembler: s.cfg.Assembler, Log: s.log}
	prof := &handlers.Profiles{Store: s.cfg.Store, Overlay: s.overlay}
	prev := &handlers.Preview{Store: s.cfg.Store, Overlay: s.overlay, Assembler: s.cfg.Assembler, Now: s.cfg.Now}
	audit := &handlers.Audit{Store: s.cfg.Store}

	e.GET("/healthz", health.Live)
	e.GET("/readyz", health.Ready)
	e.GET(static.Prefix+"*", echo.WrapHandler(static.Handler()))

	e.GET("/", lib.List)
	e.GET("/modules/:id", mod.Show)
	e.GET("/modules/:id/override", ovr.Pick)
	e.GET("/modules/:id/override/:locale", ovr.Edit)
	e.POST("/modules/:id/override/:locale", ovr.Save)
	e.GET("/modules/:id/override/:locale/delete", ovr.ConfirmDelete)
	e.POST("/modules/:id/override/:locale/delete", ovr.Delete)
	e.POST("/modules/:id/override/:locale/publish", ovr.Publish)
	e.POST("/modules/:id/override/:locale/discard", ovr.Discard)
	e.GET("/overrides/new", ovr.New)
	e.POST("/overrides/new", ovr.Create)
	e.GET("/modules/:id/override/:locale/history", hist.Show)
	e.POST("/modules/:id/override/:locale/restore", hist.Restore)
	e.GET("/drift", drift.List)
	e.GET("/drift/:id/:locale", review.Show)
	e.POST("/drift/:id/:locale", review.Act)

	e.GET("/profiles", prof.List)
	e.POST("/profiles", prof.Create)
	e.GET("/profiles/new", prof.New)
	e.GET("/profiles/:id", prof.Edit)
	e.POST("/profiles/:id", prof.Update)
	e.GET("/profiles/:id/delete", prof.ConfirmDelete)
	e.POST("/profiles/:id/delete", prof.Delete)

	e.GET("/preview", prev.Show)
	e.POST("/preview", prev.Run)

	e.GET("/audit", audit.List)

	// The runtime API (S11), JSON only, in one group. Its middleware is
	// given to each route from apiMW rather than with Group.Use: Use adds a
	// catch-all 404 route to the group, which would answer 404 where a
	// path exists under another method (405). Unknown /api routes reach
	// Echo's 404 and become JSON in handleError.
	//
	// Every route needs a bearer token (issue 5) holding one of the scopes
	// given to apiMW or textMW; authentication runs first, so a caller
	// without a token learns nothing else. Scopes: assemble for what a
	// runtime calls (assemble, render, commands, tools); read for the
	// library and overrides as stored (modules, GET overrides); write for
	// changing overrides. commands, tools and openapi.json take assemble
	// or read: a runtime lists commands and tools, and any client may read
	// the API's description.
	api := &handlers.API{Overlay: s.overlay, Assembler: s.cfg.Assembler, Now: s.cfg.Now}
	apiMW := func(scopes ...string) []echo.MiddlewareFunc {
		return []echo.MiddlewareFunc{handlers.RequireToken(s.cfg.Store, scopes...), handlers.RequireJSON(), handlers.LimitBody(handlers.MaxRequestBytes)}
	}
	const assemble, read, write = store.ScopeAssemble, store.ScopeRead, store.ScopeWrite
	v1 := e.Group("/api/v1")
	v1.POST("/assemble", api.Assemble, apiMW(assemble)...)
	v1.POST("/render", api.Render, apiMW(assemble)...)
	v1.GET("/modules", api.Modules, apiMW(read)...)
	v1.GET("/modules/:id", api.Module, apiMW(read)...)
	v1.GET("/commands", api.Commands, apiMW(assemble, read)...)
	v1.GET("/tools", api.Tools, apiMW(assemble, read)...)
	v1.GET("/openapi.json", api.OpenAPI, apiMW(assemble, read)...)
	// Overrides (issue 4): PUT takes the module file as text/plain too, so
	// its middleware is apiMW with RequireModuleText for RequireJSON; keep
	// the two lists in step.
	apiOvr := &handlers.APIOverrides{Store: s.cfg.Store, Overlay: s.overlay, Assembler: s.cfg.Assembler, Log: s.log}
	textMW := func(scopes ...string) []echo.MiddlewareFunc {
		return []echo.MiddlewareFunc{handlers.RequireToken(s.cfg.Store, scopes...), handlers.RequireModuleText(), handlers.LimitBody(handlers.MaxRequestBytes)}
	}
	v1.GET("/overrides/:id", apiOvr.Get, apiMW(read)...)
	v1.PUT("/overrides/:id", apiOvr.Put, textMW(write)...)
	v1.DELETE("/overrides/:id", apiOvr.Delete, apiMW(write)...)
	v1.POST("/overrides/:id/publish", apiOvr.Publish, apiMW(write)...)
	return e
}

// isAPI reports whether a request is for the runtime API (S11).
func isAPI(c echo.Context) bool { return strings.HasPrefix(c.Request().URL.Path, "/api/") }

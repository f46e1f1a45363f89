package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/mcpserver"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/static"
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
	if s.cfg.Metrics != nil {
		e.Use(s.measure())
	}
	e.Use(securityHeaders(), s.requestLogger(), s.deadline(), s.recoverer(), apiOptions(), middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: strconv.Itoa(handlers.MaxRequestBytes), Skipper: isAPI}))
	// The client address of login throttling: the connection's, or behind
	// a TLS proxy (SecureCookies) X-Forwarded-For from a private proxy.
	e.IPExtractor = echo.ExtractIPDirect()
	if s.cfg.SecureCookies {
		e.IPExtractor = echo.ExtractIPFromXFFHeader()
	}
	// Console sessions, the logged-in user and CSRF; the API and the
	// open assets skip them. The user comes first so that a refused form
	// still gets the page frame with its navigation.
	e.Use(s.sessions(), unlessNoSession(s.auth.LoadUser), s.csrf())
	// The library folder's broken files, for the banner of every page.
	e.Use(unlessNoSession(handlers.LibraryBanner(s.served)))

	health := &handlers.Health{DB: s.cfg.Store, Served: s.served}
	lib := &handlers.Library{Served: s.served, Assembler: s.cfg.Assembler}
	mod := &handlers.Module{Served: s.served, Assembler: s.cfg.Assembler, Service: s.overrides}
	ovr := &handlers.Overrides{Service: s.overrides, Served: s.served, Assembler: s.cfg.Assembler}
	drift := &handlers.Drift{Served: s.served}
	hist := &handlers.History{Service: s.overrides, Served: s.served}
	review := &handlers.DriftReview{Service: s.overrides, Served: s.served, Assembler: s.cfg.Assembler}
	reqs := &handlers.Requests{Service: s.overrides}
	prof := &handlers.Profiles{Service: s.profiles, Served: s.served}
	prev := &handlers.Preview{Assembly: s.assembly, Scenarios: s.scenarios, Now: s.cfg.Now}
	audit := &handlers.Audit{Log: &state.Audit{Store: s.cfg.Store}}

	// Accounts: pages need a session whose user has the role
	// the route names: viewer browses and previews, editor changes
	// overrides, profiles and scenarios, admin manages users. Without a
	// session a page redirects to /login; the API uses bearer tokens
	// instead. The open routes are the health checks, the static files,
	// the login and the setup links.
	auth := s.auth
	viewer := handlers.RequireRole(domain.RoleViewer)
	editor := handlers.RequireRole(domain.RoleEditor)
	admin := handlers.RequireRole(domain.RoleAdmin)

	e.GET("/healthz", health.Live)
	e.GET("/readyz", health.Ready)
	// An unknown asset gets the 404 of every other unknown path (page or
	// JSON), not net/http's plain text.
	e.GET(static.Prefix+"*", echo.WrapHandler(static.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.handleError(echo.ErrNotFound, e.NewContext(r, w))
	}))))
	// Browsers ask for /favicon.ico whatever the page links: send them to
	// the icon rather than into a 404.
	e.GET("/favicon.ico", func(c echo.Context) error {
		c.Response().Header().Set(echo.HeaderCacheControl, "public, max-age=86400")
		return c.Redirect(http.StatusFound, static.URL("favicon.svg"))
	})
	e.GET("/login", auth.LoginForm)
	e.POST("/login", auth.Login)
	e.GET("/setup/:token", auth.SetupForm)
	e.POST("/setup/:token", auth.Setup)

	e.POST("/logout", auth.Logout, viewer)
	e.GET("/account/password", auth.PasswordForm, viewer)
	e.POST("/account/password", auth.ChangePassword, viewer)

	e.GET("/", lib.List, viewer)
	e.GET("/modules/:id", mod.Show, viewer)
	e.GET("/modules/:id/override", ovr.Pick, editor)
	e.GET("/modules/:id/override/:locale", ovr.Edit, editor)
	e.POST("/modules/:id/override/:locale", ovr.Save, editor)
	e.GET("/modules/:id/override/:locale/delete", ovr.ConfirmDelete, editor)
	e.POST("/modules/:id/override/:locale/delete", ovr.Delete, editor)
	e.POST("/modules/:id/override/:locale/publish", ovr.Publish, editor)
	e.POST("/modules/:id/override/:locale/discard", ovr.Discard, editor)
	e.GET("/overrides/new", ovr.New, editor)
	e.POST("/overrides/new", ovr.Create, editor)
	e.GET("/modules/:id/override/:locale/history", hist.Show, viewer)
	e.POST("/modules/:id/override/:locale/restore", hist.Restore, editor)
	e.GET("/drift", drift.List, viewer)
	e.GET("/drift/:id/:locale", review.Show, viewer)
	e.POST("/drift/:id/:locale", review.Act, editor)
	// Impact and confirmation: see what an edit changes before it counts.
	e.POST("/modules/:id/override/:locale/impact", ovr.Impact, editor)
	e.GET("/modules/:id/override/:locale/publish", ovr.ConfirmPublish, editor)
	e.GET("/modules/:id/override/:locale/discard", ovr.ConfirmDiscard, editor)
	e.GET("/drift/:id/:locale/take-builtin", review.ConfirmTakeBuiltin, editor)
	e.GET("/drift/:id/:locale/keep-mine", review.ConfirmKeepMine, editor)
	// Change review: requests wait for another editor's approval.
	e.GET("/requests", reqs.List, viewer)
	e.GET("/requests/:id", reqs.Show, viewer)
	e.POST("/requests/:id/approve", reqs.Approve, editor)
	e.POST("/requests/:id/reject", reqs.Reject, editor)

	// Override editor: the live check of the text as it is typed.
	e.POST("/modules/:id/override/:locale/check", ovr.LiveCheck, editor)

	e.GET("/profiles", prof.List, viewer)
	e.POST("/profiles", prof.Create, editor)
	e.GET("/profiles/new", prof.New, editor)
	e.GET("/profiles/:id", prof.Edit, viewer)
	e.POST("/profiles/:id", prof.Update, editor)
	e.GET("/profiles/:id/delete", prof.ConfirmDelete, editor)
	e.POST("/profiles/:id/delete", prof.Delete, editor)

	e.GET("/preview", prev.Show, viewer)
	e.POST("/preview", prev.Run, viewer)

	e.GET("/audit", audit.List, viewer)

	e.GET("/users", auth.Users, admin)
	e.POST("/users", auth.AddUser, admin)
	e.POST("/users/:name/role", auth.SetRole, admin)
	e.POST("/users/:name/disable", auth.SetDisabled, admin)
	e.POST("/users/links/:id/revoke", auth.RevokeSetupLink, admin)

	tokens := &handlers.Tokens{Tokens: s.tokens}
	e.GET("/tokens", tokens.List, admin)
	e.POST("/tokens", tokens.Create, admin)
	e.POST("/tokens/revoke", tokens.Revoke, admin)

	hooks := &handlers.Webhooks{Service: s.webhooks}
	e.GET("/webhooks", hooks.List, admin)
	e.POST("/webhooks", hooks.Create, admin)
	e.POST("/webhooks/:id/delete", hooks.Delete, admin)
	e.POST("/webhooks/:id/redeliver", hooks.RedeliverFailed, admin)
	e.POST("/webhooks/:id/deliveries/:delivery/redeliver", hooks.Redeliver, admin)

	// The runtime API, JSON only, in one group. Its middleware is
	// given to each route from apiMW rather than with Group.Use: Use adds a
	// catch-all 404 route to the group, which would answer 404 where a
	// path exists under another method (405). Unknown /api routes reach
	// Echo's 404 and become JSON in handleError.
	//
	// Every route needs a bearer token holding one of the scopes
	// given to apiMW or textMW; authentication runs first, so a caller
	// without a token learns nothing else. Scopes: assemble for what a
	// runtime calls (assemble, render, commands, tools); read for the
	// library and overrides as stored (modules, overrides and their
	// revisions); write for changing overrides (restore included); admin
	// for the webhooks. commands, tools, profiles, changes and
	// openapi.json take assemble or read: a runtime lists commands, tools
	// and profiles and follows the change feed, and any client may read
	// the API's description. Every answer carries the served generation
	// (handlers.Generation).
	api := &handlers.API{Served: s.served, Assembler: s.cfg.Assembler, Assembly: s.assembly, Closing: s.closing, Now: s.cfg.Now}
	apiMW := func(scopes ...string) []echo.MiddlewareFunc {
		return []echo.MiddlewareFunc{handlers.RequireToken(s.tokens, scopes...), handlers.Generation(s.served), handlers.KnownQuery(), handlers.RequireDeclaredBody(), handlers.LimitBody(handlers.MaxRequestBytes)}
	}
	const assemble, read, write = domain.ScopeAssemble, domain.ScopeRead, domain.ScopeWrite
	v1 := e.Group("/api/v1")
	v1.POST("/assemble", api.Assemble, apiMW(assemble)...)
	v1.POST("/render", api.Render, apiMW(assemble)...)
	v1.GET("/modules", api.Modules, apiMW(read)...)
	v1.GET("/modules/:id", api.Module, apiMW(read)...)
	v1.GET("/commands", api.Commands, apiMW(assemble, read)...)
	v1.GET("/tools", api.Tools, apiMW(assemble, read)...)
	v1.GET("/openapi.json", api.OpenAPI, apiMW(assemble, read)...)
	v1.GET(strings.TrimPrefix(changesPath, "/api/v1"), api.Changes, apiMW(assemble, read)...)
	v1.GET("/profiles", api.Profiles, apiMW(assemble, read)...)
	apiOvr := &handlers.APIOverrides{Service: s.overrides, Served: s.served, Assembler: s.cfg.Assembler}
	v1.GET("/overrides", apiOvr.List, apiMW(read)...)
	v1.GET("/overrides/:id", apiOvr.Get, apiMW(read)...)
	v1.PUT("/overrides/:id", apiOvr.Put, apiMW(write)...)
	v1.DELETE("/overrides/:id", apiOvr.Delete, apiMW(write)...)
	v1.POST("/overrides/:id/publish", apiOvr.Publish, apiMW(write)...)
	v1.GET("/overrides/:id/revisions", apiOvr.Revisions, apiMW(read)...)
	v1.GET("/overrides/:id/revisions/:n", apiOvr.Revision, apiMW(read)...)
	v1.POST("/overrides/:id/revisions/:n/restore", apiOvr.Restore, apiMW(write)...)

	// Scenarios: saved previews run against what is served and compared
	// with their accepted outputs (docs/scenarios.md). Console: viewers
	// see the runs, editors save (from the preview), edit, accept and
	// delete. API scopes: read to list and get, write to change and
	// accept, assemble to run.
	scen := &handlers.Scenarios{Service: s.scenarios, Now: s.cfg.Now}
	e.GET("/scenarios", scen.List, viewer)
	e.POST("/scenarios", prev.SaveScenario, editor)
	e.GET("/scenarios/:id", scen.Show, viewer)
	e.POST("/scenarios/:id", scen.Update, editor)
	e.GET("/scenarios/:id/request", scen.Request, viewer)
	e.POST("/scenarios/:id/accept", scen.Accept, editor)
	e.GET("/scenarios/:id/delete", scen.ConfirmDelete, editor)
	e.POST("/scenarios/:id/delete", scen.Delete, editor)
	apiScen := &handlers.APIScenarios{Service: s.scenarios}
	v1.GET("/scenarios", apiScen.List, apiMW(read)...)
	v1.POST("/scenarios", apiScen.Create, apiMW(write)...)
	v1.GET("/scenarios/:id", apiScen.Get, apiMW(read)...)
	v1.PUT("/scenarios/:id", apiScen.Put, apiMW(write)...)
	v1.DELETE("/scenarios/:id", apiScen.Delete, apiMW(write)...)
	v1.POST("/scenarios/:id/run", apiScen.Run, apiMW(assemble)...)
	v1.POST("/scenarios/:id/accept", apiScen.Accept, apiMW(write)...)

	// The porting ledger of borrowed prompt catalogues
	// (docs/importers.md): viewers read and export it, editors decide.
	// API scopes: read to list and export, write to decide.
	led := &handlers.Ledger{Service: s.ledger}
	e.GET("/ledger", led.List, viewer)
	e.GET("/ledger/export.md", led.Export, viewer)
	e.GET("/ledger/entry", led.Entry, viewer)
	e.POST("/ledger/decide", led.Decide, editor)
	apiLed := &handlers.APILedger{Service: s.ledger}
	v1.GET("/ledger", apiLed.List, apiMW(read)...)
	v1.GET("/ledger/export", apiLed.Export, apiMW(read)...)
	v1.POST("/ledger/decisions", apiLed.Decide, apiMW(write)...)

	// Webhooks: the endpoints events are sent to and their delivery log,
	// for admins only.
	apiHooks := &handlers.APIWebhooks{Service: s.webhooks}
	v1.GET("/webhooks", apiHooks.List, apiMW(domain.ScopeAdmin)...)
	v1.POST("/webhooks", apiHooks.Create, apiMW(domain.ScopeAdmin)...)
	v1.GET("/webhooks/:id", apiHooks.Get, apiMW(domain.ScopeAdmin)...)
	v1.PUT("/webhooks/:id", apiHooks.Put, apiMW(domain.ScopeAdmin)...)
	v1.DELETE("/webhooks/:id", apiHooks.Delete, apiMW(domain.ScopeAdmin)...)
	v1.GET("/webhooks/:id/deliveries", apiHooks.Deliveries, apiMW(domain.ScopeAdmin)...)
	v1.POST("/webhooks/:id/redeliver", apiHooks.RedeliverFailed, apiMW(domain.ScopeAdmin)...)
	v1.POST("/webhooks/:id/deliveries/:delivery/redeliver", apiHooks.Redeliver, apiMW(domain.ScopeAdmin)...)
	// MCP (streamable HTTP): the same bearer tokens as the API, a token
	// holding assemble or read to connect; each method and tool checks
	// the scope of its API route (mcpserver). GET holds the stream of
	// notifications open, so its write deadline is lifted and it ends
	// when the server closes.
	mcpMW := []echo.MiddlewareFunc{handlers.RequireToken(s.tokens, mcpserver.ConnectScopes...), s.mcpRequest}
	e.Match([]string{http.MethodGet, http.MethodPost, http.MethodDelete}, mcpPath, echo.WrapHandler(s.mcp.HTTPHandler()), mcpMW...)
	return e
}

// mcpPath is the MCP endpoint.
const mcpPath = "/mcp"

// isMCP reports whether a request is for the MCP endpoint.
func isMCP(c echo.Context) bool { return c.Request().URL.Path == mcpPath }

// mcpRequest hands the token RequireToken accepted to the MCP handler
// (mcpserver.WithToken) and ends the request when the server closes; a
// GET (the notification stream) has no write deadline.
func (s *Server) mcpRequest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		tok, _ := handlers.APIToken(c)
		ctx, cancel := context.WithCancel(mcpserver.WithToken(c.Request().Context(), tok))
		defer cancel()
		go func() {
			select {
			case <-s.closing:
				cancel()
			case <-ctx.Done():
			}
		}()
		if c.Request().Method == http.MethodGet {
			_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Time{})
		}
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// changesPath is the change feed's route, whose long poll deadline
// leaves alone.
const changesPath = "/api/v1/changes"

// isAPI reports whether a request is for the runtime API.
func isAPI(c echo.Context) bool { return strings.HasPrefix(c.Request().URL.Path, "/api/") }

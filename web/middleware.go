package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/promptdesk/promptdesk/handlers"
	"github.com/promptdesk/promptdesk/metrics"
	"github.com/promptdesk/promptdesk/static"
	"github.com/promptdesk/promptdesk/views/components"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// requestLogger logs one line per request with slog; errors go through
// the error handler first, so the logged status is the one sent.
func (s *Server) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		HandleError: true,
		LogMethod:   true,
		LogURI:      true,
		LogStatus:   true,
		LogLatency:  true,
		LogError:    true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			attrs := []slog.Attr{
				slog.String("method", v.Method),
				slog.String("uri", v.URI),
				slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency),
			}
			level := slog.LevelInfo
			if v.Error != nil {
				attrs = append(attrs, slog.String("err", v.Error.Error()))
				if v.Status >= 500 {
					level = slog.LevelError
				}
			}
			s.log.LogAttrs(c.Request().Context(), level, "request", attrs...)
			return nil
		},
	})
}

// measure records every request in Config.Metrics: method, route
// template (c.Path, metrics.Unmatched when no route matched), the status
// sent and the duration. It runs outermost, so an error has been answered
// by the error handler when it reads the status.
func (s *Server) measure() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			route := c.Path()
			if route == "" {
				route = metrics.Unmatched
			}
			s.cfg.Metrics.Request(c.Request().Method, route, c.Response().Status, time.Since(start))
			return nil
		}
	}
}

// recoverer turns a panic into a 500 page and logs it with its stack; the
// panic value is not wrapped, so it can never pass for a domain error.
func (s *Server) recoverer() echo.MiddlewareFunc {
	return middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.log.Error("panic", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err, "stack", string(stack))
			return fmt.Errorf("panic: %v", err)
		},
	})
}

// ContentSecurityPolicy is the policy sent with every response:
// scripts and styles come from /static only — no inline script, no inline
// style attribute, no eval (htmx is configured through its meta tag not to
// inject styles or run scripts) — and no page may frame the console.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// SecurityHeaders are the headers securityHeaders sets on every response,
// pages, API, static files and errors alike.
var SecurityHeaders = map[string]string{
	"Content-Security-Policy": ContentSecurityPolicy,
	"X-Content-Type-Options":  "nosniff",
	"Referrer-Policy":         "same-origin",
	"X-Frame-Options":         "DENY",
}

// securityHeaders sets SecurityHeaders before the handler runs, so that
// error responses written by the error handler carry them too.
func securityHeaders() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			for k, v := range SecurityHeaders {
				h.Set(k, v)
			}
			return next(c)
		}
	}
}

// noSession reports whether a request needs no session or CSRF token:
// the API and MCP (bearer tokens), the static files and the health checks.
func noSession(c echo.Context) bool {
	p := c.Request().URL.Path
	return isAPI(c) || isMCP(c) || strings.HasPrefix(p, static.Prefix) || p == "/healthz" || p == "/readyz"
}

// unlessNoSession runs mw except where noSession holds.
func unlessNoSession(mw echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		with := mw(next)
		return func(c echo.Context) error {
			if noSession(c) {
				return next(c)
			}
			return with(c)
		}
	}
}

// sessions loads and saves the console session (scs, in Postgres). A
// console response is never stored by a browser or proxy cache: every
// page carries the user's data or a CSRF token, and Back after logging
// out must not show it again.
func (s *Server) sessions() echo.MiddlewareFunc {
	load := echo.WrapMiddleware(s.sessionManager.LoadAndSave)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		withSession := load(next)
		return func(c echo.Context) error {
			if noSession(c) {
				return next(c)
			}
			// Registered on the outermost response, this runs last, after
			// scs, the CSRF middleware and the handler added their own.
			h := c.Response().Header()
			c.Response().Before(func() { consoleCacheHeaders(h) })
			return withSession(c)
		}
	}
}

// consoleCacheHeaders is the one place that writes a console response's
// caching headers: Cache-Control is no-store alone (scs adds
// no-cache="Set-Cookie" with each cookie it sets, which no-store covers),
// and Vary names each header once, in the order first added (scs and
// the CSRF middleware both add Cookie; pages that answer htmx apart add
// HX-Request).
func consoleCacheHeaders(h http.Header) {
	h.Set(echo.HeaderCacheControl, "no-store")
	var vary []string
	for _, v := range h.Values(echo.HeaderVary) {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.TrimSpace(name)
			if name != "" && !slices.ContainsFunc(vary, func(v string) bool { return strings.EqualFold(v, name) }) {
				vary = append(vary, name)
			}
		}
	}
	if len(vary) > 0 {
		h.Set(echo.HeaderVary, strings.Join(vary, ", "))
	}
}

// csrf is Echo's CSRF middleware on every console request: POST and the
// other unsafe methods need the token of the _csrf cookie, in the _csrf
// form field (components.CSRFInput; multipart forms too) or, for htmx, in
// the X-CSRF-Token header (static/app.js, from the layout's meta tag).
// The token goes into the request context for the views. The token is
// the one mechanism: Echo's Sec-Fetch-Site shortcut is not used, so every
// browser and client is held to the same rule.
func (s *Server) csrf() echo.MiddlewareFunc {
	check := middleware.CSRFWithConfig(middleware.CSRFConfig{
		Skipper:        noSession,
		TokenLookup:    "header:" + components.CSRFHeader + ",form:" + components.CSRFField,
		CookieName:     components.CSRFCookie,
		CookiePath:     "/",
		CookieHTTPOnly: true,
		CookieSecure:   s.cfg.SecureCookies,
		CookieSameSite: http.SameSiteLaxMode,
		CookieMaxAge:   int(handlers.SessionLifetime.Seconds()),
		ErrorHandler: func(_ error, c echo.Context) error {
			// The error page's frame carries the browser's token, so that
			// its log-out form works.
			if ck, err := c.Cookie(components.CSRFCookie); err == nil {
				c.SetRequest(c.Request().WithContext(components.WithCSRF(c.Request().Context(), ck.Value)))
			}
			return echo.NewHTTPError(http.StatusForbidden, "This form was not sent by the console, or its security token has expired: reload the page and try again.")
		},
	})
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		withToken := check(func(c echo.Context) error {
			if tok, ok := c.Get(middleware.DefaultCSRFConfig.ContextKey).(string); ok {
				c.SetRequest(c.Request().WithContext(components.WithCSRF(c.Request().Context(), tok)))
			}
			return next(c)
		})
		return func(c echo.Context) error {
			c.Request().Header.Del(echo.HeaderSecFetchSite)
			return withToken(c)
		}
	}
}

// deadline gives each request's context Config.DatabaseTimeout, so that
// a database that stops answering fails the request as unavailable
// instead of holding it; the change feed, which waits for changes on
// purpose and reads no database, and MCP, whose sessions outlive their
// requests, keep the request's own.
func (s *Server) deadline() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Request().URL.Path == changesPath || isMCP(c) {
				return next(c)
			}
			ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.DatabaseTimeout)
			defer cancel()
			c.SetRequest(c.Request().WithContext(ctx))
			err := next(c)
			if err != nil {
				// Answered here, while the context holds: the error page
				// renders with it. The error handler leaves an answered
				// request alone when the outer middleware calls it again.
				c.Error(err)
			}
			return err
		}
	}
}

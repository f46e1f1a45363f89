package handlers

import (
	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/views/components"
)

// LibraryBanner puts the library folder's broken files (S6) into the
// request context, where the layout shows them as a banner on every
// console page.
func LibraryBanner(o *Overlay) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			v := o.Current()
			if v == nil || len(v.LibraryBroken) == 0 {
				return next(c)
			}
			files := make([]components.BrokenFile, len(v.LibraryBroken))
			for i, b := range v.LibraryBroken {
				msg := b.Msg
				if b.Field != "" {
					msg = "field " + b.Field + ": " + msg
				}
				files[i] = components.BrokenFile{Path: b.File, Line: b.Line, Message: msg, Serving: b.Serving}
			}
			c.SetRequest(c.Request().WithContext(components.WithLibraryBroken(c.Request().Context(), files)))
			return next(c)
		}
	}
}

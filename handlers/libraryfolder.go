package handlers

import (
	"path/filepath"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/components"
)

// LibraryBanner puts the library folder's broken files into the
// request context, where the layout shows them as a banner on every
// console page, with paths relative to the folder.
func LibraryBanner(o *state.Served) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			v := o.Current()
			if v == nil || len(v.LibraryBroken) == 0 {
				return next(c)
			}
			folder := v.Library.Source
			files := make([]components.BrokenFile, len(v.LibraryBroken))
			for i, b := range v.LibraryBroken {
				files[i] = components.BrokenFile{Path: relativePath(folder, b.File), Line: b.Line, Field: b.Field, Message: b.Msg, Serving: b.Serving, Instead: b.Instead}
			}
			c.SetRequest(c.Request().WithContext(components.WithLibraryBroken(c.Request().Context(), folder, files)))
			return next(c)
		}
	}
}

// relativePath is file (slash-separated) relative to folder, or file as
// it is when it is not inside folder.
func relativePath(folder, file string) string {
	rel, err := filepath.Rel(folder, filepath.FromSlash(file))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return file
	}
	return filepath.ToSlash(rel)
}

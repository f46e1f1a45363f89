package handlers

import (
	"context"
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/views/components"
)

// noteField is the empty note field of a form that changes an override.
func noteField() components.Note {
	return components.Note{Max: domain.MaxNoteLength}
}

// noteContext reads the field "note" of a console form or an API query
// (domain.CleanNote) and returns the request's context carrying it, so
// that the change records it. Errors: the *library.Error on field note.
func noteContext(c echo.Context) (context.Context, error) {
	note, err := domain.CleanNote("note", c.FormValue("note"))
	if err != nil {
		return nil, err
	}
	return domain.WithNote(c.Request().Context(), note), nil
}

// apiNoteContext is noteContext for the API, whose writes take the note
// as the query parameter "note" (a PUT's body is the module text).
func apiNoteContext(c echo.Context) (context.Context, error) {
	note, err := domain.CleanNote("note", c.QueryParam("note"))
	if err != nil {
		return nil, err
	}
	return domain.WithNote(c.Request().Context(), note), nil
}

// problemMessage is the message of a refused field, without its code.
func problemMessage(err error) string {
	if le, ok := errors.AsType[*library.Error](err); ok {
		return le.Msg
	}
	return err.Error()
}

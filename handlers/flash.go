package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
)

// flashCookie carries a one-time message across a post/redirect/get.
const flashCookie = "promptdesk_flash"

// setFlash stores msg for the next page this browser loads.
func setFlash(c echo.Context, msg string) {
	c.SetCookie(&http.Cookie{
		Name:     flashCookie,
		Value:    url.QueryEscape(msg),
		Path:     "/",
		MaxAge:   60,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	})
}

// flashFor returns the pending message, if any, and clears it.
func flashFor(c echo.Context) string {
	ck, err := c.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	c.SetCookie(&http.Cookie{Name: flashCookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	msg, err := url.QueryUnescape(ck.Value)
	if err != nil {
		return ""
	}
	return msg
}

// goneAgain answers a delete of what was deleted before (a repeated form
// post, the back button): nothing changes, and the page at back says so
// in its flash. ok is false when err is not an AlreadyDeleted.
func goneAgain(c echo.Context, err error, back string) (ok bool, _ error) {
	var gone *domain.AlreadyDeleted
	if !errors.As(err, &gone) {
		return false, nil
	}
	msg := gone.Error()
	setFlash(c, strings.ToUpper(msg[:1])+msg[1:]+"; nothing changed.")
	return true, seeOther(c, back)
}

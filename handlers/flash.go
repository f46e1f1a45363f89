package handlers

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
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

// Package layout is the page frame of the console: head, top navigation
// and main area (S10).
package layout

import "strconv"

// Nav names a top-navigation entry, to mark the current section.
type Nav string

// The top-navigation entries.
const (
	NavLibrary  Nav = "library"
	NavDrift    Nav = "drift"
	NavProfiles Nav = "profiles"
	NavPreview  Nav = "preview"
	NavAudit    Nav = "audit"
	NavUsers    Nav = "users"
	NavTokens   Nav = "tokens"
)

// Meta is what the frame needs from a page: its title and section.
type Meta struct {
	Title string
	Nav   Nav
}

// htmxConfig is read by htmx from a meta tag, so no inline script is
// needed (web.ContentSecurityPolicy forbids it): no eval, no injected
// <style>, and 409 and 422 responses are swapped because they carry the
// form with its errors.
const htmxConfig = `{"allowEval":false,"allowScriptTags":false,"includeIndicatorStyles":false,` +
	`"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},` +
	`{"code":"409","swap":true},{"code":"422","swap":true},{"code":"[45]..","swap":false,"error":true}]}`

type navItem struct {
	nav   Nav
	label string
	href  string
}

var navItems = []navItem{
	{NavLibrary, "Library", "/"},
	{NavDrift, "Drift", "/drift"},
	{NavProfiles, "Profiles", "/profiles"},
	{NavPreview, "Preview", "/preview"},
	{NavAudit, "Audit", "/audit"},
}

// brokenSummary is the library banner's headline for n broken files (S6).
func brokenSummary(n int) string {
	files := "1 file"
	if n != 1 {
		files = strconv.Itoa(n) + " files"
	}
	return "Library folder: " + files + " broken; the last good version keeps serving"
}

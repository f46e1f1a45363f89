// Package layout is the page frame of the console: head, top navigation
// and main area.
package layout

import (
	"strconv"
	"strings"

	"github.com/promptdesk/promptdesk/views/components"
)

// Nav names a top-navigation entry, to mark the current section.
type Nav string

// The top-navigation entries.
const (
	NavLibrary   Nav = "library"
	NavDrift     Nav = "drift"
	NavRequests  Nav = "requests"
	NavProfiles  Nav = "profiles"
	NavPreview   Nav = "preview"
	NavScenarios Nav = "scenarios"
	NavLedger    Nav = "ledger"
	NavAudit     Nav = "audit"
	NavUsers     Nav = "users"
	NavTokens    Nav = "tokens"
	NavWebhooks  Nav = "webhooks"
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
	{NavRequests, "Requests", "/requests"},
	{NavProfiles, "Profiles", "/profiles"},
	{NavPreview, "Preview", "/preview"},
	{NavScenarios, "Scenarios", "/scenarios"},
	{NavLedger, "Ledger", "/ledger"},
	{NavAudit, "Audit", "/audit"},
}

// brokenSummary is the library banner's headline: the folder, how
// many files are broken, and whether their last good versions serve —
// all, none (files that never loaded) or some — or a fallback in their
// place (a label file's embedded labels).
func brokenSummary(folder string, files []components.BrokenFile) string {
	serving, instead := 0, 0
	for _, f := range files {
		switch {
		case f.Serving:
			serving++
		case f.Instead != "":
			instead++
		}
	}
	n, head := len(files), "Library folder "+folder+": "
	none := n - serving - instead
	switch {
	case serving == n && n == 1:
		return head + components.Count("count.files", 1) + " broken; its last good version keeps serving"
	case serving == n:
		return head + components.Count("count.files", n) + " broken; their last good versions keep serving"
	case none == n && n == 1:
		return head + components.Count("count.files", 1) + " broken and not served: it has no good version yet"
	case none == n:
		return head + components.Count("count.files", n) + " broken and not served: none has a good version yet"
	case instead == n && n == 1:
		return head + components.Count("count.files", 1) + " broken; " + files[0].Instead + " serve in its place"
	case instead == n:
		return head + components.Count("count.files", n) + " broken; fallbacks serve in their place"
	}
	var parts []string
	if serving == 1 {
		parts = append(parts, "1 keeps serving its last good version")
	} else if serving > 1 {
		parts = append(parts, strconv.Itoa(serving)+" keep serving their last good versions")
	}
	if instead == 1 {
		parts = append(parts, "1 has a fallback serving in its place")
	} else if instead > 1 {
		parts = append(parts, strconv.Itoa(instead)+" have fallbacks serving in their place")
	}
	if none == 1 {
		parts = append(parts, "1 is not served (no good version yet)")
	} else if none > 1 {
		parts = append(parts, strconv.Itoa(none)+" are not served (no good version yet)")
	}
	return head + components.Count("count.files", n) + " broken: " + strings.Join(parts, ", ")
}

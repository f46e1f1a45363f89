// Package components holds the pieces several console pages share:
// status badges, messages, field errors and line-numbered text with errors
// shown under the offending line.
package components

import (
	"context"
	"strconv"
	"strings"

	"github.com/promptdesk/promptdesk/library"
)

// badgeLabels gives the words of statuses and report sources
// whose display differs from their code.
var badgeLabels = map[string]string{
	"user":             "user module",
	"override-drifted": "override (drifted)",
	"user-module":      "user module",
}

func badgeLabel(status string) string {
	if l, ok := badgeLabels[status]; ok {
		return l
	}
	return status
}

// NumberedLine is one line of a text shown with line numbers; Errors and
// Warnings are the messages shown under it.
type NumberedLine struct {
	N      int
	Text   string
	Errors []string
	// Warnings are checklist findings (docs/lint.md): shown, never blocking.
	Warnings []string
}

// LineError is a message about one line of a text; Line 0 concerns the
// whole text. Warning marks a checklist finding rather than an error.
type LineError struct {
	Line    int
	Msg     string
	Warning bool
}

// NumberLines splits text (LF or CRLF) into numbered lines and attaches
// each error or warning to its line; one past the end goes to the last
// line. Errors with Line 0 are returned apart, to show above the text; a
// warning with Line 0 goes to the first line.
func NumberLines(text string, errs []LineError) (lines []NumberedLine, general []string) {
	parts := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	lines = make([]NumberedLine, len(parts))
	for i, p := range parts {
		lines[i] = NumberedLine{N: i + 1, Text: p}
	}
	for _, e := range errs {
		i := min(max(e.Line, 1), len(lines)) - 1
		switch {
		case e.Warning:
			lines[i].Warnings = append(lines[i].Warnings, e.Msg)
		case e.Line <= 0:
			general = append(general, e.Msg)
		default:
			lines[i].Errors = append(lines[i].Errors, e.Msg)
		}
	}
	return lines, general
}

// CSRFField is the name of the hidden form field carrying the CSRF token;
// htmx requests send it as the CSRFHeader header instead (static/app.js
// reads it from the layout's csrf-token meta tag).
const (
	CSRFField  = "_csrf"
	CSRFHeader = "X-CSRF-Token"
	// CSRFCookie is the cookie holding the CSRF token.
	CSRFCookie = "promptdesk_csrf"
)

type csrfKey struct{}

// WithCSRF returns ctx carrying the request's CSRF token, for CSRFInput
// and the layout.
func WithCSRF(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, csrfKey{}, token)
}

// CSRFToken returns the token WithCSRF put in ctx, or "".
func CSRFToken(ctx context.Context) string {
	t, _ := ctx.Value(csrfKey{}).(string)
	return t
}

// User is the logged-in user as the pages show it. CanEdit and IsAdmin
// say what the role allows (domain.RoleAtLeast), so that pages show only
// the actions the user may take; the routes check the role again.
type User struct {
	Name    string
	Role    string
	CanEdit bool // editor or admin: overrides, profiles, drift reviews
	IsAdmin bool // admin: users and API tokens
}

type userKey struct{}

// WithUser returns ctx carrying the logged-in user, for the layout.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// CurrentUser returns the user WithUser put in ctx; ok is false when no
// one is logged in.
func CurrentUser(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

// CanEdit reports whether the logged-in user may change overrides,
// profiles and drift reviews; false when no one is logged in.
func CanEdit(ctx context.Context) bool {
	u, _ := CurrentUser(ctx)
	return u.CanEdit
}

// IsAdmin reports whether the logged-in user is an admin; false when no
// one is logged in.
func IsAdmin(ctx context.Context) bool {
	u, _ := CurrentUser(ctx)
	return u.IsAdmin
}

// BrokenFile is a file of the library folder that does not serve as
// written, for the layout's banner: Path is relative to the folder;
// Line is 0 when the whole file is concerned; Field is "" when the error
// names none; Serving is true when its last good version keeps serving;
// Instead, when it does not, names what serves in its place (a plural
// noun phrase: "the embedded en-US labels"), or is "".
type BrokenFile struct {
	Path    string
	Line    int
	Field   string
	Message string
	Serving bool
	Instead string
}

// Where is "path:line", or the path alone when Line is 0.
func (b BrokenFile) Where() string {
	if b.Line > 0 {
		return b.Path + ":" + strconv.Itoa(b.Line)
	}
	return b.Path
}

type libraryBrokenKey struct{}

type libraryBroken struct {
	folder string
	files  []BrokenFile
}

// WithLibraryBroken returns ctx carrying the library folder (as the
// server was given it) and its broken files, for the layout's banner.
func WithLibraryBroken(ctx context.Context, folder string, files []BrokenFile) context.Context {
	return context.WithValue(ctx, libraryBrokenKey{}, libraryBroken{folder, files})
}

// LibraryBroken returns the folder and files WithLibraryBroken put in
// ctx; no files when there are none.
func LibraryBroken(ctx context.Context) (folder string, files []BrokenFile) {
	b, _ := ctx.Value(libraryBrokenKey{}).(libraryBroken)
	return b.folder, b.files
}

// Count is n with its noun for the console, in the plural form of its
// language (library.Count): "1 revision", "3 revisions". vars are further
// placeholder values as name, value pairs.
func Count(base string, n int, vars ...string) string {
	return library.Count(library.UILocale, base, n, vars...)
}

// Note is the optional note field of a form that saves or publishes an
// override: Value as typed, Error why it was refused, Max the most
// characters it may have.
type Note struct {
	Value, Error string
	Max          int
}

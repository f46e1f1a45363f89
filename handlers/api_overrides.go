package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
)

// APIOverrides serves /api/v1/overrides/{id}?locale=L: read, save (a
// draft), publish and delete one override, with optimistic locking
// through If-Match (the override's revision). Unlike the runtime routes
// it reads the database, so that the revision it reports is the current
// one; every write goes through the Service. Changes are recorded with
// the actor of the token, "token:<name>" (RequireToken).
//
// Besides the errors documented on API it answers 412
// precondition_failed (field If-Match) when the override has moved past
// the If-Match revision or If-Match is a weak tag, the message and the
// ETag naming the current revision, and 428 precondition_required when a
// change of an existing override comes without If-Match.
type APIOverrides struct {
	Service   OverrideService
	Served    *state.Served
	Assembler *assembler.Assembler
}

// The status of a module in one locale, as the override API reports it.
const (
	OverrideStatusDraft     = "draft"     // the head is a draft, not served yet
	OverrideStatusPublished = "published" // the head is the published, served revision
	OverrideStatusBuiltin   = "builtin"   // no override: the builtin serves
)

// The kind of a module in one locale, as the override API reports it.
const (
	OverrideKindOverride = "override"    // an override of a builtin module
	OverrideKindUser     = "user-module" // an override whose id has no builtin
	OverrideKindBuiltin  = "builtin"     // no override
)

// APIOverride is GET /api/v1/overrides/{id}: the override's head, its
// whole module file (the draft's text when the head is a draft) and its
// revision, the If-Match of the next PUT, DELETE or publish; Status draft
// or published; Kind override or user-module; PublishedRevision the
// served revision (0: none); Drift whether the builtin moved on since the
// override was made (nil when it did not). With no override: the builtin
// text an override would start from (of the locale, else the fallback
// locale, else any), revision 0, status and kind builtin.
type APIOverride struct {
	Text              string    `json:"text"`
	Revision          int       `json:"revision"`
	Status            string    `json:"status"`
	Kind              string    `json:"kind"`
	PublishedRevision int       `json:"publishedRevision"`
	Drift             *APIDrift `json:"drift,omitempty"`
}

// APIDrift is the drift of an override: Reason (builtin-version-raised,
// builtin-version-lowered, builtin-text-changed or builtin-removed), the
// builtin version the override is based on and the builtin's version now
// (0 when removed). Only the drift review (console) moves the base.
type APIDrift struct {
	Reason         assembler.DriftReason `json:"reason"`
	BasedOnVersion int                   `json:"basedOnVersion"`
	BuiltinVersion int                   `json:"builtinVersion"`
}

// apiDrift is the APIDrift of the stored override row, nil when it has
// not drifted.
func apiDrift(v *state.View, row domain.Override) *APIDrift {
	d := state.DriftOfRow(row, v.Library)
	if !d.Drifted() {
		return nil
	}
	return &APIDrift{Reason: d.Reason, BasedOnVersion: d.BasedOnVersion, BuiltinVersion: d.BuiltinVersion}
}

// APIOverridePublished is the answer of POST
// /api/v1/overrides/{id}/publish: the revision now served.
type APIOverridePublished struct {
	Revision  int  `json:"revision"`
	Published bool `json:"published"`
}

// APIChangeRequest is the answer of a publish or delete made while
// change review is on (202 Accepted): the change request it made, which
// serves once another editor or an admin approves it in the console (its
// page is URL, also the Location header). Status is "open".
type APIChangeRequest struct {
	ID        int64     `json:"id"`
	Action    string    `json:"action"`
	Module    string    `json:"module"`
	Locale    string    `json:"locale"`
	Revision  int       `json:"revision"`
	Author    string    `json:"author"`
	Note      string    `json:"note,omitempty"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	URL       string    `json:"url"`
}

// APIOverrideSaved is the answer of PUT /api/v1/overrides/{id}: a saved
// text is a draft (Status draft) until published. Stored is false when
// the text equals the builtin text, or the head's text on an older
// If-Match: nothing was stored, and Revision and Status are those of the
// override's head, if any. Text is the module text as stored (line endings normalised);
// Message says what happened.
type APIOverrideSaved struct {
	Stored   bool   `json:"stored"`
	Text     string `json:"text"`
	Revision int    `json:"revision"`
	Status   string `json:"status"`
	Message  string `json:"message"`
	// Warnings are the module checklist's warnings of Text, never
	// nil; they do not block saving or publishing. Notices say what the
	// checklist could not check (a locale without cue words), never nil.
	Warnings []library.Finding `json:"warnings"`
	Notices  []library.Finding `json:"notices"`
}

// apiOverrideBody is the JSON form of a PUT body.
type apiOverrideBody struct {
	Text *string `json:"text"`
}

// readModuleText reads a PUT body: text/plain or text/markdown is the
// module file as it is, application/json is {"text": "…"}
// (RequireDeclaredBody has checked the type).
func readModuleText(c echo.Context) (string, error) {
	data, err := readBody(c)
	if err != nil || len(data) == 0 {
		return "", err
	}
	mt, err := requestBodyType(c)
	if err != nil {
		return "", err
	}
	if mt != echo.MIMEApplicationJSON {
		return string(data), nil
	}
	var body apiOverrideBody
	if err := decodeBody(data, &body); err != nil {
		return "", err
	}
	if body.Text == nil {
		return "", &library.Error{Code: library.CodeInvalidRequest, Field: "text", Msg: "required: the whole module file, frontmatter and body"}
	}
	return *body.Text, nil
}

// errWeakTag is ifMatch's error for a weak entity tag (W/"3"): If-Match
// compares strongly (RFC 9110), so a weak tag matches no revision.
var errWeakTag = errors.New("a weak entity tag never matches: If-Match compares strongly")

// ifMatch reads the If-Match header, the revision a change is based on:
// "3-<hash>" (the GET's ETag as sent), "3" and 3 all mean 3. present is false without the
// header. Errors: errWeakTag for W/"3", which the caller answers with
// preconditionFailed; a 422 invalid_request on field If-Match for
// anything else that is not a revision.
func ifMatch(c echo.Context) (revision int, present bool, err error) {
	raw := strings.TrimSpace(c.Request().Header.Get("If-Match"))
	if raw == "" {
		return 0, false, nil
	}
	if strings.HasPrefix(raw, "W/") {
		return 0, true, fmt.Errorf("If-Match %s: %w; send the tag as the ETag gave it", raw, errWeakTag)
	}
	digits := raw
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		// The GET's tag "<revision>-<hash>": the revision is compared.
		digits, _, _ = strings.Cut(raw[1:len(raw)-1], "-")
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || n > domain.MaxRevision || strings.ContainsAny(digits, "+-") {
		return 0, true, &library.Error{Code: library.CodeInvalidRequest, Field: "If-Match",
			Msg: fmt.Sprintf("%q is not a revision: send the ETag that GET returned, a quoted number such as \"4\" (\"0\" to create)", raw)}
	}
	return n, true, nil
}

// preconditionFailed is the 412 of a change whose If-Match is not the
// override's revision (why says how): the message and the ETag give the
// current revision (0: no override), so the client can merge and retry.
func (h *APIOverrides) preconditionFailed(c echo.Context, id, locale string, why error) error {
	cur := 0
	row, err := h.Service.Head(c.Request().Context(), id, locale)
	switch {
	case err == nil:
		cur = row.Revision
	case !errors.Is(err, library.ErrNotFound):
		return err
	}
	setETag(c, cur)
	msg := library.KindText(why)
	if !strings.Contains(msg, fmt.Sprintf("at revision %d", cur)) {
		msg += fmt.Sprintf("; %s (%s) is at revision %d", id, locale, cur)
	}
	if c.Request().Method == http.MethodDelete {
		msg += fmt.Sprintf(": GET the override, check it is still to go, and send If-Match: \"%d\"", cur)
	} else {
		msg += fmt.Sprintf(": GET the override, merge your change into its text and send If-Match: \"%d\"", cur)
	}
	return &library.Error{Code: library.CodePreconditionFailed, Field: "If-Match", Msg: msg}
}

// setETag sends the revision as the response's entity tag, the value of
// the next If-Match.
func setETag(c echo.Context, revision int) {
	c.Response().Header().Set("ETag", strconv.Quote(strconv.Itoa(revision)))
}

// target reads :id and ?locale= (default: the fallback locale).
func (h *APIOverrides) target(c echo.Context) (v *state.View, id, locale string, err error) {
	id = c.Param("id")
	if locale, err = localeParam(c, h.Assembler.FallbackLocale()); err != nil {
		return nil, "", "", err
	}
	return h.Served.Current(), id, locale, nil
}

// overrideKind is the kind of an existing override of id.
func overrideKind(v *state.View, id string) string {
	if v.Library.Has(id) {
		return OverrideKindOverride
	}
	return OverrideKindUser
}

// headStatus is the status of an override's head.
func headStatus(o domain.Override) string {
	if o.Draft {
		return OverrideStatusDraft
	}
	return OverrideStatusPublished
}

// apiNoOverride is the 404 of id in locale when there is no override there.
func apiNoOverride(v *state.View, id, locale string) error {
	msg := fmt.Sprintf("no override in %s: the builtin serves", locale)
	switch {
	case !v.Exists(id):
		return &library.Error{Code: library.CodeNotFound, Module: id, Field: "id", Msg: "no builtin or user module has this id"}
	case !v.Library.Has(id):
		msg = fmt.Sprintf("the user module has no text in %s", locale)
	}
	return &library.Error{Code: library.CodeNotFound, Module: id, Field: "locale", Msg: msg}
}

// Get handles GET /api/v1/overrides/{id}[?locale=L]: 200 with the
// APIOverride of L (default: the fallback locale) and its revision as the
// ETag. Errors: 404 not_found for an unknown id, or a user module with no
// override in L; 422 invalid_request for a malformed locale.
func (h *APIOverrides) Get(c echo.Context) error {
	v, id, locale, err := h.target(c)
	if err != nil {
		return err
	}
	row, err := h.Service.Head(c.Request().Context(), id, locale)
	switch {
	case err == nil:
		return writeOverride(c, APIOverride{Text: row.Text, Revision: row.Revision, Status: headStatus(row),
			Kind: overrideKind(v, id), PublishedRevision: row.PublishedRevision, Drift: apiDrift(v, row)})
	case !errors.Is(err, library.ErrNotFound):
		return err
	}
	b, ok := h.Service.BuiltinBase(v, id, locale)
	if !ok {
		return apiNoOverride(v, id, locale)
	}
	return writeOverride(c, APIOverride{Text: b.Text, Revision: 0, Status: OverrideStatusBuiltin, Kind: OverrideKindBuiltin})
}

// writeOverride answers 200 with o and its entity tag "<revision>-<hash>":
// the revision (what If-Match compares) and the first 9 bytes of the
// body's SHA-256 in base64url, so the tag changes whenever the body does
// (a publish or a drift changes the body, not the revision).
func writeOverride(c echo.Context, o APIOverride) error {
	body, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("encode the JSON of %s: %w", c.Path(), err)
	}
	sum := sha256.Sum256(body)
	c.Response().Header().Set("ETag", fmt.Sprintf(`"%d-%s"`, o.Revision, base64.RawURLEncoding.EncodeToString(sum[:9])))
	return WriteJSON(c, http.StatusOK, o)
}

// Put handles PUT /api/v1/overrides/{id}[?locale=L] with the whole module
// file as the body (readModuleText) and If-Match: the revision it was
// based on (0 or no header creates). The Service checks and stores it like
// the console editor: it parses, keeps the id and the builtin's layer,
// and uses known placeholders without include cycles; an unknown id makes
// a user module; an edit keeps the builtin version its override is based
// on, so a drift stays listed until reviewed. A text equal to the builtin
// stores nothing: 200 with stored false; so does a text equal to the
// head's, whatever If-Match says (a request sent again), with the head's
// revision. Otherwise 200 with the new revision, also as the ETag. Errors:
// 412 precondition_failed when the override has moved past If-Match (or
// exists when creating), or If-Match is weak; 428
// precondition_required without If-Match when the override exists; 422
// invalid_request for a text that fails the checks (field text, the
// message naming the lines), a bad If-Match or locale; 400, 413 and 415
// for the body.
func (h *APIOverrides) Put(c echo.Context) error {
	_, id, locale, err := h.target(c)
	if err != nil {
		return err
	}
	base, present, err := ifMatch(c)
	if errors.Is(err, errWeakTag) {
		return h.preconditionFailed(c, id, locale, err)
	}
	if err != nil {
		return err
	}
	text, err := readModuleText(c)
	if err != nil {
		return err
	}
	// The context carries the token's actor (RequireToken) and the note.
	ctx, err := apiNoteContext(c)
	if err != nil {
		return err
	}
	if !present {
		cur, err := h.Service.Head(ctx, id, locale)
		switch {
		case err == nil:
			return &library.Error{Code: library.CodePreconditionRequired, Field: "If-Match",
				Msg: fmt.Sprintf("override %s (%s) exists at revision %d: send If-Match with the revision your text is based on", id, cur.Locale, cur.Revision)}
		case !errors.Is(err, library.ErrNotFound):
			return err
		}
	}
	out, err := h.Service.Save(ctx, state.Edit{ID: id, Locale: locale, Text: text, Revision: base})
	if err != nil {
		return err
	}
	switch out.Kind {
	case state.OutcomeInvalid:
		return invalidText(id, out.Errors)
	case state.OutcomeConflict:
		if out.Head == nil && base > 0 {
			return h.preconditionFailed(c, id, locale, fmt.Errorf("If-Match is revision %d but there is no override", base))
		}
		return h.preconditionFailed(c, id, locale, errors.New(out.Reason))
	case state.OutcomeEqualsBuiltin:
		b := out.Builtin
		res := APIOverrideSaved{Text: out.Module.Text, Status: OverrideStatusBuiltin, Warnings: out.Warnings, Notices: out.Notices,
			Message: fmt.Sprintf("the text equals the builtin %s text (version %d): nothing was stored", b.Locale, b.Version)}
		if out.Head != nil {
			res.Revision, res.Status = out.Head.Revision, headStatus(*out.Head)
			res.Message += "; the existing override is unchanged: DELETE it to return to the builtin"
		}
		setETag(c, res.Revision)
		return WriteJSON(c, http.StatusOK, res)
	case state.OutcomeUnchanged:
		// A stale If-Match with the head's exact text: sent again, no conflict.
		h := out.Head
		setETag(c, h.Revision)
		return WriteJSON(c, http.StatusOK, APIOverrideSaved{Text: h.Text, Revision: h.Revision, Status: headStatus(*h), Warnings: out.Warnings, Notices: out.Notices,
			Message: fmt.Sprintf("nothing changed: the text is revision %d already; nothing was stored", h.Revision)})
	}
	saved := out.Saved
	setETag(c, saved.Revision)
	return WriteJSON(c, http.StatusOK, APIOverrideSaved{Stored: true, Text: saved.Text, Revision: saved.Revision, Warnings: out.Warnings, Notices: out.Notices,
		Status: headStatus(saved), Message: fmt.Sprintf("saved as draft revision %d: not served until published (POST …/publish with If-Match: %d)", saved.Revision, saved.Revision)})
}

// invalidText is the 422 invalid_request (field text) of a module text
// that fails the checks of a save, the message naming the lines.
func invalidText(id string, errs []state.LineError) error {
	msgs := make([]string, len(errs))
	for i, le := range errs {
		msgs[i] = le.Msg
		if le.Line > 0 {
			msgs[i] = fmt.Sprintf("line %d: %s", le.Line, le.Msg)
		}
	}
	return &library.Error{Code: library.CodeInvalidRequest, Module: id, Field: "text", Msg: strings.Join(msgs, "; ")}
}

// revisionTarget reads the target and the If-Match revision of a publish
// or delete (verb). A request without If-Match or with revision 0 fails:
// 404 when there is no override, 428 without the header, 412 for revision
// 0 on an existing override or a weak tag.
func (h *APIOverrides) revisionTarget(c echo.Context, verb string) (v *state.View, id, locale string, base int, err error) {
	if v, id, locale, err = h.target(c); err != nil {
		return nil, "", "", 0, err
	}
	base, present, err := ifMatch(c)
	if errors.Is(err, errWeakTag) {
		return nil, "", "", 0, h.preconditionFailed(c, id, locale, err)
	}
	if err != nil {
		return nil, "", "", 0, err
	}
	if present && base != 0 {
		return v, id, locale, base, nil
	}
	return nil, "", "", 0, h.missingRevision(c, v, id, locale, present, verb)
}

// missingRevision is the error of revisionTarget for a missing or zero
// If-Match.
func (h *APIOverrides) missingRevision(c echo.Context, v *state.View, id, locale string, present bool, verb string) error {
	cur, err := h.Service.Head(c.Request().Context(), id, locale)
	switch {
	case errors.Is(err, library.ErrNotFound):
		return apiNoOverride(v, id, locale)
	case err != nil:
		return err
	case !present:
		return &library.Error{Code: library.CodePreconditionRequired, Field: "If-Match",
			Msg: fmt.Sprintf("override %s (%s) is at revision %d: send If-Match with the revision you mean to %s", id, cur.Locale, cur.Revision, verb)}
	}
	return h.preconditionFailed(c, id, locale, errors.New("If-Match is revision 0 but the override exists"))
}

// Publish handles POST /api/v1/overrides/{id}/publish[?locale=L] with
// If-Match: the revision to publish, the override's head. 200 with
// APIOverridePublished (the revision, also as the ETag); publishing the
// revision already published changes nothing and answers the same.
// Errors: 404 not_found when there is no override; 412
// precondition_failed when the head has moved past If-Match; 428 precondition_required without
// If-Match; 422 invalid_request for a bad If-Match or locale, or a draft
// that no longer parses (field text). While change review is on it makes
// a change request instead (see request).
func (h *APIOverrides) Publish(c echo.Context) error {
	v, id, locale, base, err := h.revisionTarget(c, "publish")
	if err != nil {
		return err
	}
	ctx, err := apiNoteContext(c)
	if err != nil {
		return err
	}
	if h.Service.ReviewOn() {
		return h.request(ctx, c, v, id, locale, base, domain.ActionPublish)
	}
	saved, err := h.Service.Publish(ctx, id, locale, base)
	switch {
	case errors.Is(err, library.ErrInvalid):
		return &library.Error{Code: library.CodeInvalidRequest, Module: id, Field: "text", Msg: err.Error()}
	case errors.Is(err, library.ErrConflict):
		return h.preconditionFailed(c, id, locale, err)
	case errors.Is(err, library.ErrNotFound):
		return apiNoOverride(v, id, locale)
	case err != nil:
		return err
	}
	setETag(c, saved.Revision)
	changedGeneration(c, h.Served)
	return WriteJSON(c, http.StatusOK, APIOverridePublished{Revision: saved.Revision, Published: true})
}

// request asks for the serving change action (publish or delete) of
// revision base while change review is on: 202 with APIChangeRequest and
// Location, the request's console page. Errors: 409 conflict when the
// override has an open request already (the message names it); 412
// precondition_failed when the head moved past base; 422 invalid_request
// when the change could never be approved (a draft that fails the
// checks, a module still included); 404 when there is no override.
func (h *APIOverrides) request(ctx context.Context, c echo.Context, v *state.View, id, locale string, base int, action string) error {
	r, err := h.Service.Request(ctx, domain.ChangeRequest{ModuleID: id, Locale: locale, Action: action, Revision: base})
	var open *domain.OpenRequest
	switch {
	case errors.As(err, &open):
		return &library.Error{Code: library.CodeConflict, Module: id, Field: "id", Msg: open.Error()}
	case errors.Is(err, library.ErrConflict):
		return h.preconditionFailed(c, id, locale, err)
	case errors.Is(err, library.ErrNotFound):
		return apiNoOverride(v, id, locale)
	case errors.Is(err, library.ErrInvalid):
		return &library.Error{Code: library.CodeInvalidRequest, Module: id, Field: "text", Msg: err.Error()}
	case err != nil:
		return err
	}
	page := "/requests/" + strconv.FormatInt(r.ID, 10)
	c.Response().Header().Set(echo.HeaderLocation, page)
	return WriteJSON(c, http.StatusAccepted, APIChangeRequest{ID: r.ID, Action: r.Action, Module: r.ModuleID, Locale: r.Locale, Revision: r.Revision,
		Author: r.Author, Note: r.Note, Status: r.Status, CreatedAt: r.CreatedAt.UTC(), URL: page})
}

// Delete handles DELETE /api/v1/overrides/{id}[?locale=L] with If-Match:
// the revision being deleted. 204 when deleted: the builtin serves again
// (a user module's locale is gone). Errors: 404 not_found when there is
// no override; 412 precondition_failed when it has moved past If-Match; 428
// precondition_required without If-Match; 422 invalid_request for a bad
// If-Match or locale. While change review is on it makes a change request
// instead (see request).
func (h *APIOverrides) Delete(c echo.Context) error {
	v, id, locale, base, err := h.revisionTarget(c, "delete")
	if err != nil {
		return err
	}
	ctx, err := apiNoteContext(c)
	if err != nil {
		return err
	}
	if h.Service.ReviewOn() {
		return h.request(ctx, c, v, id, locale, base, domain.ActionDelete)
	}
	err = h.Service.Delete(ctx, id, locale, base)
	var gone *domain.AlreadyDeleted
	switch {
	case errors.As(err, &gone):
		return &library.Error{Code: library.CodeNotFound, Module: id, Field: "id", Msg: gone.Error()}
	case errors.Is(err, library.ErrConflict):
		return h.preconditionFailed(c, id, locale, err)
	case errors.Is(err, library.ErrNotFound):
		return apiNoOverride(v, id, locale)
	case err != nil:
		return err
	}
	changedGeneration(c, h.Served)
	return c.NoContent(http.StatusNoContent)
}

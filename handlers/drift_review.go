package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/views/components"
	"github.com/promptdesk/promptdesk/views/diffview"
	"github.com/promptdesk/promptdesk/views/driftreviewpage"
	"github.com/promptdesk/promptdesk/views/overridepage"
)

// ReviewService is what the drift review needs of the override write
// path (*state.Overrides): the head, the builtin it is judged against,
// the three ways of resolving the drift, and what taking the builtin
// would change.
type ReviewService interface {
	Head(ctx context.Context, id, locale string) (domain.Override, error)
	BuiltinBase(v *state.View, id, locale string) (*library.Module, bool)
	KeepMine(ctx context.Context, id, locale string, revision int) (domain.Override, error)
	TakeBuiltin(ctx context.Context, id, locale string, revision int) error
	Rebase(ctx context.Context, id, locale, text string, revision int) (state.Outcome, error)
	Effect(ctx context.Context, c state.Change) (state.Effect, error)
	ServedText(id, locale string) state.ServedText
	ReviewOn() bool
	Request(ctx context.Context, r domain.ChangeRequest) (domain.ChangeRequest, error)
}

// DriftReview serves the review of one drifted override: the builtin's
// change and the override against the builtin now, the rebase editor
// holding the three-way merge, the three texts, and the actions keep
// mine, take builtin and rebase, which the Service carries out; each is
// recorded with the logged-in user as actor. The Assembler gives the
// rebase editor's completion the modules' titles.
type DriftReview struct {
	Service   ReviewService
	Served    *state.Served
	Assembler *assembler.Assembler
}

// reviewURL is the drift review of id's override in locale.
func reviewURL(id, locale string) string {
	return "/drift/" + id + "/" + locale
}

// review is what the review of one override is made from.
type review struct {
	v       *state.View
	row     domain.Override // the stored override, its head
	builtin *library.Module // the builtin it is compared with now; empty when removed
	model   driftreviewpage.Model
	merged  linediff.Merged
}

// load reads the override of the route and builds the review page.
// Errors: ErrNotFound when the module has no override in that locale,
// ErrInvalid for a user module (it has no builtin to drift from).
func (h *DriftReview) load(c echo.Context, id, locale string) (*review, error) {
	v := h.Served.Current()
	row, err := h.Service.Head(c.Request().Context(), id, locale)
	if err != nil {
		return nil, err
	}
	// The review shows what serves, and whether it drifted: the published
	// revision, also while a draft (a rebase, say) is pending on top of it.
	shown := row
	if served, ok := v.Rows.Get(assembler.Key(id, locale)); ok && row.Draft {
		shown = served
	}
	drift := state.DriftOfRow(shown, v.Library)
	b, ok := h.Service.BuiltinBase(v, id, locale)
	switch {
	case drift.Reason == assembler.DriftBuiltinRemoved:
		b = &library.Module{}
	case !ok:
		return nil, fmt.Errorf("%s is a user module: it has no builtin to drift from: %w", id, library.ErrInvalid)
	}
	r := &review{v: v, row: row, builtin: b}
	merged, err := linediff.Merge(shown.BaseSnapshot, shown.Text, b.Text)
	if err != nil {
		return nil, err
	}
	r.merged = merged
	m := driftreviewpage.Model{
		ID:             id,
		Locale:         row.Locale,
		Action:         reviewURL(id, row.Locale),
		ListURL:        "/drift",
		ModuleURL:      "/modules/" + id,
		EditorURL:      overrideURL(id, row.Locale),
		HistoryURL:     historyURL(id, row.Locale),
		Revision:       row.Revision,
		Author:         row.Author,
		Updated:        row.UpdatedAt.UTC().Format(timeLayout),
		BuiltinHash:    domain.TextHash(b.Text),
		Drifted:        drift.Drifted(),
		Reason:         driftReason(drift),
		BuiltinRemoved: drift.Reason == assembler.DriftBuiltinRemoved,
		BuiltinVersion: b.Version,
		BaseVersion:    fmt.Sprintf("v%d", row.BasedOnVersion),
		Base: driftreviewpage.Text{
			Title:  baseTitle(row.BasedOnVersion, row.BaseSnapshot),
			Detail: "The builtin text the override was made from.",
			Text:   row.BaseSnapshot,
		},
		BaseUnknown: shown.BaseSnapshot == "",
		Builtin: driftreviewpage.Text{
			Title:  fmt.Sprintf("Builtin now: v%d", b.Version),
			Detail: fmt.Sprintf("The builtin %s text as the library has it now.", b.Locale),
			Text:   b.Text,
		},
		Override: driftreviewpage.Text{
			Title:  fmt.Sprintf("Override: revision %d", shown.Revision),
			Detail: fmt.Sprintf("What serves now, by %s.", shown.Author),
			Text:   shown.Text,
		},
		Pending:        pendingDraft(row),
		PendingRebase:  row.Draft && row.BaseHash == domain.TextHash(b.Text) && row.BasedOnVersion == b.Version,
		PublishURL:     overrideURL(id, row.Locale) + "/publish",
		DiscardURL:     overrideURL(id, row.Locale) + "/discard",
		TakeBuiltinURL: takeBuiltinURL(id, row.Locale),
		KeepMineURL:    reviewURL(id, row.Locale) + "/keep-mine",
		Merged:         mergeLines(merged.Text),
		Conflicts:      len(merged.Conflicts),
	}
	m.Upstream.Lines, m.Upstream.Plus, m.Upstream.Minus = diffLines(row.BaseSnapshot, b.Text)
	m.Yours.Lines, m.Yours.Plus, m.Yours.Minus = diffLines(shown.BaseSnapshot, shown.Text)
	if !m.BuiltinRemoved {
		m.TwoWay.Lines, m.TwoWay.Plus, m.TwoWay.Minus = diffLines(b.Text, shown.Text)
	}
	if m.Drifted && !m.BuiltinRemoved && !m.BaseUnknown {
		m.Rebase = rebaseModel(merged.Text, merged)
		m.EditorConfig = h.rebaseAssist(v, id, row.Locale, shown, b).JSON()
	}
	r.model = m
	return r, nil
}

// rebaseAssist is the script editor's data for the rebase of shown onto
// builtin b: the override editor's completion and live check, the
// conflict blocks' actions, and the builtin now and the override to
// diff against.
func (h *DriftReview) rebaseAssist(v *state.View, id, locale string, shown domain.Override, b *library.Module) *overridepage.Assist {
	a := editorAssist(v, h.Assembler, id, shown.Text)
	a.Check = overrideURL(id, locale) + "/check"
	a.Layer = string(b.Layer)
	a.Conflicts = true
	a.Against = append(a.Against,
		overridepage.DiffText{Key: "builtin", Label: fmt.Sprintf("the builtin now (v%d)", b.Version), Text: b.Text},
		overridepage.DiffText{Key: "served", Label: fmt.Sprintf("the served text: your override, revision %d", shown.Revision), Text: shown.Text})
	return a
}

// baseTitle heads the text an override was made from; snapshot is that
// text, "" when it was never recorded.
func baseTitle(basedOn int, snapshot string) string {
	switch {
	case basedOn == 0:
		return "Base: none (made as a user module)"
	case snapshot == "":
		return fmt.Sprintf("Base: unknown (builtin v%d, its text never recorded)", basedOn)
	}
	return fmt.Sprintf("Base: builtin v%d", basedOn)
}

// pendingDraft is the revision of row's draft not published yet, 0 when
// the head is what serves.
func pendingDraft(row domain.Override) int {
	if row.Draft {
		return row.Revision
	}
	return 0
}

// driftReason says how the builtin moved since the override was made.
func driftReason(d assembler.Drift) string {
	switch d.Reason {
	case assembler.DriftVersionRaised:
		return fmt.Sprintf("The builtin moved from v%d to v%d since the override was made", d.BasedOnVersion, d.BuiltinVersion)
	case assembler.DriftVersionLowered:
		return fmt.Sprintf("The builtin went back from v%d to v%d since the override was made", d.BasedOnVersion, d.BuiltinVersion)
	case assembler.DriftTextChanged:
		return fmt.Sprintf("The builtin text changed at v%d without a version bump", d.BuiltinVersion)
	case assembler.DriftBuiltinRemoved:
		return fmt.Sprintf("The builtin the override was made from (v%d) is no longer in the library", d.BasedOnVersion)
	case assembler.DriftBuiltinAdded:
		return fmt.Sprintf("The library gained a builtin with this id (v%d) after the user module was made: the user module overrides it", d.BuiltinVersion)
	}
	return ""
}

// mergeLines numbers a merged text and marks its conflicts' lines.
func mergeLines(text string) []diffview.MergeLine {
	markers := map[int]bool{}
	for _, n := range linediff.MarkerLines(text) {
		markers[n] = true
	}
	var out []diffview.MergeLine
	kind := diffview.MergeText
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		n := i + 1
		if markers[n] {
			switch {
			case strings.HasPrefix(line, "<<<<<<<"):
				kind = diffview.MergeOverride
			case strings.HasPrefix(line, ">>>>>>>"):
				kind = diffview.MergeText
			default:
				kind = diffview.MergeBuiltin
			}
			out = append(out, diffview.MergeLine{N: n, Kind: diffview.MergeMarker, Text: line})
			continue
		}
		out = append(out, diffview.MergeLine{N: n, Kind: kind, Text: line})
	}
	return out
}

// Show renders GET /drift/:id/:locale: the base snapshot, the builtin now
// and the override, the diffs of both sides from the base, the merged
// text a rebase would start from, and the three actions. Errors:
// ErrNotFound when there is no override, ErrInvalid for a user module or
// a malformed locale.
func (h *DriftReview) Show(c echo.Context) error {
	id, locale, redirected, err := routeTarget(c, reviewURL)
	if err != nil || redirected {
		return err
	}
	r, err := h.load(c, id, locale)
	if err != nil {
		return err
	}
	r.model.Flash = flashFor(c)
	return Render(c, http.StatusOK, driftreviewpage.Page(r.model))
}

// Act handles POST /drift/:id/:locale with action (keep-mine,
// take-builtin or rebase), base (the override revision the page showed)
// and builtin (the hash of the builtin text it showed):
//   - keep-mine records the builtin now as the override's base, text
//     unchanged;
//   - take-builtin removes the override: the builtin serves;
//   - rebase without text answers the merged text in an editor, conflicts
//     marked, and saves nothing; rebase with text saves it as a draft
//     (action rebase, based on the builtin now) once it holds no conflict
//     marker and passes the editor's checks, else 422 with the text kept.
//
// A base or builtin that moved on answers 409 with the review as it is
// now. Keep mine and take builtin redirect to the drift list with a
// flash; a rebase to the publish confirmation of its draft.
func (h *DriftReview) Act(c echo.Context) error {
	id, locale, _, err := routeTarget(c, reviewURL)
	if err != nil {
		return err
	}
	r, err := h.load(c, id, locale)
	if err != nil {
		return err
	}
	base, err := formRevision(c, "base")
	if err != nil {
		return err
	}
	action := c.FormValue("action")
	switch action {
	case driftreviewpage.ActionKeepMine, driftreviewpage.ActionTakeBuiltin, driftreviewpage.ActionRebase:
	default:
		return fmt.Errorf("action %q: want keep-mine, take-builtin or rebase: %w", action, library.ErrInvalid)
	}
	params, err := c.FormParams()
	if err != nil {
		return err
	}
	text, submitted := params["text"]
	if r.model.Pending > 0 {
		r.model.Alert = "Nothing was changed: a draft is pending on this override; publish or discard it first, then review the drift."
		return Render(c, http.StatusConflict, driftreviewpage.Page(r.model))
	}
	// The page the operator acted on must still be the state: same
	// revision, same builtin text, still drifted.
	if base != r.row.Revision || c.FormValue("builtin") != r.model.BuiltinHash || !r.model.Drifted {
		return h.stale(c, r, base, strings.Join(text, ""), submitted)
	}
	ctx, err := noteContext(c)
	if err != nil {
		return err
	}
	b := r.builtin
	if action != driftreviewpage.ActionRebase && h.Service.ReviewOn() {
		req, err := h.Service.Request(ctx, domain.ChangeRequest{Action: action, ModuleID: id, Locale: locale, Revision: base})
		if err != nil {
			return h.failed(c, r, err, "", false)
		}
		return requested(c, req)
	}
	var flash string
	switch action {
	case driftreviewpage.ActionKeepMine:
		saved, err := h.Service.KeepMine(ctx, id, locale, base)
		if err != nil {
			return h.failed(c, r, err, "", false)
		}
		flash = fmt.Sprintf("Kept the override of %s (%s): revision %d is now based on builtin v%d and serves.", id, saved.Locale, saved.Revision, b.Version)
		if r.model.BuiltinRemoved {
			flash = fmt.Sprintf("Kept the override of %s (%s): revision %d serves as a user module.", id, saved.Locale, saved.Revision)
		}
	case driftreviewpage.ActionTakeBuiltin:
		if err := h.Service.TakeBuiltin(ctx, id, locale, base); err != nil {
			return h.failed(c, r, err, "", false)
		}
		flash = fmt.Sprintf("Took the builtin for %s (%s): the override is removed and builtin v%d serves; its history keeps every revision.", id, r.row.Locale, b.Version)
		if r.model.BuiltinRemoved {
			flash = fmt.Sprintf("Removed the override of %s (%s); its history keeps every revision.", id, r.row.Locale)
		}
	case driftreviewpage.ActionRebase:
		if r.model.BuiltinRemoved {
			return fmt.Errorf("%s has no builtin to rebase onto: keep it as a user module or remove it: %w", id, library.ErrInvalid)
		}
		if r.model.BaseUnknown {
			r.model.Alert = "Nothing was changed: a rebase needs the builtin text the override was written against, which is not known. Keep mine, take the builtin, or edit the override."
			return Render(c, http.StatusUnprocessableEntity, driftreviewpage.Page(r.model))
		}
		if !submitted {
			return h.rebaseEditor(c, r, r.merged.Text, http.StatusOK)
		}
		saved, done, err := h.saveRebase(c, r, text[0])
		if err != nil || !done {
			return err
		}
		// Like every edit, the rebase is a draft: on to its publish
		// confirmation, which shows what it changes.
		setFlash(c, fmt.Sprintf("Rebased the override of %s (%s) onto builtin v%d: saved as draft revision %d, not served yet. Publish it below to serve it and end the drift.", id, saved.Locale, b.Version, saved.Revision))
		return seeOther(c, overrideURL(id, saved.Locale)+"/publish")
	}
	setFlash(c, flash)
	return seeOther(c, "/drift")
}

// rebaseEditor renders the review with the rebase editor holding text
// and the conflicts left in it.
func (h *DriftReview) rebaseEditor(c echo.Context, r *review, text string, status int) error {
	r.model.Rebase = rebaseModel(text, r.merged)
	return Render(c, status, driftreviewpage.Page(r.model))
}

// rebaseModel is the rebase editor of text: the merge's conflicts when it
// is the merged text untouched, else the marker blocks left in it.
func rebaseModel(text string, merged linediff.Merged) *driftreviewpage.Rebase {
	conflicts := merged.Conflicts
	if text != merged.Text {
		conflicts = linediff.Conflicts(text)
	}
	rb := &driftreviewpage.Rebase{Text: text}
	for i, k := range conflicts {
		rb.Conflicts = append(rb.Conflicts, driftreviewpage.Conflict{N: i + 1, Line: k.Line, Override: k.Override, Builtin: k.Builtin})
	}
	return rb
}

// saveRebase has the Service check and save the operator's rebased
// text. done is false when a page was rendered instead (422 for markers
// or errors, 200 when the text equals the builtin and nothing is stored,
// 409 when stale).
func (h *DriftReview) saveRebase(c echo.Context, r *review, text string) (domain.Override, bool, error) {
	m := &r.model
	out, err := h.Service.Rebase(consoleContext(c), m.ID, r.row.Locale, text, r.row.Revision)
	if err != nil {
		return domain.Override{}, false, err
	}
	switch out.Kind {
	case state.OutcomeInvalid:
		m.Alert = "Nothing was saved: the text has an error, shown under the line it concerns."
		if len(linediff.MarkerLines(text)) > 0 {
			m.Alert = "Nothing was saved: the text still has conflict markers. Resolve each conflict and remove its marker lines."
		}
		m.Lines, m.Errors = components.NumberLines(text, editorErrors(out.Errors))
		return domain.Override{}, false, h.rebaseEditor(c, r, text, http.StatusUnprocessableEntity)
	case state.OutcomeEqualsBuiltin:
		m.Notice = fmt.Sprintf("The rebased text equals the builtin v%d: nothing was stored. Use Take builtin to return to the builtin.", out.Builtin.Version)
		return domain.Override{}, false, h.rebaseEditor(c, r, text, http.StatusOK)
	case state.OutcomeConflict:
		return domain.Override{}, false, h.stale(c, r, r.row.Revision, text, true)
	}
	return out.Saved, true, nil
}

// failed explains a refused store call: a conflict or a vanished override
// renders the review as it is now with 409 (keeping a submitted rebase
// text); anything else is returned.
func (h *DriftReview) failed(c echo.Context, r *review, err error, text string, submitted bool) error {
	if !errors.Is(err, library.ErrConflict) && !errors.Is(err, library.ErrNotFound) {
		return err
	}
	return h.stale(c, r, r.row.Revision, text, submitted)
}

// stale renders 409: the override or the builtin moved since the page
// was shown. The review is reloaded; a submitted rebase text is kept in
// the editor for the operator to reconcile.
func (h *DriftReview) stale(c echo.Context, r *review, base int, text string, submitted bool) error {
	fresh, err := h.load(c, r.model.ID, r.row.Locale)
	if errors.Is(err, library.ErrNotFound) {
		return fmt.Errorf("the override of %s (%s) was removed while you reviewed it; the builtin serves and nothing was changed: %w",
			r.model.ID, r.row.Locale, library.ErrConflict)
	}
	if err != nil {
		return err
	}
	fresh.model.Alert = fmt.Sprintf("Nothing was changed: the override or the builtin moved on since you loaded this review (you saw revision %d; it is at revision %d, builtin v%d). Review it again.",
		base, fresh.row.Revision, fresh.builtin.Version)
	if submitted {
		fresh.model.Rebase = rebaseModel(text, fresh.merged)
		fresh.model.Errors = []string{"Your rebased text is kept in the editor below; it was merged against the older state."}
	}
	return Render(c, http.StatusConflict, driftreviewpage.Page(fresh.model))
}

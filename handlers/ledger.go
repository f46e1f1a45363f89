package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state/ledger"
	"github.com/promptdesk/promptdesk/views/ledgerpage"
)

// LedgerService is what the porting ledger's pages and API need
// (*state.Ledger).
type LedgerService interface {
	Catalogues(ctx context.Context) ([]string, error)
	List(ctx context.Context, catalogue string, f ledger.Filter) (ledger.Listing, error)
	Entry(ctx context.Context, catalogue, name string) (domain.LedgerEntry, error)
	Export(ctx context.Context, catalogue string, f ledger.Filter) (string, error)
	Decide(ctx context.Context, d ledger.Decision) (domain.LedgerEntry, error)
}

// Ledger serves the console's porting ledger: the list of a catalogue's
// entries (filter, pages, Markdown export) and one entry's page with the
// upstream diff since the decision and the decision form.
type Ledger struct {
	Service LedgerService
}

// ledgerPageSize is how many entries one page of the list shows.
const ledgerPageSize = 200

// ledgerQuery is the list's query string for catalogue, f and page (1
// is left out).
func ledgerQuery(catalogue string, f ledger.Filter, page int) string {
	q := url.Values{"catalogue": {catalogue}}
	for k, v := range map[string]string{"decision": f.Decision, "kind": f.Kind, "flag": string(f.Flag), "q": f.Q} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	return q.Encode()
}

// ledgerEntryURL is the page of entry name of catalogue.
func ledgerEntryURL(catalogue, name string) string {
	return "/ledger/entry?" + url.Values{"catalogue": {catalogue}, "name": {name}}.Encode()
}

// ledgerFilter reads the filter's query parameters.
func ledgerFilter(c echo.Context) ledger.Filter {
	return ledger.Filter{Decision: c.QueryParam("decision"), Kind: c.QueryParam("kind"), Flag: ledger.Flag(c.QueryParam("flag")), Q: c.QueryParam("q")}
}

// catalogue is the catalogue a request names, or the first one the
// ledger holds ("" when it holds none).
func (h *Ledger) catalogue(c echo.Context) (string, []string, error) {
	all, err := h.Service.Catalogues(c.Request().Context())
	if err != nil {
		return "", nil, err
	}
	if name := c.QueryParam("catalogue"); name != "" {
		return name, all, nil
	}
	if len(all) == 0 {
		return "", nil, nil
	}
	return all[0], all, nil
}

// List renders GET /ledger: the entries of a catalogue (?catalogue=,
// default the first) that the filter selects (decision, kind, flag, q),
// ledgerPageSize a page (?page=N; past the end, the last). Errors: ErrInvalid naming a bad
// filter value or page.
func (h *Ledger) List(c echo.Context) error {
	catalogue, all, err := h.catalogue(c)
	if err != nil {
		return err
	}
	m := ledgerpage.Model{Catalogue: catalogue, Catalogues: all, Flash: flashFor(c)}
	if catalogue == "" {
		return Render(c, http.StatusOK, ledgerpage.Page(m))
	}
	page := 1
	if s := strings.TrimSpace(c.QueryParam("page")); s != "" {
		if page, err = strconv.Atoi(s); err != nil || page < 1 {
			return &library.Error{Code: library.CodeInvalidRequest, Field: "page", Msg: fmt.Sprintf("a page number, 1 or more, got %q", s)}
		}
	}
	f := ledgerFilter(c)
	ctx := c.Request().Context()
	list, err := h.Service.List(ctx, catalogue, f)
	if err != nil {
		return err
	}
	entries := list.Entries
	m.Filter = ledgerpage.Filter{Decision: f.Decision, Kind: f.Kind, Flag: string(f.Flag), Q: f.Q}
	m.Decisions = append(append([]string{}, domain.Decisions...), ledger.Undecided)
	m.Kinds = list.Kinds
	for _, fl := range ledger.Flags {
		m.Flags = append(m.Flags, string(fl))
	}
	m.Total, m.Matched = list.Total, len(entries)
	cnt := ledger.Count(entries)
	m.Summary = fmt.Sprintf("%d ported, %d merged, %d not ported, %d undecided; %d upstream-drifted, %d for a second look, %d removed upstream",
		cnt.Port, cnt.Merge, cnt.DoNotPort, cnt.Undecided, cnt.Drifted, cnt.SecondLook, cnt.Removed)
	m.ExportURL = "/ledger/export.md?" + ledgerQuery(catalogue, f, 1)
	// A page past the end (the list shrank since the link was made) shows
	// the last one.
	page = min(page, max(1, (len(entries)+ledgerPageSize-1)/ledgerPageSize))
	first := (page - 1) * ledgerPageSize
	last := min(first+ledgerPageSize, len(entries))
	for _, e := range entries[first:last] {
		m.Rows = append(m.Rows, ledgerRow(e))
	}
	if page > 1 {
		m.PrevURL = "/ledger?" + ledgerQuery(catalogue, f, page-1)
	}
	if last < len(entries) {
		m.NextURL = "/ledger?" + ledgerQuery(catalogue, f, page+1)
	}
	if m.PrevURL != "" || m.NextURL != "" {
		m.PageInfo = fmt.Sprintf("%d–%d of %d", first+1, last, len(entries))
	}
	return Render(c, http.StatusOK, ledgerpage.Page(m))
}

// ledgerRow is e as a row of the list.
func ledgerRow(e domain.LedgerEntry) ledgerpage.Row {
	r := ledgerpage.Row{Name: e.Name, URL: ledgerEntryURL(e.Catalogue, e.Name), Kind: e.Kind, Version: e.Version,
		Decision: ledger.Undecided, ModuleID: e.ModuleID, Reason: e.Reason}
	if e.ModuleID != "" {
		r.ModuleURL = "/modules/" + url.PathEscape(e.ModuleID)
	}
	if e.Decision != domain.DecisionUndecided {
		r.Decision = e.Decision
		r.Decided = e.DecidedBy + ", " + e.DecidedAt.UTC().Format(timeLayout)
	}
	for _, f := range ledger.FlagsOf(e) {
		r.Flags = append(r.Flags, string(f))
	}
	return r
}

// Export answers GET /ledger/export.md: the entries the list's query
// selects as a Markdown download (the same document as the CLI's and
// the API's export). Errors: ErrNotFound without a catalogue.
func (h *Ledger) Export(c echo.Context) error {
	catalogue, _, err := h.catalogue(c)
	if err != nil {
		return err
	}
	if catalogue == "" {
		return fmt.Errorf("the ledger holds no catalogue: %w", library.ErrNotFound)
	}
	md, err := h.Service.Export(c.Request().Context(), catalogue, ledgerFilter(c))
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="ledger-%s.md"`, catalogue))
	return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(md))
}

// entry reads the entry the query names (catalogue, name). Errors:
// ErrNotFound.
func (h *Ledger) entry(c echo.Context, catalogue, name string) (domain.LedgerEntry, error) {
	if catalogue == "" || name == "" {
		return domain.LedgerEntry{}, fmt.Errorf("name a ledger entry with ?catalogue= and name=: %w", library.ErrNotFound)
	}
	return h.Service.Entry(c.Request().Context(), catalogue, name)
}

// Entry renders GET /ledger/entry?catalogue=&name=: the entry, the
// upstream diff since its decision when upstream moved, its upstream text
// now and, for editors, the decision form filled with the decision now.
// Errors: ErrNotFound.
func (h *Ledger) Entry(c echo.Context) error {
	e, err := h.entry(c, c.QueryParam("catalogue"), c.QueryParam("name"))
	if err != nil {
		return err
	}
	m := entryModel(e)
	m.Flash = flashFor(c)
	return Render(c, http.StatusOK, ledgerpage.EntryPage(m))
}

// entryModel is the page of e, its form filled with e's decision.
func entryModel(e domain.LedgerEntry) ledgerpage.Entry {
	m := ledgerpage.Entry{Row: ledgerRow(e), Catalogue: e.Catalogue, BackURL: "/ledger?" + ledgerQuery(e.Catalogue, ledger.Filter{}, 1),
		Text: e.Text, Removed: e.Removed, DecidedVersion: e.DecidedVersion,
		Form: ledgerpage.Form{Action: "/ledger/decide", Decision: e.Decision, ModuleID: e.ModuleID, Reason: e.Reason, Hash: e.Hash,
			Decisions: domain.Decisions}}
	if e.Decision != domain.DecisionUndecided && e.Hash != e.DecidedHash {
		m.Moved = true
		m.Diff, m.Plus, m.Minus = diffLines(e.DecidedText, e.Text)
	}
	m.Form.Action += "?" + url.Values{"catalogue": {e.Catalogue}, "name": {e.Name}}.Encode()
	return m
}

// Decide handles POST /ledger/decide?catalogue=&name= with decision,
// module, reason and hash (the upstream text the page showed): the
// decision is recorded and the browser goes back to the ledger. A
// refused decision answers 422 (a field marked) or 409 (upstream moved
// since the page was shown) with the entry page as it is now and the
// form as typed. Errors: ErrNotFound.
func (h *Ledger) Decide(c echo.Context) error {
	catalogue, name := c.QueryParam("catalogue"), c.QueryParam("name")
	d := ledger.Decision{Catalogue: catalogue, Name: name, Decision: c.FormValue("decision"), ModuleID: c.FormValue("module"),
		Reason: c.FormValue("reason"), Hash: c.FormValue("hash")}
	saved, err := h.Service.Decide(consoleContext(c), d)
	var le *library.Error
	switch {
	case err == nil:
		what := saved.Decision
		if saved.ModuleID != "" {
			what += " → " + saved.ModuleID
		}
		setFlash(c, fmt.Sprintf("Decided on %s: %s.", saved.Name, what))
		return seeOther(c, "/ledger?"+ledgerQuery(catalogue, ledger.Filter{}, 1))
	case errors.Is(err, library.ErrNotFound):
		return err
	case errors.As(err, &le) && le.Field != "", errors.Is(err, library.ErrConflict):
	default:
		return err
	}
	e, lerr := h.entry(c, catalogue, name)
	if lerr != nil {
		return lerr
	}
	m := entryModel(e)
	m.Form.Decision, m.Form.ModuleID, m.Form.Reason = d.Decision, d.ModuleID, d.Reason
	status := http.StatusUnprocessableEntity
	if le != nil && le.Field != "" {
		m.Alert = "The decision was not recorded: fix the field marked below."
		m.Form.Errors = map[string]string{le.Field: le.Msg}
	} else {
		status = http.StatusConflict
		m.Alert = err.Error() + " Your choices are kept below; the page shows the upstream text now."
	}
	return Render(c, status, ledgerpage.EntryPage(m))
}

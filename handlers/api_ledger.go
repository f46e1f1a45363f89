package handlers

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state/ledger"
)

// APILedger serves /api/v1/ledger: the porting ledger's entries of a
// catalogue (filtered as the console's list), a decision on one entry
// and the Markdown export, through Service. Decisions are recorded with
// the actor of the token, "token:<name>".
//
// Besides the errors documented on API it answers 404 not_found (field
// name) for an unknown entry, 409 conflict (field hash) for a decision on
// an upstream text that moved since, and 422 invalid_request naming the
// field (catalogue, decision, module, reason, flag).
type APILedger struct {
	Service LedgerService
}

// defaultCatalogue is the catalogue the API and the CLI read when none
// is named.
const defaultCatalogue = "claude-code"

// APILedgerEntry is one entry of the ledger: upstream name, kind and
// version now, the decision ("" while undecided), its module and reason,
// who decided and when (absent while undecided) and on which upstream
// version, the entry's flags, and whether the last sync no longer found
// it upstream.
type APILedgerEntry struct {
	Name           string     `json:"name"`
	Kind           string     `json:"kind"`
	Version        string     `json:"version"`
	Decision       string     `json:"decision"`
	Module         string     `json:"module"`
	Reason         string     `json:"reason"`
	DecidedBy      string     `json:"decidedBy"`
	DecidedAt      *time.Time `json:"decidedAt,omitempty"`
	DecidedVersion string     `json:"decidedVersion"`
	Flags          []string   `json:"flags"`
	Removed        bool       `json:"removed"`
	// Hash is the upstream text's hash: send it with a decision to refuse
	// it if upstream moved since.
	Hash string `json:"hash"`
}

// APILedgerList is the answer of GET /api/v1/ledger: the catalogue and
// the entries the filter selects, by name.
type APILedgerList struct {
	Catalogue string           `json:"catalogue"`
	Entries   []APILedgerEntry `json:"entries"`
}

// APILedgerExport is the answer of GET /api/v1/ledger/export: the
// Markdown document of the selected entries, the same as the console's
// download and the CLI's ledger export.
type APILedgerExport struct {
	Catalogue string `json:"catalogue"`
	Markdown  string `json:"markdown"`
}

// APILedgerDecision is the body of POST /api/v1/ledger/decisions: the
// entry (catalogue, default claude-code, and name), the decision (port,
// merge, do-not-port), the module (port and merge), the reason (required
// for do-not-port) and, optionally, the hash of the upstream text the
// decision was taken on.
type APILedgerDecision struct {
	Catalogue string `json:"catalogue"`
	Name      string `json:"name"`
	Decision  string `json:"decision"`
	Module    string `json:"module"`
	Reason    string `json:"reason"`
	Hash      string `json:"hash"`
}

// apiLedgerEntry is the APILedgerEntry of e.
func apiLedgerEntry(e domain.LedgerEntry) APILedgerEntry {
	out := APILedgerEntry{Name: e.Name, Kind: e.Kind, Version: e.Version, Decision: e.Decision, Module: e.ModuleID, Reason: e.Reason,
		DecidedBy: e.DecidedBy, DecidedVersion: e.DecidedVersion, Flags: []string{}, Removed: e.Removed, Hash: e.Hash}
	if !e.DecidedAt.IsZero() {
		at := e.DecidedAt.UTC()
		out.DecidedAt = &at
	}
	for _, f := range ledger.FlagsOf(e) {
		out.Flags = append(out.Flags, string(f))
	}
	return out
}

// apiCatalogue is the catalogue a request names, or the default one.
func apiCatalogue(c echo.Context) string {
	if name := c.QueryParam("catalogue"); name != "" {
		return name
	}
	return defaultCatalogue
}

// List handles GET /api/v1/ledger: 200 with the APILedgerList of the
// entries the query selects (catalogue, decision, kind, flag, q).
// Errors: 422 naming a bad filter value.
func (h *APILedger) List(c echo.Context) error {
	catalogue := apiCatalogue(c)
	list, err := h.Service.List(c.Request().Context(), catalogue, ledgerFilter(c))
	if err != nil {
		return err
	}
	out := APILedgerList{Catalogue: catalogue, Entries: make([]APILedgerEntry, len(list.Entries))}
	for i, e := range list.Entries {
		out.Entries[i] = apiLedgerEntry(e)
	}
	return WriteJSON(c, http.StatusOK, out)
}

// Export handles GET /api/v1/ledger/export: 200 with the APILedgerExport
// of the entries the query selects. Errors: as List.
func (h *APILedger) Export(c echo.Context) error {
	catalogue := apiCatalogue(c)
	md, err := h.Service.Export(c.Request().Context(), catalogue, ledgerFilter(c))
	if err != nil {
		return err
	}
	return WriteJSON(c, http.StatusOK, APILedgerExport{Catalogue: catalogue, Markdown: md})
}

// Decide handles POST /api/v1/ledger/decisions with an
// APILedgerDecision: the decision is recorded on the upstream text the
// entry has now (clearing its flags); 200 with the APILedgerEntry.
// Errors: 404 for an unknown entry; 409 when hash is not the upstream
// text's any more; 422 naming the field; 400, 413, 415 for the body.
func (h *APILedger) Decide(c echo.Context) error {
	data, err := readBody(c)
	if err != nil {
		return err
	}
	var body APILedgerDecision
	if err := decodeBody(data, &body); err != nil {
		return err
	}
	if body.Catalogue == "" {
		body.Catalogue = defaultCatalogue
	}
	if body.Name == "" {
		return &library.Error{Code: library.CodeInvalidRequest, Field: "name", Msg: "required: the upstream name of the entry"}
	}
	e, err := h.Service.Decide(c.Request().Context(), ledger.Decision{Catalogue: body.Catalogue, Name: body.Name, Decision: body.Decision,
		ModuleID: body.Module, Reason: body.Reason, Hash: body.Hash})
	switch {
	case errors.Is(err, library.ErrNotFound):
		return &library.Error{Code: library.CodeNotFound, Field: "name", Msg: err.Error()}
	case errors.Is(err, library.ErrConflict):
		return &library.Error{Code: library.CodeConflict, Field: "hash", Msg: err.Error()}
	case err != nil:
		return err
	}
	return WriteJSON(c, http.StatusOK, apiLedgerEntry(e))
}

package state

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gosimple/slug"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/linediff"
	"github.com/promptdesk/promptdesk/library/strictjson"
)

// ScenarioStore is what Scenarios needs from the store.
type ScenarioStore interface {
	ListScenarios(ctx context.Context) ([]domain.Scenario, error)
	GetScenario(ctx context.Context, id string) (domain.Scenario, error)
	CountScenarios(ctx context.Context) (int, error)
	SaveScenario(ctx context.Context, sc domain.Scenario) (domain.Scenario, error)
	CreateScenario(ctx context.Context, sc domain.Scenario) (domain.Scenario, error)
	UpdateScenario(ctx context.Context, sc domain.Scenario) (domain.Scenario, error)
	DeleteScenario(ctx context.Context, id string) error
	AcceptScenario(ctx context.Context, id string, out domain.ScenarioOutput) (domain.Scenario, error)
	// RevisionSource reads the revisions a scenario's request pins.
	RevisionSource
}

// Scenarios is the domain service of saved scenarios (docs/scenarios.md):
// it saves them, runs them against what is served now, compares each
// output with the one last accepted, and accepts new outputs. The console,
// the API and the CLI all go through it. Scenarios are not served, so
// nothing here refreshes Served; who made a change is the actor of the
// context (domain.WithActor).
type Scenarios struct {
	Store     ScenarioStore
	Served    *Served
	Assembler *assembler.Assembler
	// Now is the time written into a saved request that sets no "now";
	// nil means time.Now.
	Now func() time.Time
}

// assembly is the one assembly path (Assembly) on s's parts.
func (s *Scenarios) assembly() *Assembly {
	return &Assembly{Served: s.Served, Assembler: s.Assembler, Revisions: s.Store}
}

// RunStatus is how a scenario's output now compares with the accepted one.
type RunStatus string

// The run statuses.
const (
	RunUnchanged     RunStatus = "unchanged"      // the output is the accepted one
	RunChanged       RunStatus = "changed"        // the output differs from the accepted one
	RunNeverAccepted RunStatus = "never-accepted" // no output was accepted yet
	RunFailed        RunStatus = "failed"         // the request does not assemble (Err)
)

// ScenarioRun is one scenario run against a View.
type ScenarioRun struct {
	Scenario domain.Scenario
	Status   RunStatus
	// Result and Output are the assembly and what is compared of it; nil
	// and zero when the run failed.
	Result *assembler.Result
	Output domain.ScenarioOutput
	// Fingerprint identifies Output (hex SHA-256): Accept with it accepts
	// only the output that was reviewed.
	Fingerprint string
	// Err is the assembly error of a failed run (an *library.Error for
	// the request's or a module's fault).
	Err error
	// TextDiff and ReportDiff turn the accepted text and report lines into
	// the new ones; nil unless Status is RunChanged.
	TextDiff, ReportDiff []linediff.Line
}

// ScenarioDraft is what an operator gives for a new scenario or an edit.
type ScenarioDraft struct {
	// ID is the new scenario's id; "" derives one from Name. Ignored by
	// Update.
	ID          string
	Name        string
	Description string
	// Request is the assemble request JSON, as typed.
	Request string
	// Locale, when set, replaces the request's locale (the preview's
	// locale field).
	Locale string
}

// ScenarioError lists every refused field of a draft; it matches
// library.ErrInvalid.
type ScenarioError []FieldError

func (e ScenarioError) Error() string { return fieldErrorText("scenario", e) }

// Is makes an ScenarioError match library.ErrInvalid.
func (e ScenarioError) Is(target error) bool { return target == library.ErrInvalid }

// Limits of a scenario's fields, in characters (the id's is
// library.MaxNameLength).
const (
	MaxScenarioName        = 200
	MaxScenarioDescription = 2000
)

// ErrOutputMoved is the error of Accept when the output is no longer the
// one reviewed (its fingerprint differs); it matches library.ErrConflict.
var ErrOutputMoved = fmt.Errorf("the output changed since it was shown; review it again before accepting: %w", library.ErrConflict)

// ErrBadFingerprint is the error of Accept for a fingerprint that is not
// one (64 lowercase hex digits, as Fingerprint writes); it matches
// library.ErrInvalid.
var ErrBadFingerprint = fmt.Errorf("the fingerprint is not one: want the 64 lowercase hex digits of the run that was reviewed: %w", library.ErrInvalid)

// ErrNotAcceptable is the error of Accept when the scenario does not
// assemble; it matches library.ErrInvalid.
var ErrNotAcceptable = fmt.Errorf("the scenario does not assemble, so there is no output to accept: %w", library.ErrInvalid)

// Seed stores the app's example scenarios (assembler.Examples) when there
// are no scenarios at all, so that deleting them all does not bring them
// back on the next start. Errors are the store's.
func (s *Scenarios) Seed(ctx context.Context) error {
	n, err := s.Store.CountScenarios(ctx)
	if err != nil || n > 0 {
		return err
	}
	examples, err := assembler.Examples()
	if err != nil {
		return fmt.Errorf("example scenarios: %w", err)
	}
	for _, ex := range examples {
		sc := domain.Scenario{ID: ex.ID, Name: ex.Name, Description: ex.Description, Request: ex.Request, Builtin: true}
		if _, err := s.Store.SaveScenario(ctx, sc); err != nil {
			return fmt.Errorf("seed scenario %s: %w", ex.ID, err)
		}
	}
	return nil
}

// List returns every scenario ordered by id. Errors are the store's.
func (s *Scenarios) List(ctx context.Context) ([]domain.Scenario, error) {
	return s.Store.ListScenarios(ctx)
}

// Get returns the scenario id. Errors: library.ErrNotFound.
func (s *Scenarios) Get(ctx context.Context, id string) (domain.Scenario, error) {
	return s.Store.GetScenario(ctx, id)
}

// Create checks d and stores it as a new scenario; with accept it then
// runs it and accepts its output. The run is returned either way (zero
// without accept); a run that fails leaves the scenario saved and not
// accepted. Errors: ScenarioError; library.ErrConflict when d.ID is
// taken; *SavedAlready, with the scenario stored, when d has no id and is
// saved already; the store's.
func (s *Scenarios) Create(ctx context.Context, d ScenarioDraft, accept bool) (domain.Scenario, ScenarioRun, error) {
	sc, err := s.check(d, true)
	if err != nil {
		return domain.Scenario{}, ScenarioRun{}, err
	}
	var saved domain.Scenario
	if sc.ID != "" {
		saved, err = s.Store.CreateScenario(ctx, sc)
	} else {
		saved, err = s.createNamed(ctx, sc)
	}
	if err != nil || !accept {
		return saved, ScenarioRun{}, err
	}
	run, err := s.accept(ctx, saved, "")
	if errors.Is(err, ErrNotAcceptable) {
		err = nil
	}
	return saved, run, err
}

// SavedAlready is the error of saving, under a name alone, a scenario
// that is saved already under an id made from that name: same name,
// description and request (a form posted twice). Scenario is the one
// stored; nothing new is.
type SavedAlready struct {
	Scenario domain.Scenario
}

func (e *SavedAlready) Error() string {
	return fmt.Sprintf("scenario %s is saved already, with the same name, description and request (id %s)", e.Scenario.Name, e.Scenario.ID)
}

// createNamed stores sc under the id slugged from its name, adding -2,
// -3… while the id is taken, unless the scenario under one of those ids
// is sc itself (*SavedAlready).
func (s *Scenarios) createNamed(ctx context.Context, sc domain.Scenario) (domain.Scenario, error) {
	base := scenarioID(sc.Name)
	for i := 1; i <= 100; i++ {
		sc.ID = base
		if i > 1 {
			sc.ID = base + "-" + strconv.Itoa(i)
		}
		saved, err := s.Store.CreateScenario(ctx, sc)
		if !errors.Is(err, library.ErrConflict) {
			return saved, err
		}
		if old, err := s.Store.GetScenario(ctx, sc.ID); err == nil && sameScenario(old, sc) {
			return old, &SavedAlready{Scenario: old}
		}
	}
	return domain.Scenario{}, fmt.Errorf("scenario ids %s to %s-100 are all taken; give an id: %w", base, base, library.ErrConflict)
}

// sameScenario reports whether a and b have the same name, description
// and request. The requests are compared member by member without their
// spacing and without "now", which saving writes in with the clock of
// that moment when the request has none.
func sameScenario(a, b domain.Scenario) bool {
	if a.Name != b.Name || a.Description != b.Description {
		return false
	}
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a.Request, &ma) != nil || json.Unmarshal(b.Request, &mb) != nil {
		return false
	}
	delete(ma, "now")
	delete(mb, "now")
	if len(ma) != len(mb) {
		return false
	}
	for k, va := range ma {
		vb, ok := mb[k]
		var ca, cb bytes.Buffer
		if !ok || json.Compact(&ca, va) != nil || json.Compact(&cb, vb) != nil || !bytes.Equal(ca.Bytes(), cb.Bytes()) {
			return false
		}
	}
	return true
}

// scenarioID makes a scenario id from a name with the slug library the
// importer uses too (letters transliterated and lowercased, every other
// run of characters one dash), at most 48 characters. A name with
// nothing to transliterate (only symbols or emoji) gets "scenario-" and
// the first 8 hex digits of its SHA-256, stable for the same name and
// apart for different ones.
func scenarioID(name string) string {
	s := slug.Make(name)
	if len(s) > 48 {
		s = strings.TrimRight(s[:48], "-")
	}
	if s == "" {
		sum := sha256.Sum256([]byte(name))
		return "scenario-" + hex.EncodeToString(sum[:4])
	}
	return s
}

// Update checks d and replaces the name, description and request of the
// scenario id; its accepted output stays. Errors: ScenarioError;
// library.ErrNotFound; the store's.
func (s *Scenarios) Update(ctx context.Context, id string, d ScenarioDraft) (domain.Scenario, error) {
	d.ID = id
	sc, err := s.check(d, false)
	if err != nil {
		return domain.Scenario{}, err
	}
	return s.Store.UpdateScenario(ctx, sc)
}

// Delete deletes the scenario id. Errors: library.ErrNotFound.
func (s *Scenarios) Delete(ctx context.Context, id string) error {
	return s.Store.DeleteScenario(ctx, id)
}

// check validates d and returns the scenario to store: the request with
// d.Locale written in and "now" pinned (pinNow).
func (s *Scenarios) check(d ScenarioDraft, isNew bool) (domain.Scenario, error) {
	var errs ScenarioError
	bad := func(field, msg string) { errs = append(errs, FieldError{field, msg}) }
	sc := domain.Scenario{ID: strings.TrimSpace(d.ID), Name: strings.TrimSpace(d.Name), Description: strings.TrimSpace(d.Description)}
	if isNew && sc.ID != "" {
		if p := library.NameProblem(sc.ID); p != "" {
			bad("id", p+"; or leave it empty to derive one from the name")
		}
	}
	if sc.Name == "" {
		bad("name", "required: a few words saying what the scenario covers")
	} else if msg := lineProblem(sc.Name, MaxScenarioName); msg != "" {
		bad("name", msg)
	}
	if msg := paragraphProblem(sc.Description, MaxScenarioDescription); msg != "" {
		bad("description", msg)
	}
	if !utf8.ValidString(d.Request) {
		bad("request", "the text is not valid UTF-8")
		return domain.Scenario{}, errs
	}
	req, err := s.request(d)
	if err != nil {
		var ae *library.Error
		if errors.As(err, &ae) && ae.Field != "" {
			bad("request."+ae.Field, ae.Msg)
		} else {
			bad("request", strings.TrimPrefix(err.Error(), library.CodeInvalidRequest+": "))
		}
	}
	if len(errs) > 0 {
		return domain.Scenario{}, errs
	}
	sc.Request = req
	return sc, nil
}

// request returns d's request checked (assembler.DecodeRequest), with
// d.Locale written in and "now" pinned.
func (s *Scenarios) request(d ScenarioDraft) (json.RawMessage, error) {
	raw := json.RawMessage(bytes.TrimSpace([]byte(d.Request)))
	if len(raw) == 0 {
		return nil, errors.New("required: the assemble request JSON, as POST /api/v1/assemble takes it")
	}
	if _, err := assembler.DecodeRequest(raw); err != nil {
		return nil, err
	}
	// The accepted output is stored as text, which cannot hold a NUL.
	if field, ok := strictjson.StringWhere(raw, func(s string) bool { return strings.ContainsRune(s, 0) }); ok {
		return nil, &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: "the text contains the NUL character (U+0000), which cannot be stored"}
	}
	if loc := strings.TrimSpace(d.Locale); loc != "" {
		quoted, _ := json.Marshal(loc)
		var err error
		if raw, err = setMember(raw, "locale", quoted, false); err != nil {
			return nil, err
		}
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	quoted, _ := json.Marshal(now().UTC().Truncate(time.Second).Format(time.RFC3339))
	raw, err := setMember(raw, "now", quoted, true)
	if err != nil {
		return nil, err
	}
	// What is stored must assemble the same way: check it once more.
	if _, err := assembler.DecodeRequest(raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// setMember sets the member key of the JSON object raw to value, keeping
// the other members and their order; when onlyIfUnset, a member that is
// present and not null stays as it is. A request's output must not change
// with the day it runs on, so a saved request always sets "now": one
// without it gets the time of saving.
func setMember(raw json.RawMessage, key string, value json.RawMessage, onlyIfUnset bool) (json.RawMessage, error) {
	type member struct {
		key   string
		value json.RawMessage
	}
	var members []member
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		members = append(members, member{tok.(string), v})
	}
	i := slices.IndexFunc(members, func(m member) bool { return m.key == key })
	switch {
	case i < 0:
		members = append(members, member{key, value})
	case onlyIfUnset && string(members[i].value) != "null":
		return raw, nil
	default:
		members[i].value = value
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for j, m := range members {
		if j > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteString(": ")
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Run runs the scenario id against what is served now. Errors:
// library.ErrNotFound; the store's. A request that does not assemble is
// a run with Status RunFailed, not an error.
func (s *Scenarios) Run(ctx context.Context, id string) (ScenarioRun, error) {
	sc, err := s.Store.GetScenario(ctx, id)
	if err != nil {
		return ScenarioRun{}, err
	}
	return s.RunOn(ctx, s.Served.Current(), sc), nil
}

// RunAll runs every scenario, ordered by id, against one View: what is
// served now. Errors are the store's.
func (s *Scenarios) RunAll(ctx context.Context) ([]ScenarioRun, error) {
	list, err := s.Store.ListScenarios(ctx)
	if err != nil {
		return nil, err
	}
	v := s.Served.Current()
	runs := make([]ScenarioRun, len(list))
	for i, sc := range list {
		runs[i] = s.RunOn(ctx, v, sc)
	}
	return runs, nil
}

// RunOn assembles sc's request on v's library with its published
// overrides and profiles (what the runtime API serves, drafts left out)
// and compares the output with the accepted one. A request without "now"
// (one stored before saves pinned it) runs at the scenario's last update,
// so that its output does not change from day to day.
func (s *Scenarios) RunOn(ctx context.Context, v *View, sc domain.Scenario) ScenarioRun {
	run := ScenarioRun{Scenario: sc}
	req, err := assembler.DecodeRequest(sc.Request)
	if err == nil {
		var out *Assembled
		if out, err = s.assembly().AssembleOn(ctx, v, req, Mode{}, sc.UpdatedAt); err == nil {
			run.Result = out.Result
		}
	}
	if err != nil {
		run.Status, run.Err, run.Result = RunFailed, err, nil
		return run
	}
	run.Output = OutputOf(run.Result)
	run.Fingerprint = Fingerprint(run.Output)
	switch a := sc.Accepted; {
	case a == nil:
		run.Status = RunNeverAccepted
	case SameOutput(a.ScenarioOutput, run.Output):
		run.Status = RunUnchanged
	default:
		run.Status = RunChanged
		run.TextDiff = linediff.Diff(a.Text, run.Output.Text)
		run.ReportDiff = linediff.Diff(joinLines(a.Report), joinLines(run.Output.Report))
	}
	return run
}

// OutputOf is what is compared and accepted of an assembly: its full
// text, its report lines and its token count. Where the library was
// loaded from is left out: the library line (its source and reload
// generation), and the difference between library text from the
// embedded library and from a folder (source file reads as builtin), so
// that a folder holding the same modules as the binary changes nothing;
// and the warning that the database is unreachable, which says how the
// output was served, not what it is.
func OutputOf(res *assembler.Result) domain.ScenarioOutput {
	out := domain.ScenarioOutput{Text: res.Text, Report: []string{}, Tokens: res.Tokens}
	for _, e := range res.Report {
		switch {
		case e.Kind == assembler.KindLibrary, e.Kind == assembler.KindWarning && e.Module == assembler.StaleModule:
			continue
		case e.Source == assembler.SourceFile:
			e.Source = assembler.SourceBuiltin
			e.Line = e.TextForm()
		}
		out.Report = append(out.Report, e.Line)
	}
	return out
}

// SameOutput reports whether two outputs are equal: text, report lines
// and tokens.
func SameOutput(a, b domain.ScenarioOutput) bool {
	return a.Text == b.Text && a.Tokens == b.Tokens && slices.Equal(a.Report, b.Report)
}

// Fingerprint is the hex SHA-256 of an output.
func Fingerprint(out domain.ScenarioOutput) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n%d\n%s", out.Tokens, len(out.Text), out.Text)
	for _, l := range out.Report {
		fmt.Fprintf(h, "\n%d\n%s", len(l), l)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// isFingerprint reports whether s has the shape Fingerprint writes.
func isFingerprint(s string) bool {
	if len(s) != sha256.Size*2 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// joinLines is lines as one text, a newline after each.
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// Accept runs the scenario id against what is served now and records
// its output as accepted. With a fingerprint (ScenarioRun.Fingerprint of
// the run that was reviewed) it accepts only that output. The returned
// run is compared with the new accepted output (unchanged). Errors:
// ErrBadFingerprint for a fingerprint of the wrong shape; library.ErrNotFound;
// ErrOutputMoved; ErrNotAcceptable when the scenario does not assemble
// (the run says why); the store's.
func (s *Scenarios) Accept(ctx context.Context, id, fingerprint string) (ScenarioRun, error) {
	if fingerprint != "" && !isFingerprint(fingerprint) {
		return ScenarioRun{}, ErrBadFingerprint
	}
	sc, err := s.Store.GetScenario(ctx, id)
	if err != nil {
		return ScenarioRun{}, err
	}
	return s.accept(ctx, sc, fingerprint)
}

func (s *Scenarios) accept(ctx context.Context, sc domain.Scenario, fingerprint string) (ScenarioRun, error) {
	run := s.RunOn(ctx, s.Served.Current(), sc)
	switch {
	case run.Status == RunFailed:
		return run, fmt.Errorf("scenario %s: %w: %w", sc.ID, ErrNotAcceptable, run.Err)
	case fingerprint != "" && fingerprint != run.Fingerprint:
		return run, fmt.Errorf("scenario %s: %w", sc.ID, ErrOutputMoved)
	}
	saved, err := s.Store.AcceptScenario(ctx, sc.ID, run.Output)
	if err != nil {
		return run, err
	}
	run.Scenario, run.Status, run.TextDiff, run.ReportDiff = saved, RunUnchanged, nil, nil
	return run, nil
}

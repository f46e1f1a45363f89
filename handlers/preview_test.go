package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store/storetest"
)

func TestPreviewSeedsAndRunsTheExampleScenarios(t *testing.T) {
	t.Parallel()
	a := setup(t)
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatal(err)
	}
	page := a.get("/preview").want(t, http.StatusOK)
	options := page.doc.Find(`[data-testid="scenario-select"] option`)
	if options.Length() != len(examples)+1 {
		t.Fatalf("%d scenario options, want %d examples + pasted JSON", options.Length(), len(examples))
	}
	asm := assembler.New(assembler.Config{CountTokens: true})
	for i, ex := range examples {
		if got := options.Eq(i+1).AttrOr("value", ""); got != ex.ID {
			t.Errorf("option %d is %q, want %q", i+1, got, ex.ID)
		}
		t.Run(ex.ID, func(t *testing.T) {
			r := a.post("/preview", url.Values{"scenario": {ex.ID}}).want(t, http.StatusOK)
			req, err := assembler.DecodeRequest(ex.Request)
			if err != nil {
				t.Fatal(err)
			}
			want, err := asm.Assemble(a.lib, nil, req, clock)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.find("full-text").Text(); got != strings.TrimPrefix(want.Text, "\n") {
				t.Errorf("full text differs from the assembler's:\n%s", got)
			}
			if got := r.find("total-tokens").Text(); got != itoa(want.Tokens) {
				t.Errorf("total tokens %s, want %d", got, want.Tokens)
			}
			// Placeholder entries sit in their own folded table, the rest in order.
			var decisions, placeholders []assembler.ReportEntry
			for _, e := range want.Report {
				if e.Kind == assembler.KindPlaceholder {
					placeholders = append(placeholders, e)
				} else {
					decisions = append(decisions, e)
				}
			}
			if got := r.find("placeholder-entry"); got.Length() != len(placeholders) || got.First().Find("td").Last().Text() != placeholders[0].Reason {
				t.Errorf("%d placeholder rows (first %q), want %d (first %q)", got.Length(), got.First().Text(), len(placeholders), placeholders[0].Reason)
			}
			entries := r.find("report-entry")
			if entries.Length() != len(decisions) {
				t.Fatalf("%d report rows, want %d", entries.Length(), len(decisions))
			}
			for i, e := range decisions {
				row := entries.Eq(i)
				if row.AttrOr("data-kind", "") != e.Kind || row.AttrOr("data-module", "") != e.Module || row.AttrOr("data-source", "") != e.Source {
					t.Errorf("report row %d is %s/%s/%s, want %s", i, row.AttrOr("data-kind", ""), row.AttrOr("data-module", ""), row.AttrOr("data-source", ""), e.Line)
				}
				if e.Fallback != (row.Find(`[data-testid="fallback"]`).Length() == 1) {
					t.Errorf("report row %d (%s): fallback marker wrong", i, e.Line)
				}
			}
			if got := r.find("report-lines").Text(); !strings.Contains(got, want.Report[0].Line) || want.Report[0].Line != "library(embedded · generation:1)" {
				t.Errorf("text form lacks %q, or it is not the library entry", want.Report[0].Line)
			}
			if got := r.find("library-source").Text(); got != "embedded" {
				t.Errorf("library source shown as %q, want embedded", got)
			}
			segs := r.find("segment")
			if segs.Length() != len(want.Segments) {
				t.Fatalf("%d segments, want %d", segs.Length(), len(want.Segments))
			}
			for i, s := range want.Segments {
				seg := segs.Eq(i)
				if seg.AttrOr("data-segment", "") != s.Layer || seg.Find(`[data-testid="segment-text"]`).Text() != strings.TrimPrefix(s.Text, "\n") {
					t.Errorf("segment %d (%s) differs", i, s.Layer)
				}
			}
			for name, md := range map[string]string{"Knowledge bases": want.Tables.Knowledge, "Selected documents": want.Tables.Selected, "Skills": want.Tables.Skills} {
				table := r.doc.Find(`[data-testid="table"][data-table="` + name + `"]`)
				if (md != "") != (table.Length() == 1) {
					t.Errorf("table %s shown %d times for %d bytes of markdown", name, table.Length(), len(md))
				}
				if md != "" && table.Find(`[data-testid="table-markdown"]`).Text() != strings.TrimPrefix(md, "\n") {
					t.Errorf("table %s markdown differs", name)
				}
			}
			// The form now holds the scenario's JSON, to edit and run again.
			var got, wantReq map[string]any
			if err := json.Unmarshal([]byte(r.textarea("request")), &got); err != nil {
				t.Fatalf("textarea is not the request JSON: %v", err)
			}
			json.Unmarshal(ex.Request, &wantReq)
			if g, w := mustJSON(got), mustJSON(wantReq); g != w {
				t.Errorf("textarea request %s, want %s", g, w)
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPreviewShowsTablesAsHTML(t *testing.T) {
	t.Parallel()
	a := setup(t)
	req := `{"locale": "en-US", "message": "what is in the docs?",
		"knowledgeBases": [{"id": "kb1", "name": "Handbook", "type": "document", "docCount": 1,
			"recentDocs": [{"knowledgeId": "d1", "title": "Pipes | and <b>tags</b>", "fileType": "pdf", "fileSize": 2048, "summary": "line one\nline two"}]}]}`
	r := a.post("/preview", url.Values{"request": {req}}).want(t, http.StatusOK)
	table := r.doc.Find(`[data-testid="table"][data-table="Knowledge bases"]`)
	cell := table.Find("td").First()
	if got := cell.Text(); got != "Pipes | and <b>tags</b>" {
		t.Errorf("first cell %q, want the title as text", got)
	}
	if strings.Contains(r.Body.String(), "<b>tags</b>") {
		t.Error("a knowledge-base title reached the page as HTML")
	}
	if table.Find("th").Length() == 0 {
		t.Error("no table header")
	}
}

func TestPreviewErrorsKeepTheForm(t *testing.T) {
	t.Parallel()
	a := setup(t)
	cases := []struct {
		name, request, locale, msg string
	}{
		{"empty", "", "", "Choose a scenario"},
		{"bad json", `{"locale": "en-US",`, "", "request"},
		{"unknown field", `{"locale": "en-US", "colour": "red"}`, "", "colour"},
		{"unknown profile", `{"profile": "ghost"}`, "", "ghost"},
		{"bad locale field", `{"message": "hi"}`, "not a locale!", "BCP 47"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.post("/preview", url.Values{"request": {c.request}, "locale": {c.locale}}).want(t, http.StatusUnprocessableEntity)
			if got := r.find("alert").Text(); !strings.Contains(got, c.msg) {
				t.Errorf("alert %q does not mention %q", got, c.msg)
			}
			if r.find("alert").Length() != 1 || r.find("preview-result").Length() != 0 {
				t.Error("want the error above the form and no result")
			}
			if got := r.textarea("request"); got != c.request {
				t.Errorf("textarea %q, want the typed %q", got, c.request)
			}
			if got := r.find("locale-input").AttrOr("value", ""); got != c.locale {
				t.Errorf("locale field %q, want %q", got, c.locale)
			}
		})
	}
	a.post("/preview", url.Values{"scenario": {"no-such-scenario"}}).want(t, http.StatusNotFound)
}

func TestPreviewHTMXGetsTheBody(t *testing.T) {
	t.Parallel()
	a := setup(t)
	r := a.do(http.MethodPost, "/preview", url.Values{"request": {`{"locale": "en-US"}`}}, "HX-Request", "true").want(t, http.StatusOK)
	if strings.Contains(r.Body.String(), "<html") || r.find("preview-result").Length() != 1 || r.find("preview-form").Length() != 1 {
		t.Errorf("htmx response is not the form and result fragment:\n%.300s", r.Body.String())
	}
}

func TestScenariosAreSeededOnce(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	a := setupOn(t, dbURL)
	ctx := context.Background()
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.DeleteScenario(ctx, examples[0].ID); err != nil {
		t.Fatal(err)
	}
	// A second start finds scenarios and seeds nothing: the operator's deletion stays.
	setupOn(t, dbURL)
	n, err := a.store.CountScenarios(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(examples)-1 {
		t.Errorf("%d scenarios after the second start, want %d", n, len(examples)-1)
	}
	sc, err := a.store.GetScenario(ctx, examples[1].ID)
	if err != nil || !sc.Builtin || sc.Name != examples[1].Name {
		t.Errorf("seeded scenario %+v, %v", sc, err)
	}
}

// includeLibrary is the builtin library plus aux.signature, in en-US only,
// which zh-CN's base.identity includes at its end.
func includeLibrary(t *testing.T) *library.Snapshot {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "library"))); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"modules/en-US/aux-signature.md": signatureText("Signed, the workspace assistant."),
		"modules/zh-CN/base-identity.md": builtinText(t, builtin(t), "base.identity", "zh-CN").Text + "\n{{aux.signature}}\n",
	}
	for rel, text := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := library.LoadDir(dir)
	if err != nil {
		t.Fatalf("include library: %v", err)
	}
	return snap
}

// signatureText is the module file of aux.signature with body.
func signatureText(body string) string {
	return "---\nid: aux.signature\nlayer: aux\nversion: 1\ntitle: Signature\ndescription: The assistant's sign-off line.\n---\n" + body + "\n"
}

// The composition table has a row for an included module, after the row
// of the module that includes it, with its source and locale; once an
// override serves it, the row shows the override's revision.
func TestPreviewShowsIncludes(t *testing.T) {
	t.Parallel()
	a := setup(t, includeLibrary(t))
	const body = `{"locale": "zh-CN"}`
	req, err := assembler.DecodeRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want, err := assembler.New(assembler.Config{CountTokens: true}).Assemble(a.lib, nil, req, clock)
	if err != nil {
		t.Fatal(err)
	}
	wantTokens := 0
	for _, e := range want.Report {
		if e.Kind == assembler.KindInclude {
			wantTokens = e.Tokens
		}
	}
	includeRow := func(r response) *goquery.Selection {
		t.Helper()
		row := r.doc.Find(`[data-testid="report-entry"][data-kind="include"]`)
		if row.Length() != 1 || row.AttrOr("data-module", "") != "aux.signature" {
			t.Fatalf("%d include rows, want one for aux.signature; report:\n%s", row.Length(), r.find("report-lines").Text())
		}
		if prev := row.Prev(); prev.AttrOr("data-kind", "") != "prompt" || prev.AttrOr("data-module", "") != "base.identity" {
			t.Errorf("the include row follows %s %s, want base.identity's prompt row", prev.AttrOr("data-kind", ""), prev.AttrOr("data-module", ""))
		}
		return row
	}
	cells := func(row *goquery.Selection) []string {
		var out []string
		row.Find("td").Each(func(_ int, td *goquery.Selection) { out = append(out, strings.Join(strings.Fields(td.Text()), " ")) })
		return out
	}

	r := a.post("/preview", url.Values{"request": {body}}).want(t, http.StatusOK)
	row := includeRow(r)
	if got, wantCells := cells(row), []string{"include", "aux.signature", "v1", "file", "en-US fallback", "by:base.identity", itoa(wantTokens)}; !slices.Equal(got, wantCells) || wantTokens == 0 {
		t.Errorf("include row %q, want %q (tokens non-zero)", got, wantCells)
	}
	if row.Find(`[data-testid="revision"]`).Length() != 0 {
		t.Error("a library module shows a revision")
	}
	if lines := r.find("report-lines").Text(); !strings.Contains(lines, "include(aux.signature v1 · by:base.identity · file · fallback:en-US)\n") {
		t.Errorf("text form lacks the include line:\n%s", lines)
	}

	a.saveOverride("aux.signature", "en-US", signatureText("Signed, the operators."), 0)
	r = a.post("/preview", url.Values{"request": {body}}).want(t, http.StatusOK)
	row = includeRow(r)
	if src, rev := row.AttrOr("data-source", ""), row.Find(`[data-testid="revision"]`).Text(); src != assembler.SourceOverride || rev != "r1" {
		t.Errorf("include row source %q revision %q, want override r1", src, rev)
	}
	if lines := r.find("report-lines").Text(); !strings.Contains(lines, "include(aux.signature v1 · by:base.identity · override r1 · fallback:en-US)\n") {
		t.Errorf("text form lacks the override's include line:\n%s", lines)
	}
}

// variableLibrary is the builtin library whose base.identity declares
// the variables topic and today and uses both (in every locale: they
// share one variable list).
func variableLibrary(t *testing.T) *library.Snapshot {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "library"))); err != nil {
		t.Fatal(err)
	}
	text := "---\nid: base.identity\nlayer: base\nversion: 1\ntitle: Identity\ndescription: Who the assistant is.\nvariables: [topic, today]\n---\nYou help with {{topic}}; today is {{today}}.\n"
	files, err := filepath.Glob(filepath.Join(dir, "modules", "*", "base-identity.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no base-identity.md to replace (%v)", err)
	}
	for _, f := range files {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := library.LoadDir(dir)
	if err != nil {
		t.Fatalf("variable library: %v", err)
	}
	return snap
}

// The preview words an assembly error as a sentence an operator reads,
// with the machine code beside it, not as the API's error string.
func TestPreviewWordsAssemblyErrors(t *testing.T) {
	t.Parallel()
	a := setup(t, variableLibrary(t))
	cases := []struct {
		name, request, sentence, code string
	}{
		{"wrong type", `{"locale": "en-US", "variables": {"topic": 3, "today": "Friday"}}`,
			"The request's field variables.topic: expected string, got JSON number.", library.CodeInvalidRequest},
		{"missing variable", `{"locale": "en-US", "variables": {"topic": "billing"}}`,
			`Module base.identity needs the variable {{today}}, and the request does not supply it: add it under "variables".`, library.CodeMissingVariable},
		{"extra variable", `{"locale": "en-US", "variables": {"topic": "billing", "today": "Friday", "mood": "calm"}}`,
			`No module in this assembly declares {{mood}}: remove it from "variables".`, library.CodeExtraVariable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.post("/preview", url.Values{"request": {c.request}}).want(t, http.StatusUnprocessableEntity)
			msgs := r.find("alert-message")
			if msgs.Length() != 1 {
				t.Fatalf("%d alert messages, want 1:\n%s", msgs.Length(), r.find("alert").Text())
			}
			code := msgs.Find(`[data-testid="error-code"]`)
			if got := code.AttrOr("data-code", ""); got != c.code || code.Text() != c.code {
				t.Errorf("code %q (data-code %q), want %q", code.Text(), got, c.code)
			}
			if got := strings.Join(strings.Fields(msgs.Text()), " "); got != c.sentence+" "+c.code {
				t.Errorf("message %q, want %q followed by the code", got, c.sentence)
			}
			if got := r.textarea("request"); got != c.request {
				t.Errorf("textarea %q, want the typed %q", got, c.request)
			}
		})
	}
	// The request runs once it supplies exactly the declared variables.
	r := a.post("/preview", url.Values{"request": {`{"locale": "en-US", "variables": {"topic": "billing", "today": "Friday"}}`}}).want(t, http.StatusOK)
	if got := r.find("full-text").Text(); !strings.Contains(got, "You help with billing; today is Friday.") {
		t.Errorf("full text lacks the variables:\n%.300s", got)
	}
}

// The preview says how many skills the skill budget left out, each with
// its reason, in a list that folds; with room for all, that all are listed.
func TestPreviewShowsSkillsNotListed(t *testing.T) {
	t.Parallel()
	a := setup(t)
	r := a.post("/preview", url.Values{"request": {`{"locale": "en-US", "message": "hello"}`}}).want(t, http.StatusOK)
	if got := strings.Join(strings.Fields(r.find("skills-all-listed").Text()), " "); got != "5 skills listed within the 8000-token skill budget (o200k_base)." {
		t.Errorf("all listed: %q", got)
	}
	if r.find("skills-not-listed").Length() != 0 {
		t.Error("a list of skills not listed when every skill is listed")
	}

	form := profileForm("tight")
	form.Set("locale", "en-US")
	form.Set("skillBudget", "1")
	a.post("/profiles", form).want(t, http.StatusSeeOther)
	r = a.post("/preview", url.Values{"request": {`{"profile": "tight", "message": "please translate this"}`}}).want(t, http.StatusOK)
	list := r.find("skills-not-listed")
	if list.Length() != 1 || goquery.NodeName(list) != "details" {
		t.Fatalf("skills not listed: %d elements (%s), want one details", list.Length(), goquery.NodeName(list))
	}
	if got := r.find("skills-not-listed-count").Text(); got != "4 skills not listed" {
		t.Errorf("summary %q, want 4 skills not listed", got)
	}
	var names []string
	r.doc.Find(`[data-testid="skill-cut"]`).Each(func(_ int, s *goquery.Selection) {
		names = append(names, s.AttrOr("data-name", ""))
		if reason := s.Find("td").Last().Text(); reason != "budget" {
			t.Errorf("%s: reason %q", s.AttrOr("data-name", ""), reason)
		}
		if href := s.Find("a").AttrOr("href", ""); href != "/modules/"+s.AttrOr("data-name", "") {
			t.Errorf("%s links to %q", s.AttrOr("data-name", ""), href)
		}
	})
	// task.translate fired: it is the hit, never cut.
	slices.Sort(names)
	if want := []string{"task.code-review", "task.data-analysis", "task.doc-minutes", "task.summarize"}; !slices.Equal(names, want) {
		t.Errorf("cut %q, want %q", names, want)
	}
	if r.doc.Find(`[data-testid="report-entry"][data-kind="skill-cut"]`).Length() != 4 {
		t.Error("the composition table lacks the skill-cut entries")
	}
}

// The preview keeps the chosen scenario: run, the select still names it
// and the form says its text is loaded; its text edited and run again,
// the edit runs, as pasted JSON; a scenario chosen over another's loaded
// text runs the new choice.
func TestPreviewKeepsScenario(t *testing.T) {
	t.Parallel()
	a := setup(t)
	selected := func(r response) string {
		return r.doc.Find(`[data-testid="scenario-select"] option[selected]`).AttrOr("value", "")
	}
	r := a.post("/preview", url.Values{"scenario": {"translate-en"}}).want(t, http.StatusOK)
	if got := r.find("result-source").Text(); got != `scenario "translate-en"` {
		t.Errorf("source %q", got)
	}
	if got, loaded := selected(r), r.find("scenario-loaded-id").AttrOr("value", ""); got != "translate-en" || loaded != "translate-en" {
		t.Errorf("after the run the select names %q and the loaded text is %q, want translate-en for both", got, loaded)
	}
	text := r.textarea("request")
	edited := strings.Replace(text, `"en-US"`, `"de-DE"`, 1)
	if edited == text {
		t.Fatalf("the request has no en-US locale to edit:\n%s", text)
	}
	r = a.post("/preview", url.Values{"scenario": {"translate-en"}, "loaded": {"translate-en"}, "request": {edited}}).want(t, http.StatusOK)
	if got := r.find("result-source").Text(); got != `scenario "translate-en", edited` {
		t.Errorf("edited: source %q", got)
	}
	if got := r.find("result-locale").Text(); got != "de-DE" {
		t.Errorf("edited: assembled %q, want the edit's de-DE", got)
	}
	if got := selected(r); got != "" {
		t.Errorf("edited: the select names %q, want the pasted JSON", got)
	}
	r = a.post("/preview", url.Values{"scenario": {"minutes-zh"}, "loaded": {"translate-en"}, "request": {edited}}).want(t, http.StatusOK)
	if got := r.find("result-source").Text(); got != `scenario "minutes-zh"` {
		t.Errorf("a new choice: source %q", got)
	}
}

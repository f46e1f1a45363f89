package assembler_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/assembler/tokens"
)

// corporaDir holds real prompt collections beside the project (absent from
// a user's clone).
const corporaDir = "../../shared/cases/corpora"

// Counting through the memo cuts texts into chunks; the chunk counts add up
// to the whole text's count in every shipped encoding, on real texts: the
// assembled examples and builtin modules (always), the shared scenarios and
// prompt corpora (when present).
func TestChunkedCountsMatchWholeTexts(t *testing.T) {
	texts := map[string]string{}
	a := assembler.New(assembler.Config{})
	assemble := func(name string, data []byte) {
		req, err := assembler.DecodeRequest(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := a.Assemble(builtinLib(t), nil, req, fixedNow)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		texts[name] = res.Text
	}
	examples, err := assembler.Examples()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		assemble("example "+ex.ID, ex.Request)
	}
	readAll := func(root string, keep func(string) bool) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !keep(p) {
				return err
			}
			data, err := os.ReadFile(p)
			texts[p] = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	readAll("../library/modules", func(string) bool { return true })
	if _, err := os.Stat(scenarioDir); err == nil {
		scenarios, _ := filepath.Glob(filepath.Join(scenarioDir, "*.json"))
		for _, p := range scenarios {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			assemble(p, data)
		}
	} else {
		t.Log(scenarioDir + " not found: the shared scenarios are not counted, only the repo's examples and modules")
	}
	if _, err := os.Stat(corporaDir); err == nil {
		readAll(corporaDir, func(p string) bool { return filepath.Base(p) != "LICENSE" })
	} else {
		t.Log(corporaDir + " not found: the shared prompt corpora are not counted")
	}
	if len(texts) < 20 {
		t.Fatalf("only %d texts to count", len(texts))
	}
	for _, name := range tokens.Encodings {
		c, err := tokens.ForEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		memo := tokens.NewMemo(tokens.DefaultMemoBytes)
		for p, text := range texts {
			whole := c.WithMemo(nil).Count(text)
			if got := c.WithMemo(tokens.NewMemo(tokens.DefaultMemoBytes)).Count(text); got != whole {
				t.Errorf("%s, %s: chunks add up to %d tokens, the whole text has %d", name, p, got, whole)
			}
			// A memo shared by all texts: chunks counted for one serve another.
			if got := c.WithMemo(memo).Count(text); got != whole {
				t.Errorf("%s, %s through a shared memo: %d tokens, the whole text has %d", name, p, got, whole)
			}
		}
	}
}

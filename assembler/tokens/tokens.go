// Package tokens counts tokens with a real BPE tokenizer whose vocabularies
// ship inside the binary (github.com/tiktoken-go/tokenizer), so nothing is
// downloaded at run time. Counts go through a bounded memo of counts per
// chunk of text (Memo), exact by construction: see cuts.
package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// DefaultEncoding is used for models the tokenizer does not know (Claude,
// Qwen, …): o200k_base, the encoding of current OpenAI models, as the
// closest public approximation.
const DefaultEncoding = "o200k_base"

// Encodings are the shipped encodings, by name.
var Encodings = []string{"o200k_base", "cl100k_base", "p50k_base", "p50k_edit", "r50k_base"}

// maxModels bounds the model-name → encoding cache: model names come from
// requests, so past this many distinct names they are resolved every time
// instead of kept.
const maxModels = 1024

var (
	mu        sync.Mutex
	encodings = map[string]*encoding{}
	models    = map[string]string{}
	shared    = NewMemo(DefaultMemoBytes)
)

// encoding is one loaded vocabulary and the chunk-cut rule that is exact
// for its pretokenizer.
type encoding struct {
	codec tokenizer.Codec
	cut   func(text string, p int) bool
}

// EncodingFor returns the encoding name for a model name: the tokenizer's
// mapping for OpenAI models, DefaultEncoding for everything else.
func EncodingFor(model string) string {
	if model == "" {
		return DefaultEncoding
	}
	mu.Lock()
	name, ok := models[model]
	mu.Unlock()
	if ok {
		return name
	}
	name = DefaultEncoding
	// ForModel builds a codec; its vocabulary loads once per process.
	if c, err := tokenizer.ForModel(tokenizer.Model(model)); err == nil {
		name = c.GetName()
	}
	mu.Lock()
	if len(models) < maxModels {
		models[model] = name
	}
	mu.Unlock()
	return name
}

// Counter counts tokens of one encoding through a memo; safe for
// concurrent use.
type Counter struct {
	enc  *encoding
	memo *Memo
	Name string
}

// For returns the Counter for a model's encoding, with the process-wide
// memo; the vocabulary is loaded once per process (about 30 ms for
// o200k_base) and kept.
func For(model string) (*Counter, error) {
	return ForEncoding(EncodingFor(model))
}

// ForEncoding returns the Counter for an encoding name (one of Encodings),
// with the process-wide memo; an unknown name is an error.
func ForEncoding(name string) (*Counter, error) {
	mu.Lock()
	defer mu.Unlock()
	if enc, ok := encodings[name]; ok {
		return &Counter{enc: enc, memo: shared, Name: name}, nil
	}
	codec, err := tokenizer.Get(tokenizer.Encoding(name))
	if err != nil {
		return nil, err
	}
	enc := &encoding{codec: codec, cut: cutFor(name)}
	encodings[name] = enc
	return &Counter{enc: enc, memo: shared, Name: name}, nil
}

// WithMemo returns a Counter of the same encoding that uses m; nil counts
// every text whole, without a memo.
func (c *Counter) WithMemo(m *Memo) *Counter {
	return &Counter{enc: c.enc, memo: m, Name: c.Name}
}

// Count returns the number of tokens of text; special tokens count as
// text. The result is the whole text's count whether or not parts of it
// came from the memo.
func (c *Counter) Count(text string) int {
	if text == "" {
		return 0
	}
	if c.memo == nil {
		return c.enc.count(text)
	}
	return c.memo.count(c.enc, text)
}

// count tokenizes text whole. The codec reports errors only for invalid
// UTF-8 in strict mode and for regexp timeouts, and this codec has neither.
func (e *encoding) count(text string) int {
	n, _ := e.codec.Count(text)
	return n
}

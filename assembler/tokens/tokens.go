// Package tokens counts tokens with a real BPE tokenizer whose vocabularies
// ship inside the binary: tiktoken-go with its offline loader, so
// nothing is downloaded at run time.
package tokens

import (
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// DefaultEncoding is used for models tiktoken does not know (Claude,
// Qwen, …): o200k_base, the encoding of current OpenAI models, as the
// closest public approximation.
const DefaultEncoding = "o200k_base"

var (
	setLoader sync.Once
	mu        sync.Mutex
	encodings = map[string]*tiktoken.Tiktoken{}
)

// EncodingFor returns the encoding name for a model name: tiktoken's
// mapping for OpenAI models, DefaultEncoding for everything else.
func EncodingFor(model string) string {
	if model == "" {
		return DefaultEncoding
	}
	if enc, ok := tiktoken.MODEL_TO_ENCODING[model]; ok {
		return shipped(enc)
	}
	best, longest := DefaultEncoding, 0
	for prefix, enc := range tiktoken.MODEL_PREFIX_TO_ENCODING {
		if strings.HasPrefix(model, prefix) && len(prefix) > longest {
			best, longest = enc, len(prefix)
		}
	}
	return shipped(best)
}

// shipped maps an encoding without an offline vocabulary (gpt2's, say) to
// DefaultEncoding.
func shipped(enc string) string {
	switch enc {
	case tiktoken.MODEL_O200K_BASE, tiktoken.MODEL_CL100K_BASE, tiktoken.MODEL_P50K_BASE, tiktoken.MODEL_P50K_EDIT, tiktoken.MODEL_R50K_BASE:
		return enc
	}
	return DefaultEncoding
}

// Counter counts tokens of one encoding; safe for concurrent use.
type Counter struct {
	enc  *tiktoken.Tiktoken
	Name string
}

// For returns the Counter for a model's encoding; the vocabulary is loaded
// once per process (about 0.2 s) and cached.
func For(model string) (*Counter, error) {
	setLoader.Do(func() { tiktoken.SetBpeLoader(loader.NewOfflineLoader()) })
	name := EncodingFor(model)
	mu.Lock()
	defer mu.Unlock()
	if enc, ok := encodings[name]; ok {
		return &Counter{enc: enc, Name: name}, nil
	}
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, err
	}
	encodings[name] = enc
	return &Counter{enc: enc, Name: name}, nil
}

// Count returns the number of tokens of text; special tokens count as text.
func (c *Counter) Count(text string) int {
	if text == "" {
		return 0
	}
	return len(c.enc.EncodeOrdinary(text))
}

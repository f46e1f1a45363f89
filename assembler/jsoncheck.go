package assembler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// CheckJSON holds a JSON request body to what the API's OpenAPI document
// says beyond syntax: invalid UTF-8 anywhere is a CodeInvalidJSON error,
// and null anywhere (no request field is nullable; leave a field out for
// its default) a CodeInvalidRequest error, both naming the field as a
// JSON path ("variables.conversation", "skills[2].name"). Malformed JSON
// passes: the decoder that follows reports it with its position.
func CheckJSON(data []byte) error {
	if !utf8.Valid(data) {
		bad := firstInvalidUTF8(data)
		field := ""
		walkJSON(data, func(path string, _ json.Token, end int64) bool {
			if end > int64(bad) {
				field = strings.TrimSuffix(path, ":")
				return true
			}
			return false
		})
		return &Error{Code: CodeInvalidJSON, Field: field, Msg: fmt.Sprintf("invalid UTF-8 at byte %d: send the body as UTF-8", bad)}
	}
	if !bytes.Contains(data, []byte("null")) {
		return nil
	}
	var err error
	walkJSON(data, func(path string, tok json.Token, _ int64) bool {
		if tok == nil {
			err = &Error{Code: CodeInvalidRequest, Field: path, Msg: "null is not allowed: leave the field out for its default"}
			return true
		}
		return false
	})
	return err
}

// TimeError is the CodeInvalidRequest error of a time that does not
// parse (pe, from decoding the JSON data), naming its field.
func TimeError(data []byte, pe *time.ParseError) error {
	field := ""
	walkJSON(data, func(path string, tok json.Token, _ int64) bool {
		if s, ok := tok.(string); ok && s == pe.Value && !strings.HasSuffix(path, ":") {
			field = path
			return true
		}
		return false
	})
	return &Error{Code: CodeInvalidRequest, Field: field, Msg: fmt.Sprintf("%q is not an RFC 3339 time such as 2026-11-29T15:45:00Z", pe.Value)}
}

// firstInvalidUTF8 is the offset of the first byte of data that is not
// part of valid UTF-8.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// walkJSON calls visit with each token of data in order: its JSON path,
// the token (an object key's path ends in ":"), and the offset just past
// it. It stops when visit returns true or at the first syntax error.
func walkJSON(data []byte, visit func(path string, tok json.Token, end int64) bool) {
	type frame struct {
		object  bool
		key     string
		index   int
		wantKey bool
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			}
		}
		return b.String()
	}
	next := func() { // a value ended: the next key, or the next element
		if len(stack) == 0 {
			return
		}
		top := &stack[len(stack)-1]
		if top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		end := dec.InputOffset()
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			next()
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			key, _ := tok.(string)
			stack[n-1].key, stack[n-1].wantKey = key, false
			if visit(path()+":", tok, end) {
				return
			}
			continue
		}
		if visit(path(), tok, end) {
			return
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, wantKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		default:
			next()
		}
	}
}

// Package strictjson decodes one JSON object into a Go value in one
// strict pass, with errors a person can act on: the line and column of a
// syntax error, the path of a field that does not fit ("skills[2].name").
// It serves every JSON document promptdesk reads from outside (API
// bodies, stored scenario requests, request files); what the document
// means, and which HTTP status a failure gets, is its caller's.
package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/promptdesk/promptdesk/library"
)

// Decode decodes data, one JSON object, into v in one strict pass
// (github.com/go-json-experiment/json): member names match exactly, and an
// unknown member, a member given twice, invalid UTF-8, null (no request
// field is nullable: leave it out for its default) and a value of the
// wrong type are refused. Errors are *library.Error values:
//   - CodeInvalidJSON for a body that is empty, not JSON, not UTF-8, or
//     followed by more data, with the line and column (or the byte);
//   - CodeInvalidRequest for JSON that is not an object or does not fit
//     v, naming the field as a path ("variables.topic",
//     "skills[2].name").
//
// A syntax error anywhere wins over a field error before it, so the
// message points at what must be fixed first.
func Decode(data []byte, v any) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return &library.Error{Code: library.CodeInvalidJSON, Msg: "the request body is empty; send one JSON object"}
	}
	if trimmed[0] != '{' {
		if bad := syntaxProblem(data); bad != nil {
			return bad
		}
		return &library.Error{Code: library.CodeInvalidRequest, Msg: "the request must be one JSON object {…}"}
	}
	err := json.Unmarshal(data, v, json.RejectUnknownMembers(true), readers)
	if err == nil {
		return checkNulls(data)
	}
	if bad := syntaxProblem(data); bad != nil {
		return bad
	}
	var se *json.SemanticError
	if !errors.As(err, &se) {
		return &library.Error{Code: library.CodeInvalidRequest, Msg: err.Error()}
	}
	field := fieldPath(se.JSONPointer)
	var ve valueError
	switch {
	case errors.Is(se.Err, json.ErrUnknownName):
		return &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: "unknown field"}
	case errors.As(se.Err, &ve):
		return &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: string(ve)}
	}
	return &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: fmt.Sprintf("expected %s, got JSON %s", goTypeName(se.GoType), kindName(se.JSONKind))}
}

// readers are the decoder's rules for whole numbers and times, the one
// place they are read from JSON: a whole number may be written as any
// JSON number of integral value (1, 1.0, 1E2, 100e-2 is not), and one out
// of the Go field's range is refused by name, not wrapped or rounded; a
// time is RFC 3339, where "T" and "Z" may be lower case.
var readers = json.WithUnmarshalers(json.JoinUnmarshalers(
	json.UnmarshalFromFunc(readWhole[int]),
	json.UnmarshalFromFunc(readWhole[int32]),
	json.UnmarshalFromFunc(readWhole[int64]),
	json.UnmarshalFromFunc(readTime),
))

// valueError is why a JSON value of the right kind does not fit its field.
type valueError string

func (e valueError) Error() string { return string(e) }

// readWhole reads a JSON number of integral value into *v; any other kind
// of value is left to the decoder (its type error, or null).
func readWhole[T int | int32 | int64](dec *jsontext.Decoder, v *T) error {
	if dec.PeekKind() != '0' {
		return errors.ErrUnsupported
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	lit := tok.String()
	if len(lit) > maxNumberText {
		return valueError(fmt.Sprintf("a number of %d characters is out of range for a whole number from %d to %d", len(lit), minOf[T](), maxOf[T]()))
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok { // an exponent past what big.Rat reads
		return valueError(fmt.Sprintf("%s is out of range: a whole number from %d to %d", lit, minOf[T](), maxOf[T]()))
	}
	if !r.IsInt() {
		return valueError(fmt.Sprintf("%s is not a whole number", lit))
	}
	lo, hi := big.NewInt(int64(minOf[T]())), big.NewInt(int64(maxOf[T]()))
	if n := r.Num(); n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
		return valueError(fmt.Sprintf("%s is out of range: a whole number from %d to %d", lit, lo, hi))
	}
	*v = T(r.Num().Int64())
	return nil
}

// maxNumberText bounds the JSON text of a whole number read exactly, so
// that 1E999999999 costs no big arithmetic.
const maxNumberText = 64

// minOf and maxOf are the bounds of an integer type.
func minOf[T int | int32 | int64]() T { return ^maxOf[T]() }
func maxOf[T int | int32 | int64]() T {
	var z T
	return T(uint64(1)<<(reflect.TypeOf(z).Bits()-1) - 1)
}

// readTime reads an RFC 3339 time string into *t.
func readTime(dec *jsontext.Decoder, t *time.Time) error {
	if dec.PeekKind() != '"' {
		return errors.ErrUnsupported
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	s := tok.String()
	parsed, err := ParseTime(s)
	if err != nil {
		return err
	}
	*t = parsed
	return nil
}

// ParseTime reads an RFC 3339 time such as 2026-11-29T15:45:00Z; "T" and
// "Z" may be lower case, as RFC 3339 allows. The error says what is
// expected.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	if err != nil {
		return time.Time{}, valueError(fmt.Sprintf("%q is not an RFC 3339 time such as 2026-11-29T15:45:00Z", s))
	}
	return t, nil
}

// syntaxProblem reads data as JSON text alone and returns the
// CodeInvalidJSON (or, for a member given twice, CodeInvalidRequest) error
// of its first problem, or nil when it is one well-formed value.
func syntaxProblem(data []byte) error {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return &library.Error{Code: library.CodeInvalidJSON, Msg: "the body starts with a byte-order mark (EF BB BF): send the JSON without it"}
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	if _, err := dec.ReadValue(); err != nil {
		var se *jsontext.SyntacticError
		if !errors.As(err, &se) {
			return invalidJSON(data, int64(len(data)), "unexpected end of JSON input (unclosed object, array or string)")
		}
		field := fieldPath(se.JSONPointer)
		switch {
		case !utf8.Valid(data):
			return &library.Error{Code: library.CodeInvalidJSON, Field: field, Msg: fmt.Sprintf("invalid UTF-8 at byte %d: send the body as UTF-8", firstInvalidUTF8(data))}
		case errors.Is(se.Err, jsontext.ErrDuplicateName):
			return &library.Error{Code: library.CodeInvalidRequest, Field: field, Msg: "the field appears twice in one object; send it once"}
		case errors.Is(se.Err, io.ErrUnexpectedEOF):
			return invalidJSON(data, int64(len(data)), "unexpected end of JSON input (unclosed object, array or string)")
		}
		if strings.Contains(se.Err.Error(), "surrogate") {
			e := invalidJSON(data, se.ByteOffset, `a \u escape is half of a surrogate pair (\uD800 to \uDFFF) and encodes no character`)
			e.Field = stringAt(data)
			return e
		}
		return invalidJSON(data, se.ByteOffset, se.Err.Error())
	}
	after := dec.InputOffset()
	if rest := bytes.TrimLeft(data[after:], " \t\r\n"); len(rest) > 0 {
		return invalidJSON(data, int64(len(data)-len(rest)), "unexpected data after the JSON object")
	}
	return nil
}

// stringAt is the field path of the string whose reading fails in data:
// the decoder reports a bad escape without a place, so data is read again
// token by token up to the error.
func stringAt(data []byte) string {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		if _, err := dec.ReadToken(); err != nil {
			return fieldPath(dec.StackPointer())
		}
	}
}

// invalidJSON is the CodeInvalidJSON error at a byte offset of data.
func invalidJSON(data []byte, offset int64, what string) *library.Error {
	line, col := position(data, offset)
	return &library.Error{Code: library.CodeInvalidJSON, Msg: fmt.Sprintf("the body is not valid JSON at line %d, column %d: %s", line, col, what)}
}

// checkNulls refuses null anywhere in data, well-formed JSON, naming the
// field; the decoder reads null as "leave the field as it is".
func checkNulls(data []byte) error {
	if !bytes.Contains(data, []byte("null")) {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		if tok.Kind() == 'n' {
			return &library.Error{Code: library.CodeInvalidRequest, Field: fieldPath(dec.StackPointer()), Msg: "null is not allowed: leave the field out for its default"}
		}
	}
}

// StringWhere returns the field path of the first string value of data,
// well-formed JSON, for which bad is true; ok is false when there is none
// (or data does not read).
func StringWhere(data []byte, bad func(string) bool) (field string, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", false
		}
		if tok.Kind() == '"' && bad(tok.String()) {
			return fieldPath(dec.StackPointer()), true
		}
	}
}

// fieldPath turns a JSON Pointer ("/skills/2/name") into the path the
// API's errors name ("skills[2].name"). A token of digits is an array
// index: no request object has member names of digits only.
func fieldPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if tok != "" && strings.Trim(tok, "0123456789") == "" {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// goTypeName names a Go type as the API's errors do: "string", "int",
// "bool", "object" for structs and maps, "array" for slices.
func goTypeName(t reflect.Type) string {
	if t == nil {
		return "a different value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		if t == reflect.TypeFor[time.Time]() {
			return "an RFC 3339 time string"
		}
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return t.Kind().String()
}

// kindName names the kind of a JSON value.
func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
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

// position turns a byte offset of data into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	return bytes.Count(before, []byte("\n")) + 1, int(offset) - bytes.LastIndexByte(before, '\n')
}

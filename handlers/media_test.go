package handlers

import (
	"slices"
	"testing"
)

// Every operation's media types are read from the document, those of a
// request body it names by reference included.
func TestRequestMediaFromTheDocument(t *testing.T) {
	for op, want := range map[string][]string{
		"POST /api/v1/assemble":               {"application/json"},
		"POST /api/v1/scenarios":              {"application/json"},
		"PUT /api/v1/overrides/{id}":          {"application/json", "text/markdown", "text/plain"},
		"POST /api/v1/scenarios/{id}/accept":  {"application/json"},
		"POST /api/v1/overrides/{id}/publish": nil,
		"DELETE /api/v1/overrides/{id}":       nil,
	} {
		if got := requestMedia[op]; !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", op, got, want)
		}
	}
}

// Package jsontag reads `json:"..."` struct tags and finds a struct's JSON
// members as encoding/json does, for the encoder (internal/marshal), the
// decoder (internal/unmarshal) and the schema generator (openrpc).
package jsontag

import (
	"strings"
	"unicode"
)

// HasOpt reports whether the comma-separated options of a tag (what follows
// the name) include opt.
func HasOpt(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == opt {
			return true
		}
	}
	return false
}

// Valid reports whether s may be a member name given by a tag
// (encoding/json's isValidTag).
func Valid(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

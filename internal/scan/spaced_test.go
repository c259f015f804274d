package scan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/internal/scan/shapes"
)

// HasSpace is the reference for Scanner.Spaced: whether v, one valid JSON value, holds
// whitespace outside its strings (a byte by byte walk, independent of the scanner).
func HasSpace(v []byte) bool {
	in := false
	for k := 0; k < len(v); k++ {
		switch b := v[k]; {
		case in && b == '\\':
			k++
		case b == '"':
			in = !in
		case !in && IsSpace(b):
			return true
		}
	}
	return false
}

// spacedOf scans the container at the start of data (after whitespace) with Composite and
// returns the value's bytes and Spaced; ok is false when it is not a valid container.
func spacedOf(data []byte) (v []byte, spaced, ok bool) {
	var s Scanner
	s.SetLimit(0)
	i := SkipWS(data, 0)
	if i >= len(data) || data[i] != '{' && data[i] != '[' {
		return nil, false, false
	}
	end, c := s.Composite(data, i, 0)
	return data[i:end], s.Spaced(), c == OK
}

// checkSpaced checks Spaced on data against HasSpace: exactly on the portable path, and on
// the SIMD path never false for a value with whitespace (it may be true for a compact one).
func checkSpaced(t *testing.T, data []byte) {
	t.Helper()
	v, got, ok := spacedOf(data)
	if !ok {
		t.Fatalf("not a valid container: %q", data)
	}
	want := HasSpace(v)
	if got != want && !(simdOn && got) {
		t.Fatalf("Spaced() = %v, want %v (simd %v) for %q", got, want, simdOn, data)
	}
}

// TestSpaced puts whitespace in every position a value can hold it (after '[' and '{',
// around ':' and ',', before ']' and '}', nested) and inside strings (where it does not
// count), and checks Spaced against the reference, in short values (the portable code) and
// after 64 and more bytes of padding (the SIMD lane, with GOEXPERIMENT=simd).
func TestSpaced(t *testing.T) {
	f := func(in string, want bool) {
		t.Helper()
		for _, pad := range []string{"", strings.Repeat("p", 70), strings.Repeat("q", 130)} {
			for _, tail := range []string{"", " ", "\n", `,"id":1} `} {
				data := []byte(`[` + `"` + pad + `",` + in + `]` + tail)
				v, got, ok := spacedOf(data)
				if !ok {
					t.Fatalf("invalid %q", data)
				}
				if HasSpace(v) != want {
					t.Fatalf("reference says %v for %q", !want, data)
				}
				if got != want && !(simdOn && got) {
					t.Errorf("Spaced() = %v, want %v for %q", got, want, data)
				}
			}
		}
	}
	f(`{"a":[1,"b c",{"d":null}],"e":"\" ","f":true}`, false)
	f(`["a\tb","\\"," ",{"x y":"\n"}]`, false)
	f(`[]`, false)
	f(`{}`, false)
	for _, ws := range []string{" ", "\t", "\n", "\r", " \r\n\t "} {
		f(`[`+ws+`1]`, true)
		f(`[1`+ws+`]`, true)
		f(`[1,`+ws+`2]`, true)
		f(`[1`+ws+`,2]`, true)
		f(`{`+ws+`"a":1}`, true)
		f(`{"a"`+ws+`:1}`, true)
		f(`{"a":`+ws+`1}`, true)
		f(`{"a":1`+ws+`}`, true)
		f(`{"a":1,`+ws+`"b":2}`, true)
		f(`{"a":1`+ws+`,"b":2}`, true)
		f(`[[[`+ws+`]]]`, true)
		f(`[{"a":[{"b":`+ws+`"c"}]}]`, true)
		f(`[`+ws+`]`, true)
		f(`{`+ws+`}`, true)
	}
	f(`[" ",{" ":"a  b "}]`, false) // inside strings only (raw control bytes are not JSON there)
}

// TestSpacedEveryOffset inserts one whitespace byte at every place between two tokens of
// compact documents of every shape, and one inside every string, after prefixes that move
// it across the 64-byte blocks of the SIMD lane: Spaced must find every one outside a
// string. A document with no whitespace outside strings must be found compact on both
// paths: that is what lets the engine skip compacting an echo.
func TestSpacedEveryOffset(t *testing.T) {
	var docs [][]byte
	for _, sh := range shapes.All {
		doc := []byte(sh.Doc[:2000])
		if i := bytes.LastIndexByte(doc, ','); i > 0 {
			doc = append(doc[:i:i], ']')
		}
		var b bytes.Buffer
		if json.Compact(&b, doc) != nil {
			continue // the cut left an object open: the other shapes do
		}
		docs = append(docs, bytes.Clone(b.Bytes()))
	}
	docs = append(docs, []byte(`{"a":[1,2,{"b":"c d","e":[true,false,null]}],"f":{"g":-1.5e3,"h":"\"\\ "},"i":[]}`))
	if len(docs) < 3 {
		t.Fatalf("only %d documents", len(docs))
	}
	for _, doc := range docs {
		for _, pre := range []string{"", `{"pad":"` + strings.Repeat("p", 64) + `","doc":`} {
			end := ""
			if pre != "" {
				end = "}"
			}
			whole := []byte(pre + string(doc) + end)
			v, spaced, ok := spacedOf(whole)
			if !ok || spaced || HasSpace(v) {
				t.Fatalf("compact document: ok %v, Spaced %v, reference %v: %.80q", ok, spaced, HasSpace(v), whole)
			}
			in := false
			for k := 0; k < len(doc); k++ {
				b := doc[k]
				if in && b == '\\' { // nothing goes inside an escape
					if k++; doc[k] == 'u' {
						k += 4
					}
					continue
				}
				if b == '"' {
					in = !in
				}
				ws := " \n\t\r"[k%4]
				if in {
					ws = ' ' // the only whitespace a string holds as it is
				}
				if in || b == '"' || b == '{' || b == '[' || b == ':' || b == ',' || b == '}' || b == ']' {
					// inside a string, or after a quote or bracket or separator: between
					// two tokens, valid either way
					data := []byte(pre + string(doc[:k+1]) + string(ws) + string(doc[k+1:]) + end)
					checkSpaced(t, data)
				}
			}
		}
	}
}

package scan

import (
	"math/rand/v2"
	"testing"
)

// skipStringRef is SkipString the plain way: an escape takes the byte after its backslash.
func skipStringRef(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// TestSkipString compares SkipString with skipStringRef on strings with the closing quote, and
// runs of backslashes before quotes, at every offset around the word steps of indexQuote.
func TestSkipString(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alpha := []byte(`ab\"`)
	for n := 0; n < 20000; n++ {
		size := 1 + r.IntN(48)
		if n%100 == 0 {
			size += 200 // past the word steps, into IndexByte
		}
		data := make([]byte, size)
		data[0] = '"'
		for k := 1; k < size; k++ {
			data[k] = 'a'
			if r.IntN(4) == 0 {
				data[k] = alpha[r.IntN(len(alpha))]
			}
		}
		if got, want := SkipString(data, 0), skipStringRef(data, 0); got != want {
			t.Fatalf("SkipString(%q) = %d, want %d", data, got, want)
		}
	}
	for q := 1; q < 40; q++ { // one closing quote at q, nothing else to find
		data := []byte(`"` + string(make([]byte, 40)))
		for k := 1; k < len(data); k++ {
			data[k] = 'x'
		}
		data[q] = '"'
		if got := SkipString(data, 0); got != q+1 {
			t.Fatalf("quote at %d: SkipString = %d", q, got)
		}
		data[q-1] = '\\'
		if q > 1 && SkipString(data, 0) != -1 {
			t.Fatalf("escaped quote at %d: SkipString = %d, want -1", q, SkipString(data, 0))
		}
	}
}

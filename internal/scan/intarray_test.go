package scan

import (
	"bytes"
	"testing"
)

// checkIntArray: IntArray accepts only what Composite accepts, ending where Composite ends,
// compact, and hands back every other input at its start; at the depth limit it accepts
// nothing.
func checkIntArray(t *testing.T, data []byte, depth int) {
	t.Helper()
	var a, b Scanner
	a.SetLimit(3)
	b.SetLimit(3)
	a.spaced = true // IntArray must clear it, as Composite does on compact input
	j := a.IntArray(data, 0, depth)
	if j == 0 {
		return // handed back: Composite decides, with its own answer
	}
	end, c := b.Composite(data, 0, depth)
	switch {
	case c != OK || end != j:
		t.Fatalf("IntArray(%q, depth %d) = %d; Composite: %d, %v", data, depth, j, end, c)
	case a.Spaced() || HasSpace(data[:j]):
		t.Fatalf("IntArray(%q) = %d: Spaced %v, value %q", data, j, a.Spaced(), data[:j])
	case depth >= 3:
		t.Fatalf("IntArray(%q) accepted at depth %d, the limit 3", data, depth)
	}
}

// TestIntArray: every string of up to 7 bytes over the bytes that matter to integers and
// arrays after a '[', and longer values, against Composite.
func TestIntArray(t *testing.T) {
	alphabet := []byte("-019,] .e[")
	accepted := 0
	var gen func(prefix []byte, n int)
	gen = func(prefix []byte, n int) {
		for _, depth := range []int{0, 2, 3} {
			checkIntArray(t, prefix, depth)
		}
		var a Scanner
		a.SetLimit(3)
		if a.IntArray(prefix, 0, 0) > 0 {
			accepted++
		}
		if n == 0 {
			return
		}
		for _, b := range alphabet {
			gen(append(prefix, b), n-1)
		}
	}
	gen([]byte("["), 7)
	for _, s := range []string{"[1,2]]", "[1,2}", "[1 ]", "[1,-]", "[-01]", "[1,2,3", "[1,2,"} {
		for _, depth := range []int{0, 3} {
			checkIntArray(t, []byte(s), depth)
		}
	}
	if accepted < 1000 {
		t.Fatalf("IntArray accepted only %d inputs: the fast path is not taken", accepted)
	}
	for _, s := range []string{
		"[42,23]", "[1,2,3,4,5]", "[-1,0,-0]", "[123456789012345678901234567890]", "[0]",
		"[1,2,3]x", "[1,2,3],", "[1,2,3]}",
	} {
		checkIntArray(t, []byte(s), 0)
		var a Scanner
		a.SetLimit(3)
		if j := a.IntArray([]byte(s), 0, 0); j != bytes.IndexByte([]byte(s), ']')+1 {
			t.Errorf("IntArray(%q) = %d: not taken", s, j)
		}
	}
}

// FuzzIntArray: any bytes after a '[', against Composite.
func FuzzIntArray(f *testing.F) {
	for _, s := range []string{"42,23]", "1,-2,0]", "01]", "1.5]", "1e3]", "1,]", "]", " 1]", "-]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkIntArray(t, append([]byte("["), data...), 0)
	})
}

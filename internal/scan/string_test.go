package scan

import (
	"math/rand/v2"
	"testing"
)

// TestStringTail checks String against stringRest (the byte-at-a-time path String hands off
// to, the reference here) on every prefix of random strings: the word steps, the one word of 8
// to 15 bytes left and the last word read from the data's end give the same offset, escape
// flag and code, whatever the string holds and wherever the data ends.
func TestStringTail(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alpha := []byte("ab\"\\nu0\x1f\xc3\xa9\xff/")
	buf := make([]byte, 48)
	for n := 0; n < 5000; n++ {
		buf[0] = '"'
		for k := 1; k < len(buf); k++ {
			buf[k] = 'a'
			if r.IntN(5) == 0 {
				buf[k] = alpha[r.IntN(len(alpha))]
			}
		}
		for end := 1; end <= len(buf); end++ {
			data := buf[:end:end]
			gi, ge, gc := String(data, 0)
			wi, we, wc := stringRest(data, 1, false)
			if gi != wi || gc != wc || (gc == OK && ge != we) {
				t.Fatalf("String(%q) = %d, %v, %v; want %d, %v, %v", data, gi, ge, gc, wi, we, wc)
			}
		}
	}
}

package marshal

// NOTE: AppendValid compacts JSON that is known to be valid, so all it has
// to find is whitespace outside strings. plainPrefix looks for it eight
// bytes at a time: per word, exact byte masks of the quotes and of the
// bytes <= ' ' (the only such bytes valid JSON has outside strings are
// whitespace; inside strings only the space), and a prefix sum of the quote
// mask (one multiplication) tells which bytes lie inside a string. A
// backslash escapes the byte after it, in the same word or the next (a
// quote there does not end the string); a word holding two backslashes in
// a row is walked byte by byte.
// Already-compact input, the usual case, is then one pass of a few
// instructions a word and a single append.

import (
	"encoding/binary"
	"math/bits"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/scan"
)

// AppendValid appends src, which must be one JSON value that a scanner has
// already validated (such as params the engine's decoder checked), to dst
// without the whitespace between its tokens: what compact appends for it,
// without checking it again. Input that is already compact is one append.
func AppendValid(dst, src []byte) []byte {
	for {
		i := plainPrefix(src)
		dst = append(dst, src[:i]...)
		if i == len(src) {
			return dst
		}
		src = src[scan.SkipWS(src, i):] // outside a string: the rest starts outside one too
	}
}

const (
	lo7  = 0x7f7f7f7f7f7f7f7f
	hi   = 0x8080808080808080
	ones = 0x0101010101010101
)

// eqByte returns the high bit of each byte of w that equals c, and no
// other bit (exact per byte: no borrow crosses bytes).
func eqByte(w uint64, c byte) uint64 {
	y := w ^ ones*uint64(c)
	return ^((y&lo7 + lo7) | y) & hi
}

// ctlByte returns the high bit of each byte of w that is <= ' ', exactly.
func ctlByte(w uint64) uint64 {
	return ^((w&lo7 + ones*(0x80-'!')) | w) & hi
}

// plainPrefix returns the offset of the first whitespace byte of src (valid
// JSON, starting outside a string) that lies outside a string, or len(src)
// when there is none.
func plainPrefix(src []byte) int {
	// inside: hi when the word starts inside a string; esc: 0x80 when its
	// first byte is escaped (the previous word ended in a backslash).
	var inside, esc uint64
	base := unsafe.Pointer(unsafe.SliceData(src))
	i := 0
	for ; i <= len(src)-8; i += 8 {
		w := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(base, i))[:]) // in bounds: i+8 <= len(src)
		q, c := eqByte(w, '"'), ctlByte(w)
		if bs := eqByte(w, '\\'); bs|esc != 0 {
			k := 0
			if inside, esc, k = escWord(src[i:i+8], q, c, bs, inside, esc); k >= 0 {
				return i + k
			}
			continue
		}
		// Byte k of x counts the quotes in bytes 0..k, so its low bit
		// says whether a byte that is not a quote is inside a string
		// (flipped when the word started inside one).
		x := q >> 7 * ones
		if out := c &^ (x&ones<<7 ^ inside); out != 0 {
			return i + bits.TrailingZeros64(out)/8
		}
		inside ^= x >> 56 & 1 * hi
	}
	in, e := inside != 0, esc != 0
	for j, b := range src[i:] {
		if in, e = step(b, in, e); !in && b <= ' ' {
			return i + j
		}
	}
	return len(src)
}

// escWord is plainPrefix's step over a word that holds a backslash or
// starts escaped: its masks q, c and bs, the state before it, and the
// state after it, with the offset in the word of whitespace outside a
// string (-1: none). A backslash escapes the byte after it, so a quote
// there does not end the string; two backslashes in a row are walked byte
// by byte.
func escWord(word []byte, q, c, bs, inside, esc uint64) (uint64, uint64, int) {
	q, bs = q&^esc, bs&^esc
	if bs&(bs<<8) != 0 {
		in, e := inside != 0, esc != 0
		for j, b := range word {
			if in, e = step(b, in, e); !in && b <= ' ' {
				return 0, 0, j
			}
		}
		inside, esc = 0, 0
		if in {
			inside = hi
		}
		if e {
			esc = 0x80
		}
		return inside, esc, -1
	}
	q &^= bs << 8
	x := q >> 7 * ones
	if out := c &^ (x&ones<<7 ^ inside); out != 0 {
		return 0, 0, bits.TrailingZeros64(out) / 8
	}
	return inside ^ x>>56&1*hi, bs >> 63 << 7, -1
}

// step advances the string state over one byte b. A byte <= ' ' outside a
// string leaves the state outside (the caller stops there).
func step(b byte, in, esc bool) (bool, bool) {
	switch {
	case esc:
		return in, false
	case !in:
		return b == '"', false
	case b == '\\':
		return in, true
	}
	return b != '"', false
}

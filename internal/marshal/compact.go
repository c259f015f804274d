package marshal

// NOTE: compact is encoding/json's appendCompact with HTML escaping off, the
// treatment MarshalJSON output and json.RawMessage get: it checks that src
// is exactly one JSON value by the same grammar as encoding/json's scanner
// (strings are not checked for valid UTF-8, nesting stops at 10000) and
// appends it to dst without the whitespace between tokens. It is a
// recursive descent over int offsets; bytes are copied in runs between
// whitespace, so input that is already compact is one append and nothing
// is allocated beyond dst's growth.

import (
	"encoding/binary"
	"math/bits"
)

// maxNesting is encoding/json's scanner limit on nested arrays and objects.
const maxNesting = 10000

type compactor struct {
	src   []byte
	dst   []byte
	i     int // next byte to read
	start int // first byte of src not yet copied to dst
}

// compact appends the compacted src to dst, or returns dst and false if
// src is not one valid JSON value.
func compact(dst, src []byte) ([]byte, bool) {
	c := compactor{src: src, dst: dst}
	if !c.value(0) {
		return dst, false
	}
	if c.ws(); c.i != len(src) {
		return dst, false
	}
	return append(c.dst, src[c.start:]...), true
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// ws skips whitespace at c.i, first copying the run before it to dst.
func (c *compactor) ws() {
	i := c.i
	for i < len(c.src) && isSpace(c.src[i]) {
		i++
	}
	if i > c.i {
		c.dst = append(c.dst, c.src[c.start:c.i]...)
		c.start, c.i = i, i
	}
}

// next skips whitespace and returns the next byte, 0 at the end.
func (c *compactor) next() byte {
	if c.i < len(c.src) {
		if b := c.src[c.i]; b > ' ' {
			return b
		}
	}
	return c.nextSlow()
}

//go:noinline
func (c *compactor) nextSlow() byte {
	if c.ws(); c.i < len(c.src) {
		return c.src[c.i]
	}
	return 0
}

func (c *compactor) value(depth int) bool {
	switch c.next() {
	case '{':
		return c.object(depth + 1)
	case '[':
		return c.array(depth + 1)
	case '"':
		return c.str()
	case 't':
		return c.lit("true")
	case 'f':
		return c.lit("false")
	case 'n':
		return c.lit("null")
	}
	j := scanNumber(c.src, c.i)
	c.i = j
	return j >= 0
}

func (c *compactor) object(depth int) bool {
	if depth > maxNesting {
		return false
	}
	c.i++
	if c.next() == '}' {
		c.i++
		return true
	}
	for {
		if c.next() != '"' || !c.str() || c.next() != ':' {
			return false
		}
		c.i++
		if !c.value(depth) {
			return false
		}
		switch c.next() {
		case ',':
			c.i++
		case '}':
			c.i++
			return true
		default:
			return false
		}
	}
}

func (c *compactor) array(depth int) bool {
	if depth > maxNesting {
		return false
	}
	c.i++
	if c.next() == ']' {
		c.i++
		return true
	}
	for {
		if !c.value(depth) {
			return false
		}
		switch c.next() {
		case ',':
			c.i++
		case ']':
			c.i++
			return true
		default:
			return false
		}
	}
}

func (c *compactor) lit(s string) bool {
	if len(c.src)-c.i < len(s) || string(c.src[c.i:c.i+len(s)]) != s {
		return false
	}
	c.i += len(s)
	return true
}

// str reads the string starting at c.i (a '"'): control characters are an
// error, escapes must be valid, any other byte passes as it is.
func (c *compactor) str() bool {
	s, i := c.src, c.i+1
	for {
		i = plainRun(s, i)
		for i < len(s) && plain[s[i]] {
			i++
		}
		if i == len(s) {
			return false
		}
		switch s[i] {
		case '"':
			c.i = i + 1
			return true
		case '\\':
			n := escapeLen(s[i+1:])
			if n == 0 {
				return false
			}
			i += 1 + n
		default: // a control character
			return false
		}
	}
}

// plainRun skips bytes of s from i that stand for themselves in a string,
// eight at a time; it stops at or before the first that may not.
func plainRun(s []byte, i int) int {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(s) {
		x := binary.LittleEndian.Uint64(s[i:])
		q, b := x^('"'*lsb), x^('\\'*lsb)
		if m := ((x-0x20*lsb)&^x | (q-lsb)&^q | (b-lsb)&^b) & msb; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	return i
}

// plain marks the bytes that stand for themselves in a JSON string.
var plain = func() (t [256]bool) {
	for b := 0x20; b < 256; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// escapeLen is the length of the valid escape that s starts with (after
// the backslash), 0 if there is none.
func escapeLen(s []byte) int {
	if len(s) == 0 {
		return 0
	}
	switch s[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if len(s) < 5 {
			return 0
		}
		for _, h := range s[1:5] {
			if !isHex(h) {
				return 0
			}
		}
		return 5
	}
	return 0
}

func isHex(b byte) bool { return '0' <= b && b <= '9' || 'a' <= b|0x20 && b|0x20 <= 'f' }

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// scanNumber returns the end of the JSON number that starts at s[i]
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or -1 if there is none.
// It is the grammar of encoding/json's scanner and of its isValidNumber.
func scanNumber[B []byte | string](s B, i int) int {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i+1)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		if i = digits(s, i+1); !isDigit(s[i-1]) {
			return -1
		}
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if j := digits(s, i); j > i {
			return j
		}
		return -1
	}
	return i
}

func digits[B []byte | string](s B, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

package marshal

// NOTE: compact is encoding/json's appendCompact with HTML escaping off, the
// treatment MarshalJSON output and json.RawMessage get: it checks that src
// is exactly one JSON value by the grammar of encoding/json's scanner
// (strings need not be valid UTF-8, as encoding/json accepts from a
// Marshaler; nesting stops at decode's limit, 1000 levels, not
// encoding/json's 10000: the engine sends no result its own decoder, and
// its client's, would refuse) and appends it to dst without
// the whitespace between tokens. The tokens are scanned by internal/scan
// (decode's scanner; its lax String lets bytes that are not UTF-8
// through); the structure is a recursive descent over int offsets, and
// bytes are copied in runs between whitespace, so input that is already
// compact is one append and nothing is allocated beyond dst's growth.

import "github.com/jetrpc/jetrpc/internal/scan"

// maxNesting is the one limit on nested arrays and objects (decode's).
const maxNesting = scan.DefaultMaxDepth

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

// ws skips whitespace at c.i, first copying the run before it to dst.
func (c *compactor) ws() {
	if i := scan.SkipWS(c.src, c.i); i > c.i {
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
	b := c.next()
	switch b {
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
	if b != '-' && b-'0' >= 10 { // also 0, the end
		return false
	}
	j, code := scan.Number(c.src, c.i)
	c.i = j
	return code == scan.OK
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
	j, code := scan.Literal(c.src, c.i, s)
	c.i = j
	return code == scan.OK
}

// str reads the string starting at c.i (a '"'): control characters are an
// error, escapes must be valid, any other byte passes as it is.
func (c *compactor) str() bool {
	j, _, code := scan.String(c.src, c.i)
	if code == scan.UTF8 { // bytes that are not UTF-8 pass
		j, _, code = scan.StringLax(c.src, c.i)
	}
	c.i = j
	return code == scan.OK || code == scan.UTF8
}

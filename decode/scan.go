package decode

// NOTE on how the scanner is organised.
//
// Everything works on one complete message held in a []byte plus an int offset, in the shape of
// go-json-experiment's jsonwire Consume* functions: a function gets the offset of the first byte
// of what it scans and returns the offset just past it, with a code (codeOK, or which sentinel
// error; on error the offset is where the problem was found). Codes instead of error values keep
// the hot path free of interface boxing; Parse turns a code into the Parser's own SyntaxError.
// Running out of bytes is always codeTruncated, so every proper prefix of an object reports it.
//
// Bottom up:
//
//   - skipWS: an inlined test for "no whitespace here" and skipWSSlow for the rest.
//   - scanString: checks 8 bytes at a time (SWAR) for a byte that needs attention (a quote,
//     a backslash, a control byte, or a non-ASCII byte), then handles that one byte on a slow
//     path: scanEscape for escapes, scanRune for multi-byte UTF-8. Plain ASCII runs cost about
//     one load and a few ALU operations per 8 bytes.
//   - scanNumber, scanLiteral and scalar: the other single-token values.
//   - (*scanner).composite: any array or object, iteratively. The kind of each open container
//     (object or array) is one bit in a bit stack (a fixed array covering 1024 levels, a slice
//     beyond that), so nesting is bounded by the depth limit, never by the goroutine stack.
//     It is a small state machine written with goto (open, key, value, next, closed) so that
//     the state lives in registers.
//
// parser.go builds the envelope object and the batch array on top of these and classifies. There,
// fastKey recognises the usual spellings of the known member names ("method", "params", "id",
// ...) with one 8-byte load, so most envelope keys are never scanned as strings.

import (
	"encoding/binary"
	"math/bits"
)

// Byte classes (read-only after package initialisation).
var (
	// plain reports the bytes that need no attention inside a string: not '"', not '\\',
	// not a control byte, not part of a multi-byte UTF-8 sequence.
	plain = byteSet(func(b byte) bool { return b >= 0x20 && b < 0x80 && b != '"' && b != '\\' })
	// hexDigit reports the bytes allowed in a \u escape.
	hexDigit = byteSet(func(b byte) bool { return b-'0' < 10 || b|0x20-'a' < 6 })
)

func byteSet(f func(byte) bool) (t [256]bool) {
	for b := range 256 {
		t[b] = f(byte(b))
	}
	return t
}

// SWAR constants: one in the low / high bit of each of 8 bytes.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// isSpace reports whether b is JSON whitespace.
func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\r' || b == '\t' }

// skipWS returns the offset of the first non-whitespace byte at or after i (len(data) if none).
func skipWS(data []byte, i int) int {
	if i < len(data) && data[i] > ' ' {
		return i
	}
	return skipWSSlow(data, i)
}

func skipWSSlow(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// scanString scans the string token whose opening quote is at data[i]. It returns the offset
// after the closing quote and whether the string contains a backslash.
//
// Fast path: 8 bytes at a time. A byte is flagged when it is < 0x20, '"', '\\' or has its high
// bit set. Only a flagged byte can borrow in the subtractions, so the lowest flagged byte is exact
// (false positives only appear above a true one). The common case, a short ASCII string whose
// first flagged byte is the closing quote, never leaves this function.
func scanString(data []byte, i int) (int, bool, code) {
	i++
	for i+8 <= len(data) {
		x := binary.LittleEndian.Uint64(data[i:])
		if m := ((x - 0x20*lsb) | ((x ^ '"'*lsb) - lsb) | ((x ^ '\\'*lsb) - lsb) | x) & msb; m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if data[i] == '"' {
				return i + 1, false, codeOK
			}
			break
		}
		i += 8
	}
	return scanStringSlow(data, i)
}

// scanStringSlow goes on with the string at data[i], where a byte may need attention.
func scanStringSlow(data []byte, i int) (int, bool, code) {
	esc := false
	var c code
	for {
		for i < len(data) && plain[data[i]] {
			i++
		}
		if i >= len(data) {
			return i, esc, codeTruncated
		}
		switch b := data[i]; {
		case b == '"':
			return i + 1, esc, codeOK
		case b == '\\':
			esc = true
			if i, c = scanEscape(data, i); c != codeOK {
				return i, esc, c
			}
		case b < 0x20:
			return i, esc, codeSyntax
		default:
			if i, c = scanRune(data, i); c != codeOK {
				return i, esc, c
			}
		}
		// Back to 8 bytes at a time.
		for i+8 <= len(data) {
			x := binary.LittleEndian.Uint64(data[i:])
			if m := ((x - 0x20*lsb) | ((x ^ '"'*lsb) - lsb) | ((x ^ '\\'*lsb) - lsb) | x) & msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
	}
}

// scanEscape scans the escape sequence whose backslash is at data[i].
func scanEscape(data []byte, i int) (int, code) {
	if i+1 >= len(data) {
		return len(data), codeTruncated
	}
	switch data[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, codeOK
	case 'u':
		for k := i + 2; k < i+6; k++ {
			if k >= len(data) {
				return k, codeTruncated
			}
			if !hexDigit[data[k]] {
				return k, codeSyntax
			}
		}
		return i + 6, codeOK
	}
	return i + 1, codeSyntax
}

// scanRune checks the multi-byte UTF-8 sequence starting at data[i] (data[i] >= 0x80): no
// overlong forms, no surrogates, nothing above U+10FFFF. Errors are reported at i.
func scanRune(data []byte, i int) (int, code) {
	b := data[i]
	n, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case b < 0xC2: // continuation byte, or an overlong 2-byte lead
		return i, codeUTF8
	case b < 0xE0:
		n = 2
	case b < 0xF0:
		n = 3
		if b == 0xE0 {
			lo = 0xA0 // overlong
		} else if b == 0xED {
			hi = 0x9F // surrogates
		}
	case b < 0xF5:
		n = 4
		if b == 0xF0 {
			lo = 0x90 // overlong
		} else if b == 0xF4 {
			hi = 0x8F // above U+10FFFF
		}
	default:
		return i, codeUTF8
	}
	if i+1 >= len(data) {
		return len(data), codeTruncated
	}
	if c := data[i+1]; c < lo || c > hi {
		return i, codeUTF8
	}
	for k := i + 2; k < i+n; k++ {
		if k >= len(data) {
			return len(data), codeTruncated
		}
		if data[k]&0xC0 != 0x80 {
			return i, codeUTF8
		}
	}
	return i + n, codeOK
}

// scanNumber scans the number token starting at data[i] ('-' or a digit):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(data []byte, i int) (int, code) {
	if data[i] == '-' {
		i++
		if i >= len(data) {
			return i, codeTruncated
		}
	}
	switch b := data[i]; {
	case b == '0':
		i++
	case b-'1' < 9:
		i++
		for i < len(data) && data[i]-'0' < 10 {
			i++
		}
	default:
		return i, codeSyntax
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) {
			return i, codeTruncated
		}
		if data[i]-'0' >= 10 {
			return i, codeSyntax
		}
		i++
		for i < len(data) && data[i]-'0' < 10 {
			i++
		}
	}
	if i < len(data) && data[i]|0x20 == 'e' {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) {
			return i, codeTruncated
		}
		if data[i]-'0' >= 10 {
			return i, codeSyntax
		}
		i++
		for i < len(data) && data[i]-'0' < 10 {
			i++
		}
	}
	return i, codeOK
}

// plainInt returns the end of a one- or two-digit unsigned integer (no
// leading zero) at data[i] that a ',', ']' or '}' follows, or i when data[i:]
// is anything else (then scanNumber decides). Small enough to inline, it
// spares the call for the usual ids and small params.
func plainInt(data []byte, i int) int {
	if i+2 < len(data) && data[i]-'0' < 10 {
		j := i + 1
		if data[i] != '0' && data[j]-'0' < 10 {
			j++
		}
		if b := data[j]; b == ',' || b == ']' || b == '}' {
			return j
		}
	}
	return i
}

// scanLiteral scans lit (true, false or null) at data[i].
func scanLiteral(data []byte, i int, lit string) (int, code) {
	if i+len(lit) <= len(data) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), codeOK
	}
	for k := 0; k < len(lit); k++ {
		if i+k >= len(data) {
			return len(data), codeTruncated
		}
		if data[i+k] != lit[k] {
			return i + k, codeSyntax
		}
	}
	return i + len(lit), codeOK
}

// scalar scans the non-container value starting at data[i] (i < len(data)).
func scalar(data []byte, i int) (int, code) {
	switch b := data[i]; b {
	case '"':
		i, _, c := scanString(data, i)
		return i, c
	case 't':
		return scanLiteral(data, i, "true")
	case 'f':
		return scanLiteral(data, i, "false")
	case 'n':
		return scanLiteral(data, i, "null")
	default:
		if b == '-' || b-'0' < 10 {
			return scanNumber(data, i)
		}
	}
	return i, codeSyntax
}

// smallStack is how many 64-level words of the container bit stack live inside the scanner.
const smallStack = 16

// scanner holds what validating nested values needs beyond the input: the depth limit and the
// bit stack of open container kinds (1 = object). Bit d is the container at depth d+1.
type scanner struct {
	maxDepth int
	small    [smallStack]uint64
	big      []uint64 // words beyond small, only when maxDepth > 64*smallStack
}

// setLimit applies maxDepth (<= 0 means DefaultMaxDepth) and sizes the bit stack; it allocates
// only the first time a limit above 1024 is used.
func (s *scanner) setLimit(maxDepth int) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	s.maxDepth = maxDepth
	if need := (maxDepth+63)>>6 - smallStack; need > len(s.big) {
		s.big = make([]uint64, need)
	}
}

func (s *scanner) push(d int, obj bool) {
	w, bit := d>>6, uint64(1)<<(d&63)
	if w < smallStack {
		if obj {
			s.small[w] |= bit
		} else {
			s.small[w] &^= bit
		}
		return
	}
	if obj {
		s.big[w-smallStack] |= bit
	} else {
		s.big[w-smallStack] &^= bit
	}
}

func (s *scanner) isObject(d int) bool {
	w, bit := d>>6, uint64(1)<<(d&63)
	if w < smallStack {
		return s.small[w]&bit != 0
	}
	return s.big[w-smallStack]&bit != 0
}

// value scans any value starting at data[i] (i < len(data)); depth containers are open around it.
func (s *scanner) value(data []byte, i, depth int) (int, code) {
	if b := data[i]; b == '{' || b == '[' {
		return s.composite(data, i, depth)
	}
	return scalar(data, i)
}

// composite scans the array or object opening at data[i]; depth containers are open around it.
func (s *scanner) composite(data []byte, i, depth int) (int, code) {
	var (
		base = depth
		obj  bool
		c    code
		b    byte
	)
open: // data[i] is '{' or '['
	if depth >= s.maxDepth {
		return i, codeDepth
	}
	obj = data[i] == '{'
	s.push(depth, obj)
	depth++
	i = skipWS(data, i+1)
	if i >= len(data) {
		return i, codeTruncated
	}
	if b = data[i]; b == '}' && obj || b == ']' && !obj {
		i++
		goto closed
	}
	if !obj {
		goto value
	}
key: // data[i] should open a member name
	if data[i] != '"' {
		return i, codeSyntax
	}
	if i, _, c = scanString(data, i); c != codeOK {
		return i, c
	}
	if i+1 < len(data) && data[i] == ':' && data[i+1] > ' ' {
		i++
	} else if i, c = consumeColonSlow(data, i); c != codeOK {
		return i, c
	}
value: // data[i] should start a value
	switch b = data[i]; b {
	case '"':
		i, _, c = scanString(data, i)
	case '{', '[':
		goto open
	default:
		if j := plainInt(data, i); j > i {
			i = j // the common small integer, without a call
		} else if b == '-' || b-'0' < 10 {
			i, c = scanNumber(data, i)
		} else {
			i, c = scalar(data, i)
		}
	}
	if c != codeOK {
		return i, c
	}
next: // after a value inside the innermost open container
	if i = skipWS(data, i); i >= len(data) {
		return i, codeTruncated
	}
	b = data[i]
	if b == ',' {
		if i = skipWS(data, i+1); i >= len(data) {
			return i, codeTruncated
		}
		if obj {
			goto key
		}
		goto value
	}
	if !(b == '}' && obj || b == ']' && !obj) {
		return i, codeSyntax
	}
	i++
closed: // a container just closed
	depth--
	if depth == base {
		return i, codeOK
	}
	obj = s.isObject(depth - 1)
	goto next
}

// consumeColonSlow consumes the ':' after a member name at data[i] and the
// whitespace around it, returning the offset of the member's value. Callers
// handle the common `"name":value` inline first (a function with both paths
// is over the inlining budget).
func consumeColonSlow(data []byte, i int) (int, code) {
	if i = skipWS(data, i); i >= len(data) {
		return i, codeTruncated
	}
	if data[i] != ':' {
		return i, codeSyntax
	}
	if i = skipWS(data, i+1); i >= len(data) {
		return i, codeTruncated
	}
	return i, codeOK
}

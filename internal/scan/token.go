package scan

// NOTE on how the token scanners are organised, bottom up:
//
//   - SkipWS: an inlined test for "no whitespace here" and skipWSSlow for the rest.
//   - String: checks 8 bytes at a time (SWAR) for a byte that needs attention (a quote,
//     a backslash, a control byte, or a non-ASCII byte), then handles that one byte on a slow
//     path: escape for escapes, scanRune for multi-byte UTF-8. Plain ASCII runs cost about
//     one load and a few ALU operations per 8 bytes.
//   - Number, PlainInt, Literal and Scalar: the other single-token values.
//   - With GOEXPERIMENT=simd, a string longer than 16 bytes goes on 64 bytes a step
//     (stringBlocks, simd_amd64.go).
//
// value.go builds nested values on these (the Scanner); skip.go and unquote.go read values
// that were validated.

import (
	"encoding/binary"
	"math/bits"
	"strings"
)

// Byte classes (read-only after package initialisation).
var (
	// plain reports the bytes that need no attention inside a string: not '"', not '\\',
	// not a control byte, not part of a multi-byte UTF-8 sequence.
	plain = byteSet(func(b byte) bool { return b >= 0x20 && b < 0x80 && b != '"' && b != '\\' })
	// hexDigit reports the bytes allowed in a \u escape.
	hexDigit = byteSet(func(b byte) bool { return b-'0' < 10 || b|0x20-'a' < 6 })
	// shortEscape reports the bytes that complete a two-character escape after a backslash.
	shortEscape = byteSet(func(b byte) bool { return strings.IndexByte(`"\\/bfnrt`, b) >= 0 })
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

// special flags the bytes of x (8 bytes, little endian) that need attention inside a string:
// < 0x20, '"', '\\' or >= 0x80. Only a flagged byte can borrow in the subtractions, so the
// lowest flagged byte is exact (false positives only appear above a true one).
func special(x uint64) uint64 {
	return (x | (x - 0x20*lsb) | ((x ^ '"'*lsb) - lsb) | ((x ^ '\\'*lsb) - lsb)) & msb
}

// IsSpace reports whether b is JSON whitespace.
func IsSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\r' || b == '\t' }

// SkipWS returns the offset of the first non-whitespace byte at or after i (len(data) if none).
func SkipWS(data []byte, i int) int {
	if i < len(data) && data[i] > ' ' {
		return i
	}
	return skipWSSlow(data, i)
}

func skipWSSlow(data []byte, i int) int {
	for i < len(data) && IsSpace(data[i]) {
		i++
	}
	return i
}

// String scans the string token whose opening quote is at data[i]. It returns the offset
// after the closing quote and whether the string contains a backslash.
//
// Fast path: 8 bytes at a time. A byte is flagged when it is < 0x20, '"', '\\' or has its high
// bit set. Only a flagged byte can borrow in the subtractions, so the lowest flagged byte is exact
// (false positives only appear above a true one). The common case, a short ASCII string whose
// first flagged byte is the closing quote, never leaves this function.
func String(data []byte, i int) (int, bool, Code) {
	i++
	for i+16 <= len(data) { // two words a step: one bounds check, the constants loaded once
		w := data[i : i+16 : i+16]
		if m := special(binary.LittleEndian.Uint64(w)); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			goto attention
		}
		if m := special(binary.LittleEndian.Uint64(w[8:])); m != 0 {
			i += 8 + bits.TrailingZeros64(m)>>3
			goto attention
		}
		i += 16
		if simdOn && i+64 <= len(data) { // a long string: 64 bytes a step
			j, esc, done := stringBlocks(data, i)
			if done {
				return j, esc, OK
			}
			return stringRest(data, j, esc)
		}
	}
	if i+8 <= len(data) { // 8 to 15 bytes left: a method name or id near the message's end
		if m := special(binary.LittleEndian.Uint64(data[i : i+8])); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			goto attention
		}
		i += 8
	}
	if n := len(data) - i; n > 0 && len(data) >= 8 { // the last n < 8 bytes: the top of the last word
		m := special(binary.LittleEndian.Uint64(data[len(data)-8:]) >> (64 - 8*n))
		if k := bits.TrailingZeros64(m) >> 3; k < n { // the zeros shifted in are flagged above the rest
			i += k
			goto attention
		}
		return len(data), false, Truncated
	}
	return stringRest(data, i, false)
attention:
	if data[i] == '"' {
		return i + 1, false, OK
	}
	return stringRest(data, i, false)
}

// StringLax is String letting bytes that are not UTF-8 through, as encoding/json does: it
// returns UTF8 only when there were some (the string's end and escape flag are then valid).
func StringLax(data []byte, i int) (int, bool, Code) {
	end, esc, c := String(data, i)
	if c == UTF8 {
		return laxRest(data, end, esc, c)
	}
	return end, esc, c
}

// laxRest goes on with a string where a scanner stopped at data[i] with c: past each byte
// that is not UTF-8 (then the result is UTF8 unless something else is wrong).
func laxRest(data []byte, i int, esc bool, c Code) (int, bool, Code) {
	bad := false
	for c == UTF8 {
		bad = true
		i, esc, c = stringRest(data, i+1, esc)
	}
	if bad && c == OK {
		c = UTF8
	}
	return i, esc, c
}

// stringRest goes on with the string at data[i], where a byte may need attention; esc says
// whether a backslash came before. The two-character escapes (\n, \", \\ ...) are checked
// in line and the 8-byte scan resumes right after them, so escape-heavy strings stay on the
// fast path; \u escapes, UTF-8 and errors take the calls.
func stringRest(data []byte, i int, esc bool) (int, bool, Code) {
	var c Code
	for {
		if simdOn && i+64 <= len(data) {
			var e, done bool
			if i, e, done = stringBlocks(data, i); done {
				return i, esc || e, OK
			}
			esc = esc || e
		}
		for i+8 <= len(data) {
			if m := special(binary.LittleEndian.Uint64(data[i : i+8])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto attention
			}
			i += 8
		}
		for i < len(data) && plain[data[i]] {
			i++
		}
		if i >= len(data) {
			return i, esc, Truncated
		}
	attention: // data[i] needs attention
		switch b := data[i]; {
		case b == '"':
			return i + 1, esc, OK
		case b == '\\':
			esc = true
			if i+6 <= len(data) {
				if e := data[i+1]; shortEscape[e] {
					i += 2
					continue
				} else if e == 'u' && hexDigit[data[i+2]] && hexDigit[data[i+3]] && hexDigit[data[i+4]] && hexDigit[data[i+5]] {
					i += 6
					continue
				}
			}
			if i, c = escape(data, i); c != OK {
				return i, esc, c
			}
		case b < 0x20:
			return i, esc, Syntax
		default:
			if i, c = scanRune(data, i); c != OK {
				return i, esc, c
			}
		}
	}
}

// escape scans the escape sequence whose backslash is at data[i].
func escape(data []byte, i int) (int, Code) {
	if i+1 >= len(data) {
		return len(data), Truncated
	}
	switch data[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, OK
	case 'u':
		for k := i + 2; k < i+6; k++ {
			if k >= len(data) {
				return k, Truncated
			}
			if !hexDigit[data[k]] {
				return k, Syntax
			}
		}
		return i + 6, OK
	}
	return i + 1, Syntax
}

// scanRune checks the multi-byte UTF-8 sequence starting at data[i] (data[i] >= 0x80): no
// overlong forms, no surrogates, nothing above U+10FFFF. Errors are reported at i.
func scanRune(data []byte, i int) (int, Code) {
	b := data[i]
	n, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case b < 0xC2: // continuation byte, or an overlong 2-byte lead
		return i, UTF8
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
		return i, UTF8
	}
	if i+1 >= len(data) {
		return len(data), Truncated
	}
	if c := data[i+1]; c < lo || c > hi {
		return i, UTF8
	}
	for k := i + 2; k < i+n; k++ {
		if k >= len(data) {
			return len(data), Truncated
		}
		if data[k]&0xC0 != 0x80 {
			return i, UTF8
		}
	}
	return i + n, OK
}

// Number scans the number token starting at data[i] ('-' or a digit):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func Number(data []byte, i int) (int, Code) {
	if data[i] == '-' {
		i++
		if i >= len(data) {
			return i, Truncated
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
		return i, Syntax
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) {
			return i, Truncated
		}
		if data[i]-'0' >= 10 {
			return i, Syntax
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
			return i, Truncated
		}
		if data[i]-'0' >= 10 {
			return i, Syntax
		}
		i++
		for i < len(data) && data[i]-'0' < 10 {
			i++
		}
	}
	return i, OK
}

// IsNumber reports whether num is exactly one JSON number token.
func IsNumber(num []byte) bool {
	if len(num) == 0 {
		return false
	}
	end, c := Number(num, 0)
	return c == OK && end == len(num)
}

// PlainInt returns the end of a one- or two-digit unsigned integer (no
// leading zero) at data[i] that a ',', ']' or '}' follows, or i when data[i:]
// is anything else (then Number decides). Small enough to inline, it
// spares the call for the usual ids and small params.
func PlainInt(data []byte, i int) int {
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

// IntAt reads the integer at data[i:last]: an optional '-' and 1 to 18
// digits (so that it cannot overflow), returning its magnitude, its sign
// and where its digits end; end is 0 for anything else. It checks nothing
// more: a leading zero, or a fraction or exponent after the digits, are
// for the caller to refuse or not (params already validated need not).
func IntAt(data []byte, i, last int) (x uint64, neg bool, end int) {
	if i < last && data[i] == '-' {
		neg = true
		i++
	}
	start := i
	for ; i < last; i++ {
		d := data[i] - '0'
		if d > 9 {
			break
		}
		x = x*10 + uint64(d)
	}
	if n := i - start; n == 0 || n > 18 {
		return 0, false, 0
	}
	return x, neg, i
}

// Literal scans lit (true, false or null) at data[i].
func Literal(data []byte, i int, lit string) (int, Code) {
	if i+len(lit) <= len(data) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), OK
	}
	return literalSlow(data, i, lit)
}

// literalSlow is Literal where data[i:] is not lit: it finds the first byte that differs.
//
//go:noinline
func literalSlow(data []byte, i int, lit string) (int, Code) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(data) {
			return len(data), Truncated
		}
		if data[i+k] != lit[k] {
			return i + k, Syntax
		}
	}
	return i + len(lit), OK
}

// Scalar scans the non-container value starting at data[i] (i < len(data)).
func Scalar(data []byte, i int) (int, Code) {
	switch b := data[i]; b {
	case '"':
		i, _, c := String(data, i)
		return i, c
	case 't':
		return Literal(data, i, "true")
	case 'f':
		return Literal(data, i, "false")
	case 'n':
		return Literal(data, i, "null")
	default:
		if b == '-' || b-'0' < 10 {
			return Number(data, i)
		}
	}
	return i, Syntax
}

// ColonSlow consumes the ':' after a member name at data[i] and the
// whitespace around it, returning the offset of the member's value. Callers
// handle the common `"name":value` inline first (a function with both paths
// is over the inlining budget).
func ColonSlow(data []byte, i int) (int, Code) {
	if i = SkipWS(data, i); i >= len(data) {
		return i, Truncated
	}
	if data[i] != ':' {
		return i, Syntax
	}
	if i = SkipWS(data, i+1); i >= len(data) {
		return i, Truncated
	}
	return i, OK
}

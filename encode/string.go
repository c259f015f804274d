package encode

import (
	"math/bits"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// NOTE: AppendString is split in two. The fast path (AppendString plus
// plainPrefix) handles strings that are printable ASCII without '"' and '\',
// which covers nearly every method name, message and key: one scan, eight
// bytes at a time (SWAR), then one copy. Anything else continues in
// appendStringSlow from the first byte that needs attention; it copies plain
// runs in one append each, accepts common valid UTF-8 sequences inline and
// falls back to utf8.DecodeRuneInString for the rest, escaping exactly as
// encoding/json does with HTML escaping off.

const hexDigits = "0123456789abcdef"

// escapeTable classifies each byte: 0 is copied as it is; escUTF8 marks the
// first byte of a multi-byte sequence (or an invalid byte), which must be
// checked as UTF-8; 'u' means \u00XX; any other value is the character of a
// two-byte escape (\n, \", ...).
var escapeTable = func() (t [256]byte) {
	for b := range 0x20 {
		t[b] = 'u'
	}
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = 'b', 'f', 'n', 'r', 't'
	t['"'], t['\\'] = '"', '\\'
	for b := utf8.RuneSelf; b < 256; b++ {
		t[b] = escUTF8
	}
	return t
}()

const escUTF8 = 1

// AppendString appends s to dst as a JSON string with quotes. It escapes '"',
// '\' and control characters (\b \f \n \r \t in short form, the others as
// \u00XX), replaces every byte that is not part of valid UTF-8 with \ufffd
// and escapes U+2028 and U+2029 as \u2028 and \u2029. '<', '>' and '&' are
// not escaped. The output is byte-identical to encoding/json's with
// SetEscapeHTML(false).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	if i := plainPrefix(s); i < len(s) {
		return append(appendStringSlow(dst, s, i), '"')
	}
	dst = append(dst, s...)
	return append(dst, '"')
}

// AppendStringContent appends s escaped as AppendString does, without the
// quotes: the inside of a JSON string, for a writer that produces one
// string in pieces. A piece must not end inside a UTF-8 sequence (its
// bytes would each become \ufffd); such a writer holds them back.
func AppendStringContent(dst []byte, s string) []byte {
	if i := plainPrefix(s); i < len(s) {
		return appendStringSlow(dst, s, i)
	}
	return append(dst, s...)
}

// AppendStringBytes is AppendString for a byte slice.
func AppendStringBytes(dst, s []byte) []byte {
	return AppendString(dst, bytesconv.B2S(s))
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specialMask has the high bit set in the lowest byte of x that is a control
// character, '"', '\' or >= 0x80 (and possibly in higher bytes), and is zero
// when there is none. These are the classic "has zero byte" / "has byte less
// than n" tests; a borrow only starts at a byte that matches, so the lowest
// flagged byte is always a real match.
func specialMask(x uint64) uint64 {
	q := x ^ (lsb * '"')
	bs := x ^ (lsb * '\\')
	return ((x-lsb*0x20) & ^x | (q-lsb)&^q | (bs-lsb)&^bs | x) & msb
}

// load64 reads s[i:i+8] little-endian; the compiler merges it into one load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plainPrefix returns the length of the longest prefix of s that can be
// copied without escaping or UTF-8 checks.
func plainPrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if m := specialMask(load64(s, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if escapeTable[s[i]] != 0 {
			return i
		}
	}
	return len(s)
}

// appendStringSlow continues AppendString after the opening quote, where
// s[:i] is known to need no escaping and s[i] needs attention; it does not
// append the closing quote.
func appendStringSlow(dst []byte, s string, i int) []byte {
	start := 0
	for i < len(s) {
		b := s[i]
		switch e := escapeTable[b]; e {
		case 0:
			i += plainPrefix(s[i:])
			continue
		case escUTF8:
			if n := validSeq(s, i); n > 0 {
				i += n // valid UTF-8 stays in the plain run
				continue
			}
		default:
			dst = append(dst, s[start:i]...)
			if e == 'u' {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			} else {
				dst = append(dst, '\\', e)
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		dst = append(dst, s[start:i]...)
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default: // 4-byte sequences and the 3-byte ones validSeq leaves out
			dst = append(dst, s[i:i+size]...)
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// validSeq returns the length of the valid, copyable UTF-8 sequence at s[i]
// for the common 2- and 3-byte cases, and 0 when utf8.DecodeRuneInString
// must decide (invalid bytes, 4-byte sequences, lead bytes E0 and ED with
// their range rules, and U+2028/U+2029).
func validSeq(s string, i int) int {
	b := s[i]
	switch {
	case b >= 0xC2 && b <= 0xDF:
		if i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			return 2
		}
	case b >= 0xE1 && b <= 0xEF && b != 0xED:
		if i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 &&
			(b != 0xE2 || s[i+1] != 0x80 || s[i+2]&^1 != 0xA8) {
			return 3
		}
	}
	return 0
}

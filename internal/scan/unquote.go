package scan

import (
	"bytes"
	"unicode/utf8"
)

// AppendUnescaped appends the unescaped form of the string contents s (the bytes between the
// quotes) to dst; it reports false, with what was appended so far, at a malformed escape. A \u
// escape of a lone surrogate becomes U+FFFD, as in encoding/json. The result is never longer
// than s, and it may be written over s itself (AppendUnescaped(s[:0], s)): each escape is read
// before its shorter replacement is written.
func AppendUnescaped(dst, s []byte) ([]byte, bool) {
	for {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			return append(dst, s...), true
		}
		dst = append(dst, s[:k]...)
		r, n := DecodeEscape(s[k:])
		if n == 0 {
			return dst, false
		}
		dst = utf8.AppendRune(dst, r)
		s = s[k+n:]
	}
}

// DecodeEscape decodes the escape sequence at the start of s (s[0] == '\\') and returns the rune
// and the number of bytes used, or n == 0 when it is malformed. A surrogate pair of \u escapes
// decodes to one rune; a lone surrogate to U+FFFD.
func DecodeEscape(s []byte) (r rune, n int) {
	if len(s) < 2 {
		return 0, 0
	}
	switch s[1] {
	case '"', '\\', '/':
		return rune(s[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r = Hex4(s[2:])
		if r < 0 {
			return 0, 0
		}
		if r < 0xD800 || r >= 0xE000 {
			return r, 6
		}
		if r < 0xDC00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r2 := Hex4(s[8:]); r2 >= 0xDC00 && r2 < 0xE000 {
				return 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00), 12
			}
		}
		return utf8.RuneError, 6
	}
	return 0, 0
}

// Hex4 decodes 4 hex digits at the start of s, or returns -1.
func Hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, b := range s[:4] {
		switch {
		case b-'0' < 10:
			b -= '0'
		case b|0x20-'a' < 6:
			b = b | 0x20 - 'a' + 10
		default:
			return -1
		}
		r = r<<4 | rune(b)
	}
	return r
}

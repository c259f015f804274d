package decode

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// AppendUnquote appends the unescaped contents of the JSON string token quoted (with its quotes,
// already validated) to dst. A \u escape of a lone surrogate becomes U+FFFD, as in encoding/json.
// It returns ErrSyntax, and dst with what was appended so far, when quoted is not a quoted
// string or holds a malformed escape.
func AppendUnquote(dst, quoted []byte) ([]byte, error) {
	if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		return dst, ErrSyntax
	}
	return appendUnescaped(dst, quoted[1:len(quoted)-1])
}

// appendUnescaped appends the unescaped form of the string contents s to dst.
func appendUnescaped(dst, s []byte) ([]byte, error) {
	for {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			return append(dst, s...), nil
		}
		dst = append(dst, s[:k]...)
		r, n := decodeEscape(s[k:])
		if n == 0 {
			return dst, ErrSyntax
		}
		dst = utf8.AppendRune(dst, r)
		s = s[k+n:]
	}
}

// KeyEquals reports whether the raw member name rawKey (the bytes between the quotes, possibly
// escaped, as Iter.Key returns them) equals name after unescaping. It does not allocate.
func KeyEquals(rawKey []byte, name string) bool {
	// Escapes only make the raw form longer, so a raw key no longer than name matches only
	// byte for byte, and then only if it has no escapes.
	if len(rawKey) <= len(name) {
		return string(rawKey) == name && strings.IndexByte(name, '\\') < 0
	}
	return keyEqualsSlow(rawKey, name)
}

func keyEqualsSlow(raw []byte, name string) bool {
	var buf [utf8.UTFMax]byte
	for len(raw) > 0 {
		if raw[0] != '\\' {
			if len(name) == 0 || name[0] != raw[0] {
				return false
			}
			raw, name = raw[1:], name[1:]
			continue
		}
		r, n := decodeEscape(raw)
		if n == 0 {
			return false
		}
		w := utf8.EncodeRune(buf[:], r)
		if len(name) < w || string(buf[:w]) != name[:w] {
			return false
		}
		raw, name = raw[n:], name[w:]
	}
	return len(name) == 0
}

// decodeEscape decodes the escape sequence at the start of s (s[0] == '\\') and returns the rune
// and the number of bytes used, or n == 0 when it is malformed. A surrogate pair of \u escapes
// decodes to one rune; a lone surrogate to U+FFFD.
func decodeEscape(s []byte) (r rune, n int) {
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
		r = hex4(s[2:])
		if r < 0 {
			return 0, 0
		}
		if r < 0xD800 || r >= 0xE000 {
			return r, 6
		}
		if r < 0xDC00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r2 := hex4(s[8:]); r2 >= 0xDC00 && r2 < 0xE000 {
				return 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00), 12
			}
		}
		return utf8.RuneError, 6
	}
	return 0, 0
}

// hex4 decodes 4 hex digits at the start of s, or returns -1.
func hex4(s []byte) rune {
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
